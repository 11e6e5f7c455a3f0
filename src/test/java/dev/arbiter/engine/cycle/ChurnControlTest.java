package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** churn.drl: minimum runtime before reclaim, eviction budgets, and no ping-pong between queues. */
class ChurnControlTest {
    private static final String GPU = "nvidia.com/gpu";

    /** b's two pods on two nodes started at {@code oldStart} and {@code youngStart}; a wants one node. */
    private static CycleResult reclaimAt(long now, long oldStart, long youngStart) {
        return Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/old").queue("b").pods(1, GPU, 8).running("node-1").startedAt(oldStart).end()
                .job("b/young").queue("b").pods(1, GPU, 8).running("node-2").startedAt(youngStart).end()
                .job("a/new").queue("a").pods(1, GPU, 8).end()
                .snapshot(now));
    }

    @Test
    void aYoungPodIsSparedAndAnOldOneReclaimedInstead() {
        CycleResult r = reclaimAt(1000, 0, 990);
        assertEquals(Set.of("b/old-0"), evicted(r), "the newest would go first, but it has run only 10 s");
    }

    @Test
    void aCycleThatPlacesEveryWaitingPodAsksForNoWakeUp() {
        // A young pod is spared, but no job waits for it: the one that came is placed on the free node.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/young").queue("b").pods(1, GPU, 8).running("node-1").startedAt(990).end()
                .job("a/new").queue("a").pods(1, GPU, 8).end()
                .snapshot(1000));
        assertEquals(1, r.bindings().size());
        assertEquals(-1, r.wakeAt(), "nothing waits once a/new is placed");
        CycleResult waits = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/young").queue("b").pods(1, GPU, 8).running("node-1").startedAt(990).end()
                .job("a/new").queue("a").pods(1, GPU, 8).end()
                .snapshot(1000));
        assertTrue(waits.wakeAt() > 1000, "a/new waits for the young pod: wake when it may be reclaimed");
    }

    @Test
    void whenEveryVictimIsYoungNothingIsReclaimed() {
        CycleResult r = reclaimAt(1000, 980, 990);
        assertTrue(r.evictions().isEmpty());
    }

    @Test
    void oldEnoughPodsAreReclaimedNewestFirst() {
        CycleResult r = reclaimAt(1000, 0, 500);
        assertEquals(Set.of("b/young-0"), evicted(r));
    }

    @Test
    void preemptionByAHigherPriorityClassMayStillTakeAYoungPod() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .job("ns/young").priorityClass("low").pods(1, GPU, 8).running("node-1").startedAt(995).end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 8).end().snapshot(1000));
        assertEquals(Set.of("ns/young-0"), evicted(r));
    }

    @Test
    void thePerQueueEvictionBudgetCapsACycle() {
        // b holds all 60 nodes with single-node jobs; a deserves half and wants 30 nodes: the budget allows 20.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(60, GPU, 8).queue("a").end().queue("b").end();
        for (int i = 1; i <= 60; i++) c.job("b/j" + i).queue("b").pods(1, GPU, 8).running("node-" + i).end();
        for (int i = 1; i <= 30; i++) c.job("a/j" + i).queue("a").pods(1, GPU, 8).end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertEquals(20, r.evictions().size());
    }

    /**
     * Two equal queues take turns submitting waves of 8-GPU pods on a 4-node cluster; cycles last 30 s, so pods pass
     * the minimum runtime within two cycles. Over 50 cycles, each queue reclaims only what it is owed, nothing is
     * evicted back and forth, and the cluster settles at 16/16.
     */
    @Test
    void twoEqualQueuesWithAlternatingDemandSettleWithoutPingPong() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a").end().queue("b").end();
        int wave = 0;
        for (int cycle = 0; cycle < 50; cycle += 10) {
            String q = wave++ % 2 == 0 ? "a" : "b";
            for (int i = 0; i < 4; i++) c.job(q + "/w" + cycle + "-" + i).queue(q).arrival(cycle).pods(1, GPU, 8).end();
        }
        SimulationResult r = new Simulator(Shipped.scheduler()).run(c.manifests(), 50, 30);
        List<String> directions = new ArrayList<>();
        for (var cycle : r.cycles()) {
            for (Eviction e : cycle.evictions()) {
                String to = e.forPodGroup().substring(0, 1);
                String from = e.pod().substring(0, 1);
                String step = from + "->" + to;
                if (directions.isEmpty() || !directions.get(directions.size() - 1).equals(step)) directions.add(step);
            }
        }
        assertTrue(directions.size() <= 1, "reclaim went one way only, got " + directions);
        var last = r.cycles().get(r.cycles().size() - 1);
        assertTrue(last.evictions().isEmpty());
        assertEquals(16, Shipped.units(Shipped.queue(last.queues(), "a").allocated(), GPU));
        assertEquals(16, Shipped.units(Shipped.queue(last.queues(), "b").allocated(), GPU));
    }
}
