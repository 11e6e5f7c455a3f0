package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a pod Arbiter cannot place is told (issue 32): PodScheduled=False with reason Unschedulable, as kube-scheduler
 * and Volcano set it (cluster-autoscaler scales up only for pods that carry it), written when the message changes;
 * and one FailedScheduling Event per pod whose count grows, repeated after the pod's backoff, not once per cycle.
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterpart is {@code
 * WaitingGangRealTest}, and the two agree: PodScheduled=False, reason Unschedulable, and repeats on one Event.
 */
class UnschedulablePodsTest extends LiveClusterTest {
    /** A gang of two 8-GPU pods on one 8-GPU node: it cannot start. */
    private LiveScheduler waitingGang() {
        fx.create(node("node-1", 8));
        fx.create(podGroup("lab", "big", "default", 2));
        fx.create(pod("lab", "big-0", "arbiter", 8, "big"));
        fx.create(pod("lab", "big-1", "arbiter", 8, "big"));
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().hasPodGroup("lab/big"));
        return s;
    }

    private PodCondition podScheduled(String key) {
        var status = fx.pod(key).getStatus();
        if (status == null || status.getConditions() == null) return null;
        return status.getConditions().stream().filter(c -> "PodScheduled".equals(c.getType())).findFirst().orElse(null);
    }

    private List<Event> failedScheduling(String pod) {
        return fx.allEvents().stream().filter(e -> pod.equals(e.getInvolvedObject().getName())
                && "FailedScheduling".equals(e.getReason())).toList();
    }

    @Test
    void aPodOfAGangThatCannotStartCarriesPodScheduledFalseUnschedulable() {
        LiveScheduler s = waitingGang();

        s.loop().runOnce().report();

        for (String p : List.of("lab/big-0", "lab/big-1")) {
            await("PodScheduled on " + p, () -> podScheduled(p) != null);
            PodCondition c = podScheduled(p);
            assertEquals("False", c.getStatus());
            assertEquals("Unschedulable", c.getReason());
            assertTrue(c.getMessage().startsWith("2/2 tasks unschedulable: "), c.getMessage());
            assertNull(c.getLastProbeTime());
            assertNotNull(c.getLastTransitionTime());
        }
    }

    @Test
    void anUnchangedReasonIsNotPatchedAgainAndItsEventIsRepeatedOnlyAfterTheBackoff() {
        LiveScheduler s = waitingGang();
        AtomicLong now = new AtomicLong(0);
        s.actuator().useClock(now::get);

        s.loop().runOnce().report();
        await("PodScheduled written", () -> podScheduled("lab/big-0") != null);
        await("one FailedScheduling", () -> failedScheduling("big-0").size() == 1);
        String version = fx.pod("lab/big-0").getMetadata().getResourceVersion();
        // The default Queue, created by the first cycle, gets its status in the second (still at time 0).
        await("default Queue in cache", () -> s.cache().hasQueue("default"));
        assertEquals(0, s.loop().runOnce().report().events(), "no event within the backoff");
        await("the informer shows the default Queue's status", () -> s.cache().queueStatus("default") != null);

        now.set(500_000_000L); // half a second: within the pod's backoff
        Actuator.Report within = s.loop().runOnce().report();
        assertEquals(0, within.events(), "no event within the backoff");
        assertEquals(0, within.statusWrites(), "neither pod's condition nor the status is written again");

        now.set(1_100_000_000L); // past the first backoff (1 s): the same message once more
        Actuator.Report after = s.loop().runOnce().report();
        assertEquals(2, after.events(), "one repeat per pending pod");
        assertEquals(0, after.statusWrites());
        await("the repeat counted on the same Event", () -> failedScheduling("big-0").size() == 1
                && failedScheduling("big-0").get(0).getCount() == 2);
        assertEquals(version, fx.pod("lab/big-0").getMetadata().getResourceVersion(), "the pod was not patched again");

        now.set(2_000_000_000L); // the backoff doubled to 2 s: not yet
        assertEquals(0, s.loop().runOnce().report().events());
    }
}
