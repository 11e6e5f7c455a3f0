package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Shipped.bound;
import static dev.arbiter.engine.cycle.Shipped.group;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Guarantees (reclaim.drl floors) and dequeue strategies (order.drl). */
class GuaranteeAndDequeueTest {
    private static final String GPU = "nvidia.com/gpu";

    /** g runs on two of four nodes; h (weight 3) wants three of them together (its gang needs three to start). */
    private static ClusterBuilder guaranteed(boolean withGuarantee) {
        ClusterBuilder.QueueBuilder g = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("g").weight(1);
        if (withGuarantee) g.guarantee(GPU, 16);
        return g.end().queue("h").weight(3).end()
                .job("g/run").queue("g").pods(2, GPU, 8).minMember(1).running("node-1", "node-2").end()
                .job("h/want").queue("h").pods(4, GPU, 8).minMember(3).end();
    }

    @Test
    void withoutAGuaranteeTheHeavierQueueReclaims() {
        CycleResult r = Shipped.cycle(guaranteed(false).snapshot());
        assertEquals(1, r.evictions().size(), "g deserves 8 of 32 and holds 16: one node goes back");
    }

    @Test
    void aGuaranteeIsNeverReclaimed() {
        CycleResult r = Shipped.cycle(guaranteed(true).snapshot());
        assertTrue(r.evictions().isEmpty(), "g holds exactly its guarantee of 16");
        assertTrue(Shipped.units(Shipped.queue(r.queues(), "g").deserved(), GPU) >= 16);
    }

    /**
     * A head job of two pods that may only run on nodes labelled pool=a (one of the two is busy), and a small job
     * behind it that may run anywhere. Both are admitted; the head cannot start.
     */
    private static ClusterBuilder headBlocked(String strategy) {
        return ClusterBuilder.cluster().nodes(3, GPU, 8).label("node-1", "pool", "a").label("node-2", "pool", "a")
                .queue("q").dequeue(strategy).end().queue("other").end()
                .job("ns/busy").queue("other").pods(1, GPU, 8).running("node-1").end()
                .job("ns/head").queue("q").nodeSelector("pool", "a").pods(2, GPU, 8).end()
                .job("ns/small").queue("q").pods(1, GPU, 8).end();
    }

    @Test
    void traverseSkipsAJobThatCannotStart() {
        CycleResult r = Shipped.cycle(headBlocked("traverse").snapshot());
        assertEquals(Set.of("ns/small-0"), bound(r));
    }

    @Test
    void fifoMakesTheHeadJobBlockTheQueue() {
        CycleResult r = Shipped.cycle(headBlocked("fifo").snapshot());
        assertTrue(bound(r).isEmpty());
        assertEquals(new Refusal.BehindHead("q", "ns/head"), Shipped.why(r, "ns/small"));
    }

    @Test
    void guaranteesLargerThanTheClusterAreScaledDownToFitAndSaySo() {
        // 64 GPUs guaranteed on a 32-GPU cluster: kept as written, g would hold everything and h nothing. Scaled by
        // half, g is guaranteed 16 of them and h 8 (its 16 halved), and the shares still add up to the cluster.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("g").guarantee(GPU, 48).end().queue("h").guarantee(GPU, 16).end()
                .job("g/w").queue("g").pods(32, GPU, 1).minMember(1).phase("Inqueue").end()
                .job("h/w").queue("h").pods(32, GPU, 1).minMember(1).phase("Inqueue").end().snapshot());
        long g = Shipped.queue(r.queues(), "g").deserved().milli(GPU);
        long h = Shipped.queue(r.queues(), "h").deserved().milli(GPU);
        assertEquals(24_000, g);
        assertEquals(8_000, h);
        assertTrue(Shipped.queue(r.queues(), "g").reason().contains("scaled down"), Shipped.queue(r.queues(), "g").reason());
        assertEquals(32, r.bindings().size());
    }
}
