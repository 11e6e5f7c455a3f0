package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * API errors on the two writes that matter: bind and evict. The test backoff is 3 attempts; a call that fails
 * them all is handed back to the next cycle, and nothing is lost or booked twice.
 */
class ApiFailureTest extends LiveClusterTest {
    @Test
    void a409ThenA500OnBindAreRetriedWithinTheCycle() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "p", "arbiter", 8, null));
        fx.failBinding("team/p", 409, 500);
        LiveScheduler s = fx.manualScheduler();
        await("pod in cache", () -> s.cache().snapshot().pods().size() == 1);

        SchedulingLoop.Outcome o = s.loop().runOnce();

        assertEquals(1, o.report().bound());
        assertEquals(0, o.report().bindFailures());
        assertEquals(3, fx.bindCalls("team/p"));
        await("bound", () -> "node-1".equals(fx.nodeOf("team/p")));
    }

    @Test
    void aBindThatKeepsFailingReleasesItsReservationAndIsRetriedOnceItsWaitEnds() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "p", "arbiter", 8, null));
        fx.failBinding("team/p", 500, 500, 500);
        LiveScheduler s = fx.manualScheduler();
        await("pod in cache", () -> s.cache().snapshot().pods().size() == 1);
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        s.actuator().failedWrites().useClock(now::get);

        SchedulingLoop.Outcome first = s.loop().runOnce();
        assertEquals(1, first.report().bindFailures());
        assertNull(s.assumed().assumedNode("team/p"), "the failed bind forgets its assumption");
        assertTrue(s.cache().snapshot().pods().stream().noneMatch(PodSpec::isBound));

        // The pod's next binding waits 1 s (FailedWrites); then a cycle binds it.
        now.addAndGet(java.time.Duration.ofMillis(1001).toNanos());
        SchedulingLoop.Outcome second = s.loop().runOnce();
        assertEquals(1, second.report().bound());
        await("bound", () -> "node-1".equals(fx.nodeOf("team/p")));
        assertEquals(4, fx.bindCalls("team/p"));
    }

    @Test
    void aNodeIsNeverDoubleBookedWhileTheApiCatchesUp() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "a", "arbiter", 8, null));
        fx.create(pod("team", "b", "arbiter", 8, null));
        fx.bindLatency(Duration.ofMillis(800));
        LiveScheduler s = fx.manualScheduler();
        await("pods in cache", () -> s.cache().snapshot().pods().size() == 2);

        assertEquals(1, s.loop().runOnce().report().bound());
        SchedulingLoop.Outcome meanwhile = s.loop().runOnce();
        assertEquals(0, meanwhile.result().bindings().size(), "the assumed binding holds the node");

        await("one pod shows its node", () -> fx.nodeOf("team/a") != null || fx.nodeOf("team/b") != null);
        await("informer caught up", () -> s.assumed().assumedBindings() == 0);
        assertEquals(0, s.loop().runOnce().result().bindings().size());
        assertTrue(fx.nodeOf("team/a") == null || fx.nodeOf("team/b") == null, "only one pod on the 8-GPU node");
        assertEquals(1, fx.bindCalls("team/a") + fx.bindCalls("team/b"));
    }

    @Test
    void a500OnEvictIsRetriedAndTheVictimLeaves() {
        PreemptionSetup p = preemptionSetup();
        fx.failEviction(p.victim(), 500, 409);

        SchedulingLoop.Outcome o = p.scheduler().loop().runOnce();

        assertEquals(1, o.report().evicted());
        assertEquals(3, fx.evictCalls(p.victim()));
        await("victim gone, and seen gone", () -> fx.pod(p.victim()) == null && !p.scheduler().cache().holdsPod(p.victim()));
        SchedulingLoop.Outcome next = p.scheduler().loop().runOnce();
        assertEquals(1, next.report().bound());
        await("preemptor bound", () -> fx.nodeOf(p.preemptor()) != null);
    }

    @Test
    void anEvictionRefusedByAPodDisruptionBudgetIsReportedNeverForced() {
        PreemptionSetup p = preemptionSetup();
        fx.refuseEvictions(p.victim());

        SchedulingLoop.Outcome o = p.scheduler().loop().runOnce();

        assertEquals(1, o.report().evictionsRefused());
        assertEquals(0, o.report().evicted());
        assertEquals(1, fx.evictCalls(p.victim()), "a refusal is not retried within the cycle");
        assertNotNull(fx.pod(p.victim()), "never deleted behind the budget's back");
        assertEquals(1.0, p.scheduler().metrics().decisions("preempt", "refused"));
        await("refusal reported", () -> fx.events(p.victim()).stream().anyMatch(e -> e.startsWith("EvictionRefused: ")));
        assertNull(fx.nodeOf(p.preemptor()));
    }

    private record PreemptionSetup(LiveScheduler scheduler, String victim, String preemptor) {}

    /** One 8-GPU node held by a low-priority pod; a high-priority pod of the same queue arrives. */
    private PreemptionSetup preemptionSetup() {
        fx.create(new PriorityClassSpec("low", 10, false, "PreemptLowerPriority"));
        fx.create(new PriorityClassSpec("high", 1000, false, "PreemptLowerPriority"));
        fx.create(new QueueSpec("team", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        fx.create(withPriority(pod("team", "low-0", "arbiter", 8, null), "low", "node-1"));
        fx.create(withPriority(pod("team", "high-0", "arbiter", 8, null), "high", null));
        LiveScheduler s = fx.manualScheduler();
        await("pods in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().hasQueue("team"));
        return new PreemptionSetup(s, "team/low-0", "team/high-0");
    }

    private static PodSpec withPriority(PodSpec p, String priorityClass, String node) {
        Map<String, String> annotations = Map.of(PodSpec.QUEUE_ANNOTATION, "team");
        return new PodSpec(p.namespace(), p.name(), p.schedulerName(), node, node == null ? "Pending" : "Running",
                priorityClass, null, null, p.requests(), Map.of(), List.of(), Map.of(), annotations, 0, 0, false);
    }
}
