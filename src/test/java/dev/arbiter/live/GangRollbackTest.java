package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A gang whose binding fails part-way is rolled back (never left half-placed) and retried. Members are bound side by
 * side on the binder pool: those bound when one fails are evicted, those not yet sent are not sent.
 */
class GangRollbackTest extends LiveClusterTest {
    @Test
    void aBindFailingPartWayEvictsTheBoundMembersAndTheGangIsRetried() {
        for (int n = 1; n <= 4; n++) fx.create(node("node-" + n, 8));
        fx.create(podGroup("team", "train", "default", 4));
        for (int i = 0; i < 4; i++) fx.create(pod("team", "train-" + i, "volcano", 8, "train"));
        LiveScheduler s = fx.manualScheduler();
        await("gang in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasPodGroup("team/train"));
        // The third binding the engine issues fails on every attempt of the test backoff (3).
        List<Binding> planned = s.loop().plan().bindings();
        assertEquals(4, planned.size());
        String failing = planned.get(2).pod();
        fx.failBinding(failing, 500, 503, 500);
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        s.actuator().failedWrites().useClock(now::get);

        SchedulingLoop.Outcome first = s.loop().runOnce();

        assertEquals(1, first.report().bindFailures());
        assertEquals(0, first.report().bound());
        List<Binding> rolledBack = planned.stream().filter(b -> fx.evictCalls(b.pod()) > 0).toList();
        assertEquals(rolledBack.size(), first.report().rolledBack(), "every member bound before the failure is evicted");
        assertTrue(rolledBack.size() >= 1, "the binders run side by side: the others were bound meanwhile");
        for (Binding b : planned) {
            if (b.pod().equals(failing)) continue;
            assertTrue(fx.evictCalls(b.pod()) == 1 || fx.bindCalls(b.pod()) == 0, b.pod() + " rolled back or never sent");
        }
        for (Binding b : rolledBack) await(b.pod() + " evicted", () -> fx.pod(b.pod()) == null);
        for (Binding b : planned) assertNull(s.assumed().assumedNode(b.pod()), b.pod() + " not assumed any more");
        assertNotEquals("Running", phase(fx.podGroup("team/train")));
        await("FailedScheduling event", () -> fx.events(failing).stream().anyMatch(e -> e.startsWith("FailedScheduling: binding " + failing)));

        // The job controller recreates the evicted members; the next cycle schedules the whole gang again.
        for (Binding b : rolledBack) {
            String name = b.pod().split("/")[1];
            fx.create(pod("team", name, "volcano", 8, "train"));
        }
        await("recreated members in cache", () -> s.cache().snapshot().pods().stream()
                .filter(p -> !p.terminating()).count() == 4 && s.assumed().assumedBindings() == 0);
        // The failed member's next binding waits 1 s (FailedWrites), and its gang with it.
        assertEquals(0, s.loop().runOnce().report().bound(), "not while the failed member's wait runs");
        now.addAndGet(java.time.Duration.ofMillis(1001).toNanos());
        SchedulingLoop.Outcome retry = s.loop().runOnce();

        assertEquals(4, retry.report().bound());
        await("whole gang bound", () -> planned.stream().allMatch(b -> fx.nodeOf(b.pod()) != null));
        await("PodGroup Running", () -> "Running".equals(phase(fx.podGroup("team/train"))));
    }

    @Test
    void aBindingRefused403ForAMomentIsRetriedNotRolledBack() {
        // A restarted API server refuses granted calls with 403 until its RBAC is loaded (issue 32).
        for (int n = 1; n <= 2; n++) fx.create(node("node-" + n, 8));
        fx.create(podGroup("team", "pair", "default", 2));
        for (int i = 0; i < 2; i++) fx.create(pod("team", "pair-" + i, "volcano", 8, "pair"));
        LiveScheduler s = fx.manualScheduler();
        await("gang in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().hasPodGroup("team/pair"));
        fx.failBinding("team/pair-1", 403);

        SchedulingLoop.Outcome cycle = s.loop().runOnce();

        assertEquals(2, cycle.report().bound(), "both bound, the refused one on its second attempt");
        assertEquals(0, cycle.report().rolledBack());
        assertEquals(2, fx.bindCalls("team/pair-1"));
        assertEquals(0, fx.evictCalls("team/pair-0"));
    }

    private static String phase(VolcanoPodGroup pg) {
        return pg == null || pg.getStatus() == null ? null : pg.getStatus().phase;
    }
}
