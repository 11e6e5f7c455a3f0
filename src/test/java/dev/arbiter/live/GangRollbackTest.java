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

/** A gang whose binding fails part-way is rolled back (never left half-placed) and retried. */
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

        SchedulingLoop.Outcome first = s.loop().runOnce();

        assertEquals(1, first.report().bindFailures());
        assertEquals(2, first.report().rolledBack(), "the two members bound before the failure are evicted");
        assertEquals(0, first.report().bound());
        for (Binding b : planned.subList(0, 2)) {
            assertEquals(1, fx.evictCalls(b.pod()));
            await(b.pod() + " evicted", () -> fx.pod(b.pod()) == null);
        }
        assertEquals(0, fx.bindCalls(planned.get(3).pod()), "members after the failure are not attempted");
        assertNull(s.assumed().assumedNode(failing));
        assertNull(s.assumed().assumedNode(planned.get(3).pod()));
        assertNotEquals("Running", phase(fx.podGroup("team/train")));
        assertTrue(fx.events(failing).stream().anyMatch(e -> e.startsWith("FailedScheduling: binding " + failing)));

        // The job controller recreates the evicted members; the next cycle schedules the whole gang again.
        for (Binding b : planned.subList(0, 2)) {
            String name = b.pod().split("/")[1];
            fx.create(pod("team", name, "volcano", 8, "train"));
        }
        await("recreated members in cache", () -> s.cache().snapshot().pods().stream()
                .filter(p -> !p.terminating()).count() == 4 && s.assumed().assumedBindings() == 0);
        SchedulingLoop.Outcome retry = s.loop().runOnce();

        assertEquals(4, retry.report().bound());
        await("whole gang bound", () -> planned.stream().allMatch(b -> fx.nodeOf(b.pod()) != null));
        await("PodGroup Running", () -> "Running".equals(phase(fx.podGroup("team/train"))));
    }

    private static String phase(VolcanoPodGroup pg) {
        return pg == null || pg.getStatus() == null ? null : pg.getStatus().phase;
    }
}
