package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, item 9: a write that keeps failing backs off per object across cycles. Before, a binding the server
 * always refused was sent again by every cycle (120 POSTs a minute for one pod).
 */
class FailedWritesTest extends LiveClusterTest {
    @Test
    void aBindingThatKeepsFailingWaitsLongerAfterEachFailure() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "p", "volcano", 1, null));
        LiveScheduler s = fx.manualScheduler();
        await("pod in cache", () -> s.cache().holdsPod("team/p"));
        int[] refusals = new int[300];
        java.util.Arrays.fill(refusals, 500);
        fx.failBinding("team/p", refusals);
        AtomicLong now = new AtomicLong(System.nanoTime());
        s.actuator().failedWrites().useClock(now::get);
        int attempts = 3; // the fixture's Backoff: three attempts within a cycle

        s.loop().runOnce().report();
        assertEquals(attempts, fx.bindCalls("team/p"), "the first cycle tries");
        for (int cycle = 0; cycle < 10; cycle++) s.loop().runOnce().report();
        assertEquals(attempts, fx.bindCalls("team/p"), "no cycle tries again while its 1 s wait runs");

        now.addAndGet(Duration.ofMillis(1001).toNanos());
        for (int cycle = 0; cycle < 5; cycle++) s.loop().runOnce().report();
        assertEquals(2 * attempts, fx.bindCalls("team/p"), "once the wait is over, one cycle tries");

        now.addAndGet(Duration.ofMillis(1001).toNanos()); // the second wait is 2 s
        for (int cycle = 0; cycle < 5; cycle++) s.loop().runOnce().report();
        assertEquals(2 * attempts, fx.bindCalls("team/p"), "the second wait is twice as long");
        now.addAndGet(Duration.ofMillis(1000).toNanos());
        s.loop().runOnce().report();
        assertEquals(3 * attempts, fx.bindCalls("team/p"));
        assertEquals(3.0, s.metrics().writeFailures("bind"), "each failure counted");

        // The server accepts it again: bound at the next try, and its failures are forgotten.
        fx.clearBindingFailures("team/p");
        now.addAndGet(Duration.ofSeconds(5).toNanos());
        s.loop().runOnce().report();
        await("bound", () -> fx.nodeOf("team/p") != null);
        assertNotNull(fx.nodeOf("team/p"));
        assertEquals(0, s.actuator().failedWrites().size());
    }
}
