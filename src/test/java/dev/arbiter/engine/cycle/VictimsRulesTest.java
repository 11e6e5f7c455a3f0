package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * victims.drl and the victim search: gang-safe (surplus members first, whole gangs rather than broken ones), minimal
 * (fewest victims, idle capacity first), and in policy order (lowest priority, leaders last, newest first).
 */
class VictimsRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    private static ClusterBuilder classes(int nodes, int gpusPerNode) {
        return ClusterBuilder.cluster().nodes(nodes, GPU, gpusPerNode).priorityClass("low", 10).priorityClass("high", 1000);
    }

    @Test
    void aVictimGangThatWouldBreakIsEvictedWhole() {
        CycleResult r = Shipped.cycle(classes(4, 8)
                .job("ns/gang").priorityClass("low").pods(4, GPU, 8).minMember(4)
                .running("node-1", "node-2", "node-3", "node-4").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("ns/gang-0", "ns/gang-1", "ns/gang-2", "ns/gang-3"), evicted(r),
                "never leave a broken gang holding GPUs");
    }

    @Test
    void aSingleVictimIsPreferredToBreakingAGang() {
        CycleResult r = Shipped.cycle(classes(4, 8)
                .job("ns/gang").priorityClass("low").pods(3, GPU, 8).minMember(3).running("node-1", "node-2", "node-3").end()
                .job("ns/single").priorityClass("low").pods(1, GPU, 8).running("node-4").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("ns/single-0"), evicted(r));
    }

    @Test
    void surplusMembersAboveMinMemberGoFirst() {
        CycleResult r = Shipped.cycle(classes(4, 8)
                .job("ns/elastic").priorityClass("low").pods(4, GPU, 8).minMember(2)
                .running("node-1", "node-2", "node-3", "node-4").end()
                .job("ns/urgent").priorityClass("high").pods(2, GPU, 8).end().snapshot());
        assertEquals(2, r.evictions().size(), "two surplus members, the gang keeps its minimum of two");
    }

    @Test
    void theFewestVictimsThatMakeRoomAreChosen() {
        // One node with four 2-GPU pods; the preemptor needs 4 GPUs: two victims suffice.
        CycleResult r = Shipped.cycle(classes(1, 8)
                .barePods("ns/small").priorityClass("low").pods(4, GPU, 2).running("node-1", "node-1", "node-1", "node-1").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 4).end().snapshot());
        assertEquals(2, r.evictions().size());
    }

    @Test
    void idleCapacityOnTheNodeCountsBeforeVictims() {
        CycleResult r = Shipped.cycle(classes(1, 8)
                .barePods("ns/small").priorityClass("low").pods(3, GPU, 2).running("node-1", "node-1", "node-1").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 4).end().snapshot());
        assertEquals(1, r.evictions().size(), "2 GPUs are idle, one 2-GPU victim completes the 4");
    }

    @Test
    void theNewestEqualVictimGoesFirst() {
        CycleResult r = Shipped.cycle(classes(2, 8)
                .job("ns/older").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("ns/newer").priorityClass("low").pods(1, GPU, 8).running("node-2").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("ns/newer-0"), evicted(r));
    }

    @Test
    void theLowestPriorityVictimGoesFirst() {
        CycleResult r = Shipped.cycle(classes(2, 8).priorityClass("lowest", 1)
                .job("ns/low").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("ns/lowest").priorityClass("lowest").pods(1, GPU, 8).running("node-2").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("ns/lowest-0"), evicted(r), "even though it is older");
    }

    @Test
    void theMasterIsEvictedLast() {
        CycleResult r = Shipped.cycle(classes(3, 8)
                .job("ns/pt").priorityClass("low").pods("master", 1, GPU, 8).pods("worker", 2, GPU, 8).minMember(1)
                .running("node-1", "node-2", "node-3").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(1, r.evictions().size());
        assertTrue(!r.evictions().get(0).pod().equals("ns/pt-0"), "a worker goes, not the master");
    }

    @Test
    void whenNoSetOfVictimsSufficesNothingIsEvicted() {
        // The preemptor needs 16 GPUs on one node; nodes have 8.
        CycleResult r = Shipped.cycle(classes(4, 8)
                .job("ns/low").priorityClass("low").pods(4, GPU, 8).minMember(1)
                .running("node-1", "node-2", "node-3", "node-4").end()
                .job("ns/urgent").priorityClass("high").pods(1, GPU, 16).end().snapshot());
        assertTrue(r.evictions().isEmpty());
    }
}
