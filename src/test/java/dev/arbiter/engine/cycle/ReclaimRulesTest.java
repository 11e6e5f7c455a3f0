package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.scenario.ClusterBuilder;
import org.junit.jupiter.api.Test;

/**
 * reclaim.drl: a queue below its deserved share takes back from reclaimable queues above theirs, each eviction only
 * while the victim queue is still above its deserved share.
 */
class ReclaimRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    /** Queue b runs one single-node job per node on all four nodes; queue a wants {@code nodes} nodes for one gang. */
    private static ClusterBuilder borrowed(boolean reclaimable, int nodes) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").end().queue("b").reclaimable(reclaimable).end();
        for (int i = 1; i <= 4; i++) c.job("b/j" + i).queue("b").pods(1, GPU, 8).running("node-" + i).end();
        return c.job("a/want").queue("a").pods(nodes, GPU, 8).end();
    }

    @Test
    void aQueueBelowItsShareReclaimsFromAnOverusedReclaimableQueue() {
        CycleResult r = Shipped.cycle(borrowed(true, 2).snapshot());
        assertEquals(2, r.evictions().size());
        for (Eviction e : r.evictions()) {
            assertEquals("reclaim", e.action());
            assertEquals("a/want", e.forPodGroup());
            assertEquals("reclaim: a queue below its deserved share takes back from reclaimable queues above theirs", e.rule());
        }
    }

    @Test
    void aTaskOfAQueueNoGrantNamesIsNeverTakenEvenWhereItWouldBeTheCheapestVictim() {
        // a deserves 9 GPUs (it also wants 4 that no node suits), c 6 (and holds them), b 9 and holds 18. On node-1,
        // taking c's one pod alone would make room beside b's; elsewhere two of b's pods must go (b keeps 10). Only b
        // may give back.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(3, GPU, 8)
                .queue("a").end().queue("b").end().queue("c").end()
                .job("c/six").queue("c").pods(1, GPU, 6).running("node-1").end()
                .job("b/w0").queue("b").pods(1, GPU, 2).running("node-1").end()
                .job("b/w1").queue("b").pods(1, GPU, 4).running("node-2").end()
                .job("b/w2").queue("b").pods(1, GPU, 4).running("node-2").end()
                .job("b/w3").queue("b").pods(1, GPU, 4).running("node-3").end()
                .job("b/w4").queue("b").pods(1, GPU, 4).running("node-3").end()
                .job("a/want").queue("a").pods(1, GPU, 6).phase("Inqueue").end()
                .job("a/nowhere").queue("a").pods(1, GPU, 4).nodeSelector("pool", "none").end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertEquals(2, r.evictions().size(), r.evictions().toString());
        for (Eviction e : r.evictions()) assertTrue(e.pod().startsWith("b/"), e.toString());
    }

    @Test
    void aNonReclaimableQueueIsNeverReclaimedFrom() {
        assertTrue(Shipped.cycle(borrowed(false, 2).snapshot()).evictions().isEmpty());
    }

    @Test
    void reclaimNeverTakesAVictimQueueBelowItsDeservedShare() {
        // a would need 3 nodes, but b may only be taken down to its deserved 2 nodes: nothing is evicted at all.
        CycleResult r = Shipped.cycle(borrowed(true, 3).snapshot());
        assertTrue(r.evictions().isEmpty(), "a gang that cannot be completed evicts nothing");
    }

    @Test
    void aQueueThatIsNotOpenReclaimsNothing() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("a").state("Closed").end().queue("b").end()
                .job("b/j").queue("b").pods(2, GPU, 8).minMember(1).running("node-1", "node-2").end()
                .job("a/want").queue("a").pods(1, GPU, 8).phase("Inqueue").end();
        assertTrue(Shipped.cycle(c.snapshot()).evictions().isEmpty());
    }

    @Test
    void victimsComeFirstFromTheQueueServedLast() {
        // b and c each hold two nodes of four; a (weight 2) wants one, and another that no node suits, so a deserves 16
        // and b and c 8 each: either could give a pod and stay at its floor. c has the lower queue priority, so it
        // gives first.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").weight(2).end().queue("b").priority(5).end().queue("c").end()
                .job("b/j").queue("b").pods(2, GPU, 8).minMember(1).running("node-1", "node-2").end()
                .job("c/j").queue("c").pods(2, GPU, 8).minMember(1).running("node-3", "node-4").end()
                .job("a/want").queue("a").pods(1, GPU, 8).end()
                .job("a/nowhere").queue("a").pods(1, GPU, 8).nodeSelector("pool", "none").end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertEquals(1, r.evictions().size());
        assertTrue(r.evictions().get(0).pod().startsWith("c/"), "evicted " + evicted(r));
    }

    @Test
    void idleCapacityIsUsedBeforeAnythingIsEvicted() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/j").queue("b").pods(3, GPU, 8).minMember(1).running("node-1", "node-2", "node-3").end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertTrue(r.evictions().isEmpty());
        assertEquals(1, r.bindings().size());
    }

    @Test
    void aQueueReclaimsOnlyUpToItsDeservedShare() {
        // 48 GPUs, three equal queues: c wants 8, so a and b deserve 20 each. b holds 40. a wants three 8-GPU pods
        // but may only grow to 20: two evictions, not three, although b would still be above its share after three.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(6, GPU, 8)
                .queue("a").end().queue("b").end().queue("c").end()
                .job("b/j").queue("b").pods(5, GPU, 8).minMember(1).running("node-1", "node-2", "node-3", "node-4", "node-5").end()
                .job("c/j").queue("c").pods(1, GPU, 8).running("node-6").end();
        for (int i = 0; i < 3; i++) c.job("a/j" + i).queue("a").pods(1, GPU, 8).end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertEquals(20, Shipped.units(Shipped.queue(r.queues(), "a").deserved(), GPU));
        assertEquals(2, r.evictions().size(), "evicted " + evicted(r));
    }

    @Test
    void aQueueAboveItsShareInOneDimensionIsReclaimedFromAlthoughItsPendingPodLiftsItsOtherShares() {
        // Four 1-GPU nodes. a (weight 3) deserves 3 GPUs and holds 4; its waiting pod asks for CPUs too, which lifts
        // a's deserved CPUs above what it holds, so a does not cover its share in every dimension. It still holds
        // more GPUs than it deserves, and b (deserving 1 GPU) takes one back (Volcano's reclaimable check).
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 1, "cpu", 8)
                .queue("a").weight(3).end().queue("b").weight(1).end();
        for (int i = 1; i <= 4; i++) {
            c.job("a/run" + i).queue("a").pods(1, GPU, 1, "cpu", 1).running("node-" + i).startedAt(0).end();
        }
        c.job("a/wait").queue("a").pods(1, GPU, 1, "cpu", 4).end();
        c.job("b/want").queue("b").pods(1, GPU, 1, "cpu", 1).end();
        CycleResult r = Shipped.cycle(c.snapshot(1000));
        assertEquals(3, Shipped.units(Shipped.queue(r.queues(), "a").deserved(), GPU));
        assertEquals(1, r.evictions().size(), "evicted " + evicted(r));
        assertEquals("b/want", r.evictions().get(0).forPodGroup());
    }

    @Test
    void aGangLargerThanItsQueuesShareSaysItCannotReclaim() {
        CycleResult r = Shipped.cycle(borrowed(true, 3).snapshot());
        Refusal.TooLarge tooLarge = (Refusal.TooLarge) Shipped.attempted(Shipped.why(r, "a/want"), "reclaim");
        assertEquals(24, Shipped.units(tooLarge.needs(), "nvidia.com/gpu"));
        assertEquals(16, Shipped.units(tooLarge.deserves(), "nvidia.com/gpu"));
        assertTrue(tooLarge.holds().isEmpty(), "a holds none");
    }
}
