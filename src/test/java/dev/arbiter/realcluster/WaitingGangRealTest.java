package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.VolcanoPodGroup;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A gang that cannot start (three whole nodes asked, two exist) waits while Arbiter runs its cycles: each member
 * carries {@code PodScheduled=False} (reason Unschedulable), as kube-scheduler and Volcano set it and
 * cluster-autoscaler reads it; its {@code FailedScheduling} Events aggregate on the real API server (one Event per pod
 * whose count grows, not a new Event per cycle); the PodGroup says why; and it starts when a third node appears.
 */
class WaitingGangRealTest extends RealClusterTest {
    @Test
    void aWaitingGangsPodsSayUnschedulableAndTheirEventsAggregate() {
        cluster.namespace("wg");
        node("wg-1", 16, 8);
        node("wg-2", 16, 8);
        List<String> docs = new ArrayList<>(List.of(queue("q-wg", 1), podGroup("wg", "big", "q-wg", 3)));
        for (int i = 0; i < 3; i++) docs.add(pod("wg", "big-" + i, "big", "arbiter", 8, null));
        apply(docs(docs));
        runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(300)));

        await("every member says PodScheduled=False, Unschedulable", () -> admin.pods().inNamespace("wg").list()
                .getItems().stream().allMatch(p -> unschedulable(p) != null));
        for (Pod p : admin.pods().inNamespace("wg").list().getItems()) {
            PodCondition c = unschedulable(p);
            assertTrue(c.getMessage() != null && c.getMessage().contains("3"), () -> "message: " + c.getMessage());
            assertNotNull(c.getLastTransitionTime());
            assertNull(p.getSpec().getNodeName());
        }
        // Cycles every 300 ms for long enough that each pod's message is repeated past its backoff (1 s, 2 s, 4 s).
        await("FailedScheduling repeated on one Event per pod", () -> failedScheduling().values().stream()
                .allMatch(events -> events.size() == 1 && events.get(0).getCount() != null && events.get(0).getCount() >= 3)
                && failedScheduling().size() == 3, Duration.ofSeconds(30));
        Map<String, List<Event>> events = failedScheduling();
        assertEquals(3, events.size(), () -> "pods with FailedScheduling: " + events.keySet());
        events.forEach((pod, list) -> assertEquals(1, list.size(), () -> pod + ": " + list.size() + " distinct Events"));
        await("the PodGroup says why", () -> {
            VolcanoPodGroup pg = admin.resources(VolcanoPodGroup.class).inNamespace("wg").withName("big").get();
            return pg.getStatus() != null && pg.getStatus().conditions != null && pg.getStatus().conditions.stream()
                    .anyMatch(c -> "Unschedulable".equals(c.type) && "True".equals(c.status));
        });

        node("wg-3", 16, 8);
        await("the gang starts on the third node", () -> admin.pods().inNamespace("wg").list().getItems().stream()
                .allMatch(p -> p.getSpec().getNodeName() != null));
        await("the members say PodScheduled=True", () -> admin.pods().inNamespace("wg").list().getItems().stream()
                .allMatch(p -> p.getStatus().getConditions().stream()
                        .anyMatch(c -> c.getType().equals("PodScheduled") && c.getStatus().equals("True"))));
    }

    private static PodCondition unschedulable(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null) return null;
        return p.getStatus().getConditions().stream().filter(c -> c.getType().equals("PodScheduled")
                && c.getStatus().equals("False") && "Unschedulable".equals(c.getReason())).findFirst().orElse(null);
    }

    private static Map<String, List<Event>> failedScheduling() {
        return admin.v1().events().inNamespace("wg").list().getItems().stream()
                .filter(e -> "FailedScheduling".equals(e.getReason()))
                .collect(Collectors.groupingBy(e -> e.getInvolvedObject().getName()));
    }
}
