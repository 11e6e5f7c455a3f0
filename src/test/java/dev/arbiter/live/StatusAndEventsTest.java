package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import org.junit.jupiter.api.Test;

/** PodGroup and Queue status and pod events: written when something changes, and only then. */
class StatusAndEventsTest extends LiveClusterTest {
    @Test
    void theDefaultQueueIsCreatedWhenAbsent() {
        LiveScheduler s = fx.manualScheduler();
        s.loop().runOnce();
        await("default Queue exists", () -> fx.queue("default") != null);
        VolcanoQueue q = fx.queue("default");
        assertEquals(1, q.getSpec().weight);
        assertEquals(Boolean.TRUE, q.getSpec().reclaimable);
    }

    @Test
    void aWaitingGangGetsItsReasonOnceAndStatusIsNotRewrittenWhenNothingChanged() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        fx.create(podGroup("lab", "big", "research", 2));
        fx.create(pod("lab", "big-0", "arbiter", 8, "big"));
        fx.create(pod("lab", "big-1", "arbiter", 8, "big"));
        LiveScheduler s = fx.manualScheduler();
        s.actuator().useClock(() -> 0L); // the cycles run within the pods' FailedScheduling backoff, however slow the machine
        await("in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().hasPodGroup("lab/big")
                && s.cache().hasQueue("research"));

        SchedulingLoop.Outcome first = s.loop().runOnce();
        assertTrue(first.report().statusWrites() >= 2, "PodGroup and Queue status written");
        await("informer shows the status", () -> s.cache().podGroupStatus("lab/big") != null
                && s.cache().queueStatus("research") != null);
        VolcanoPodGroup.Status pg = fx.podGroup("lab/big").getStatus();
        assertTrue(List.of("Pending", "Inqueue").contains(pg.phase), pg.phase);
        VolcanoPodGroup.Condition why = BindingTest.condition(fx.podGroup("lab/big"), "Unschedulable");
        assertTrue(why.message.startsWith("2/2 tasks unschedulable: "), why.message);
        VolcanoQueue.Status q = fx.queue("research").getStatus();
        assertEquals("Open", q.state);
        assertEquals(0, q.running);
        assertEquals(1, q.pending + q.inqueue);

        // The default Queue, created by the first cycle off the decision loop, gets its status in the second.
        await("default Queue in cache", () -> s.cache().hasQueue("default"));
        SchedulingLoop.Outcome second = s.loop().runOnce();
        second.report();
        await("informer shows the default Queue's status", () -> s.cache().queueStatus("default") != null);
        SchedulingLoop.Outcome third = s.loop().runOnce();

        assertEquals(0, third.report().statusWrites(), "an unchanged cycle writes no status");
        assertEquals(0, third.report().events(), "the same reason is not reported again within the backoff");
        await("FailedScheduling sent", () -> fx.events("lab/big-0").stream().anyMatch(e -> e.startsWith("FailedScheduling: ")));
        assertTrue(second.report().events() <= 2);
        long failed = fx.events("lab/big-0").stream().filter(e -> e.startsWith("FailedScheduling: ")).count();
        assertTrue(failed >= 1 && failed <= 2, "FailedScheduling once per distinct reason, got " + failed);
    }
}
