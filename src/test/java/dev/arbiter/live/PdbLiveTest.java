package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, fault 1: reclaim under a PodDisruptionBudget. The mock answers 429 to every eviction of a pod the test
 * puts "under a budget" ({@link LiveFixture#refuseEvictions}), dry runs included. A refused victim is a refused
 * victim: the plan is re-made without it, a plan's victims are evicted all or none, and a refused pod is not asked
 * again before its backoff ends.
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterpart is {@code PdbRealTest},
 * and the two agree: a budget over one worker: the other worker evicted and nothing for nothing; over all workers:
 * a bounded number of refusals.
 */
class PdbLiveTest extends LiveClusterTest {
    private static final List<String> WORKERS = List.of("b/worker-0", "b/worker-1", "b/worker-2", "b/worker-3");

    @Test
    void aBudgetOverOneVictimMakesThePlanTakeAnotherAndNothingIsEvictedForNothing() {
        LiveScheduler s = tenants();
        List<String> planned = victims(s.loop().plan().evictions());
        assertEquals(2, planned.size(), planned.toString());
        String protectedPod = planned.get(0);
        String other = planned.get(1);
        fx.refuseEvictions(protectedPod);

        // 1. The plan's dry run meets the budget: neither victim is evicted.
        SchedulingLoop.Outcome first = s.loop().runOnce();
        Actuator.Report r1 = first.report();
        assertEquals(0, r1.evicted(), "all or none: " + r1);
        assertEquals(1, r1.evictionsRefused());
        assertEquals(1, first.writes().evictionsWithheld());
        assertEquals(fx.dryRunCalls(other), fx.evictCalls(other), "only a dry run for the unprotected victim");
        assertNotNull(fx.pod(other), "not evicted for nothing");

        // 2. The next cycle re-plans without the refused pod, says so, and the new plan is evicted.
        SchedulingLoop.Outcome second = s.loop().runOnce();
        List<String> replanned = victims(second.result().evictions());
        assertEquals(2, replanned.size(), replanned.toString());
        assertFalse(replanned.contains(protectedPod), replanned.toString());
        assertTrue(reason(second, "a/gang").contains("eviction of " + protectedPod + " refused: Cannot evict pod as it"
                + " would violate the pod's disruption budget. (429); trying other victims"), reason(second, "a/gang"));
        assertEquals(2, second.report().evicted());
        for (String v : replanned) await(v + " gone", () -> fx.pod(v) == null && !s.cache().holdsPod(v));

        // 3. The gang starts; the protected worker still runs, and two workers were evicted in all.
        s.loop().runOnce();
        await("gang bound", () -> fx.nodeOf("a/gang-0") != null && fx.nodeOf("a/gang-1") != null);
        assertNotNull(fx.pod(protectedPod));
        assertEquals(fx.dryRunCalls(protectedPod), fx.evictCalls(protectedPod), "never a real eviction of it");
        assertEquals(2, WORKERS.stream().filter(w -> fx.pod(w) == null).count());
    }

    @Test
    void aBudgetOverEveryVictimCostsABoundedNumberOfEvictionCallsAndTheReasonSaysWhy() {
        LiveScheduler s = tenants();
        for (String w : WORKERS) fx.refuseEvictions(w);
        AtomicLong clock = new AtomicLong(System.nanoTime());
        s.actuator().refusals().useClock(clock::get);

        SchedulingLoop.Outcome last = null;
        for (int cycle = 0; cycle < 30; cycle++) {
            last = s.loop().runOnce();
            last.report();
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
        }

        // Each worker is asked at 0, 5 and 15 s at most (backoff 5 s doubling): not once per cycle.
        int calls = fx.evictCalls();
        assertTrue(calls <= 12, "eviction POSTs in 30 one-second cycles: " + calls);
        assertTrue(calls >= 4, "each worker was tried: " + calls);
        for (String w : WORKERS) {
            assertNotNull(fx.pod(w), w + " evicted");
            assertTrue(fx.evictCalls(w) <= 3, w + ": " + fx.evictCalls(w));
        }
        assertEquals(calls, (int) s.metrics().decisions("reclaim", "refused"));
        String reason = reason(last, "a/gang");
        assertTrue(reason.contains("by the Eviction API (e.g. eviction of b/worker-"), reason);
        assertTrue(reason.contains("(429)"), reason);
        assertFalse(reason.contains("waiting for"), reason);
        await("the gang's pods are told why", () -> fx.events("a/gang-0").stream()
                .anyMatch(e -> e.startsWith("FailedScheduling: ") && e.contains("by the Eviction API")));
    }

    @Test
    void aRefusedVictimIsTriedAgainOnceItsBackoffEndsAndIsEvictedWhenTheBudgetAllows() {
        LiveScheduler s = tenants();
        for (String w : WORKERS) fx.refuseEvictions(w);
        AtomicLong clock = new AtomicLong(System.nanoTime());
        s.actuator().refusals().useClock(clock::get);
        for (int cycle = 0; cycle < 3; cycle++) s.loop().runOnce().report();
        assertEquals(4, s.actuator().refusedVictims().size());
        int before = fx.evictCalls();
        assertEquals(4, before, "every worker asked once (a dry run each)");

        for (String w : WORKERS) fx.allowEvictions(w);
        s.loop().runOnce().report();
        assertEquals(before, fx.evictCalls(), "nobody is asked again while the backoff runs");

        clock.addAndGet(Duration.ofSeconds(6).toNanos());
        Actuator.Report r = s.loop().runOnce().report();
        assertEquals(2, r.evicted(), r.toString());
    }

    // ---- fixture ------------------------------------------------------------------------------------------------

    /**
     * Four 8-GPU nodes; tenant b (queue b) runs four one-node workers, one per node; tenant a (queue a, same weight)
     * wants a gang of two whole nodes: reclaim takes two of b's workers.
     */
    private LiveScheduler tenants() {
        fx.create(new QueueSpec("a", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(new QueueSpec("b", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        for (int i = 0; i < 4; i++) {
            fx.create(node("node-" + i, 8));
            fx.create(pod("b", "worker-" + i, "node-" + i, "b", null));
        }
        fx.create(podGroup("a", "gang", "a", 2));
        for (int i = 0; i < 2; i++) fx.create(pod("a", "gang-" + i, null, "a", "gang"));
        LiveScheduler s = fx.manualScheduler();
        await("cluster in cache", () -> s.cache().snapshot().pods().size() == 6 && s.cache().hasQueue("a")
                && s.cache().hasQueue("b") && s.cache().hasPodGroup("a/gang"));
        return s;
    }

    private static PodSpec pod(String ns, String name, String node, String queue, String group) {
        Map<String, String> annotations = new java.util.HashMap<>(Map.of(PodSpec.QUEUE_ANNOTATION, queue));
        if (group != null) annotations.put(PodSpec.GROUP_ANNOTATION, group);
        return new PodSpec(ns, name, "arbiter", node, node == null ? "Pending" : "Running", null, null, null,
                Resources.of("cpu", 1, "mars-tech.com/gpu", 8, "pods", 1), Map.of(), List.of(), Map.of(),
                annotations, 0, 0, false);
    }

    private static List<String> victims(List<Eviction> evictions) {
        List<String> out = new ArrayList<>();
        for (Eviction e : evictions) out.add(e.pod());
        return out;
    }

    private static String reason(SchedulingLoop.Outcome o, String podGroup) {
        for (PodGroupStatus g : o.result().podGroups()) if (g.podGroup().equals(podGroup)) return String.valueOf(g.reason());
        throw new AssertionError("no status for " + podGroup + " in " + o.result().podGroups());
    }
}
