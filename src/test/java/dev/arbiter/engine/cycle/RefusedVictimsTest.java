package dev.arbiter.engine.cycle;

import dev.arbiter.engine.victims.RefusedVictims;

import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.EvictionRefusal;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A victim whose eviction the API server refused (issue 32: a PodDisruptionBudget's 429) is passed over while the
 * snapshot lists it ({@link ClusterSnapshot#refusedVictims}): the search re-plans with other victims, and the
 * preemptor's reason says which were refused.
 */
class RefusedVictimsTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final EvictionRefusal PDB = new EvictionRefusal(429,
            "Cannot evict pod as it would violate the pod's disruption budget.", 5);

    /** Tenant b runs four one-node workers on four nodes; tenant a's gang of two arrives (b deserves two nodes). */
    private static ClusterSnapshot reclaimSetup() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a").end().queue("b").end();
        for (int i = 0; i < 4; i++) c.job("b/worker-" + i).queue("b").pods(1, GPU, 8).running("node-" + (i + 1)).end();
        return c.job("a/gang").queue("a").pods(2, GPU, 8).minMember(2).end().snapshot(10_000);
    }

    /** One 8-GPU node held by a low-priority job of two 4-GPU pods; a high-priority 4-GPU pod of the same queue. */
    private static ClusterSnapshot preemptSetup() {
        return ClusterBuilder.cluster().nodes(1, GPU, 8).priorityClass("low", 10).priorityClass("high", 1000)
                .job("t/low").priorityClass("low").minMember(1).pods(2, GPU, 4).running("node-1", "node-1").startedAt(0).end()
                .job("t/high").priorityClass("high").pods(1, GPU, 4).end()
                .snapshot(10_000);
    }

    private static Map<String, EvictionRefusal> refused(String... pods) {
        Map<String, EvictionRefusal> m = new HashMap<>();
        for (String p : pods) m.put(p, PDB);
        return m;
    }

    @Test
    void withoutRefusalsReclaimTakesTwoOfTheWorkers() {
        CycleResult r = Shipped.cycle(reclaimSetup());
        assertEquals(2, r.evictions().size(), r.evictions().toString());
    }

    @Test
    void aRefusedVictimIsPassedOverAndAnotherWorkerIsTakenInstead() {
        ClusterSnapshot s = reclaimSetup();
        Set<String> first = evicted(Shipped.cycle(s));
        String refusedOne = first.iterator().next();

        CycleResult r = Shipped.cycle(s.withRefusedVictims(refused(refusedOne)));

        Set<String> now = evicted(r);
        assertEquals(2, now.size(), now.toString());
        assertFalse(now.contains(refusedOne), "the refused victim is not chosen again: " + now);
        String reason = Shipped.group(r.podGroups(), "a/gang").reason();
        assertTrue(reason.contains("eviction of " + refusedOne + " refused: Cannot evict pod as it would violate the"
                + " pod's disruption budget. (429); trying other victims"), reason);
    }

    @Test
    void withEveryWorkerRefusedNothingIsEvictedAndTheReasonSaysWhy() {
        CycleResult r = Shipped.cycle(reclaimSetup().withRefusedVictims(
                refused("b/worker-0-0", "b/worker-1-0", "b/worker-2-0", "b/worker-3-0")));

        assertTrue(r.evictions().isEmpty(), r.evictions().toString());
        String reason = Shipped.group(r.podGroups(), "a/gang").reason();
        assertTrue(reason.contains("4 by the Eviction API (e.g. eviction of b/worker-"), reason);
        assertTrue(reason.contains("(429); not a victim for 5s)"), reason);
        assertFalse(reason.contains("minimum runtime"), reason);
    }

    @Test
    void withAllButOneWorkerRefusedTheGangWaitsAndIsToldOfTheRefusals() {
        CycleResult r = Shipped.cycle(reclaimSetup().withRefusedVictims(
                refused("b/worker-0-0", "b/worker-1-0", "b/worker-2-0")));

        assertTrue(r.evictions().isEmpty(), "one victim is not enough for the gang: none is evicted " + r.evictions());
        String reason = Shipped.group(r.podGroups(), "a/gang").reason();
        assertTrue(reason.contains("refused: Cannot evict pod"), reason);
        assertTrue(reason.contains("and 1 more refused"), reason);
    }

    @Test
    void preemptionPassesOverARefusedVictimToo() {
        ClusterSnapshot s = preemptSetup();
        Set<String> first = evicted(Shipped.cycle(s));
        assertEquals(1, first.size(), first.toString());
        String refusedOne = first.iterator().next();

        Set<String> now = evicted(Shipped.cycle(s.withRefusedVictims(refused(refusedOne))));

        Set<String> other = new TreeSet<>(Set.of("t/low-0", "t/low-1"));
        other.remove(refusedOne);
        assertEquals(other, now);
    }

    @Test
    void aSchedulerThatRepeatsUnchangedAnswersDecidesAgainWhenTheRefusalsChange() {
        Scheduler s = Shipped.scheduler().keepingSession().keepingWorkingCopy().answeringUnchanged();
        ClusterSnapshot snap = reclaimSetup();
        Set<String> first = evicted(s.schedule(snap, 1));
        String refusedOne = first.iterator().next();

        Set<String> again = evicted(s.schedule(snap.withRefusedVictims(refused(refusedOne)), 2));

        assertEquals(2, again.size(), again.toString());
        assertFalse(again.contains(refusedOne), again.toString());
    }

    @Test
    void aRuleThatProtectsFromReclaimOnlyDoesNotHideARefusalFromPreemption() {
        Map<String, dev.arbiter.facts.Protected> byRules = Map.of("t/p", new dev.arbiter.facts.Protected("t/p",
                "min runtime", dev.arbiter.policy.ProtectionScope.RECLAIM, "some rule"));
        var merged = RefusedVictims.withRefused(byRules, refused("t/p"));
        assertTrue(merged.get("t/p").coversPreemption());
        assertEquals(RefusedVictims.SOURCE, merged.get("t/p").rule());
    }
}
