package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Pods and gangs bound through the pods/binding subresource. */
class BindingTest extends LiveClusterTest {
    @Test
    void aBarePodIsBoundWithoutCreatingAPodGroup() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "solo", "arbiter", 4, null));
        LiveScheduler s = fx.manualScheduler();
        await("pod in cache", () -> s.cache().snapshot().pods().size() == 1);

        SchedulingLoop.Outcome o = s.loop().runOnce();

        assertEquals(1, o.report().bound());
        await("solo bound", () -> "node-1".equals(fx.nodeOf("team/solo")));
        assertEquals(0, client.resources(VolcanoPodGroup.class).inAnyNamespace().list().getItems().size());
        await("Scheduled event (events are sent asynchronously)", () -> fx.events("team/solo").stream()
                .anyMatch(e -> e.startsWith("Scheduled: Successfully assigned team/solo to node-1")));
    }

    @Test
    void aPodOfAnotherSchedulerIsLeftAlone() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "theirs", "default-scheduler", 1, null));
        LiveScheduler s = fx.manualScheduler();
        await("pod in cache", () -> s.cache().snapshot().pods().size() == 1);

        assertEquals(0, s.loop().runOnce().report().bound());
        assertEquals(0, fx.bindCalls("team/theirs"));
    }

    @Test
    void aGangOfFourIsBoundOnlyWhenAllFour() {
        fx.create(node("node-1", 8));
        fx.create(node("node-2", 8));
        fx.create(node("node-3", 8));
        fx.create(podGroup("team", "train", "default", 4));
        for (int i = 0; i < 4; i++) fx.create(pod("team", "train-" + i, "volcano", 8, "train"));
        LiveScheduler s = fx.manualScheduler();
        await("gang in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasPodGroup("team/train"));

        SchedulingLoop.Outcome first = s.loop().runOnce();
        assertEquals(0, first.report().bound(), "3 nodes hold 3 of 4: nobody starts");
        for (int i = 0; i < 4; i++) assertEquals(0, fx.bindCalls("team/train-" + i));
        await("Unschedulable condition written", () -> condition(fx.podGroup("team/train"), "Unschedulable") != null);
        VolcanoPodGroup.Condition why = condition(fx.podGroup("team/train"), "Unschedulable");
        assertTrue(why.message.startsWith("4/4 tasks unschedulable: "), why.message);
        assertTrue(why.message.contains("mars-tech.com/gpu"), why.message);
        await("FailedScheduling event", () -> fx.events("team/train-3").stream()
                .anyMatch(e -> e.startsWith("FailedScheduling: 4/4 tasks unschedulable")));

        fx.create(node("node-4", 8));
        await("node-4 in cache", () -> s.cache().snapshot().nodes().size() == 4);
        SchedulingLoop.Outcome second = s.loop().runOnce();

        assertEquals(4, second.report().bound());
        await("all four bound", () -> {
            for (int i = 0; i < 4; i++) if (fx.nodeOf("team/train-" + i) == null) return false;
            return true;
        });
        await("PodGroup Running once its four bindings were accepted", () -> {
            VolcanoPodGroup pg = fx.podGroup("team/train");
            return pg.getStatus() != null && "Running".equals(pg.getStatus().phase);
        });
        // status.running counts pods whose phase is Running (as Volcano does): the next cycle writes it once the
        // informer shows what the (emulated) kubelet reported.
        await("the pods' Running phase in cache", () -> s.cache().snapshot().pods().stream()
                .filter(p -> "Running".equals(p.phase())).count() == 4);
        s.loop().runOnce();
        await("PodGroup shows 4 running", () -> fx.podGroup("team/train").getStatus().running == 4);
        VolcanoPodGroup done = fx.podGroup("team/train");
        assertNull(condition(done, "Unschedulable"), () -> fx.client.getKubernetesSerialization().asJson(done.getStatus()));
    }

    static VolcanoPodGroup.Condition condition(VolcanoPodGroup pg, String type) {
        if (pg == null || pg.getStatus() == null || pg.getStatus().conditions == null) return null;
        return pg.getStatus().conditions.stream().filter(c -> type.equals(c.type)).findFirst().orElse(null);
    }
}
