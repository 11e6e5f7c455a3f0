package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Node fitting and scoring (Java mechanism): cordons, nodeSelector, taints, every resource dimension, binpack/spread. */
class NodeFittingTest {
    private static final String GPU = "nvidia.com/gpu";

    private static Set<String> nodesUsed(CycleResult r) {
        Set<String> out = new TreeSet<>();
        r.bindings().forEach(b -> out.add(b.node()));
        return out;
    }

    @Test
    void aCordonedNodeGetsNothing() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8).cordon("node-1")
                .barePods("ns/p").pods(1, GPU, 1).end().snapshot());
        assertEquals(Set.of("node-2"), nodesUsed(r));
    }

    @Test
    void aNodeSelectorPicksLabelledNodes() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8).label("node-3", "pool", "a100")
                .barePods("ns/p").nodeSelector("pool", "a100").pods(1, GPU, 1).end().snapshot());
        assertEquals(Set.of("node-3"), nodesUsed(r));
    }

    @Test
    void aTaintKeepsOutPodsThatDoNotTolerateIt() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8).taint("node-1", "gpu", "true", "NoSchedule")
                .barePods("ns/p").pods(1, GPU, 1).end().snapshot());
        assertTrue(r.bindings().isEmpty());
        assertTrue(Shipped.group(r.podGroups(), "ns/podgroup-p-0").reason().contains("0/1 nodes are available: 1 node(s) had untolerated taint {gpu: true}"),
                Shipped.group(r.podGroups(), "ns/podgroup-p-0").reason());
    }

    @Test
    void aTolerationLetsThePodIn() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8).taint("node-1", "gpu", "true", "NoSchedule")
                .barePods("ns/p").tolerate("gpu", "true", "NoSchedule").pods(1, GPU, 1).end().snapshot());
        assertEquals(1, r.bindings().size());
    }

    @Test
    void aPreferNoScheduleTaintDoesNotBlock() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8).taint("node-1", "spot", "", "PreferNoSchedule")
                .barePods("ns/p").pods(1, GPU, 1).end().snapshot());
        assertEquals(1, r.bindings().size());
    }

    @Test
    void everyDimensionMustFitIncludingPodSlotsAndExoticResources() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().node("node-1", GPU, 8, "rdma/hca_cpta", 1, "pods", 2)
                .barePods("ns/p").pods(3, "rdma/hca_cpta", "500m").end().snapshot());
        assertEquals(2, r.bindings().size(), "two fit by rdma and by pod slots; the third has neither");
    }

    @Test
    void binpackFillsOneNodeBeforeTheNext() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .barePods("ns/p").pods(2, GPU, 4).end().snapshot());
        assertEquals(1, nodesUsed(r).size());
    }

    @Test
    void spreadUsesTheEmptiestNode() {
        Scheduler spread = new Scheduler(Shipped.RULES, new SchedulerConfig(Set.of("volcano"), dev.arbiter.policy.ScoringMode.SPREAD));
        CycleResult r = spread.schedule(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .barePods("ns/p").pods(2, GPU, 4).end().snapshot(), 1);
        assertEquals(2, nodesUsed(r).size());
    }

    @Test
    void podsOfOtherSchedulersAreNotScheduledButTheirBoundPodsUseCapacity() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .barePods("ns/theirs").schedulerName("default-scheduler").pods(1, GPU, 6).running("node-1").end()
                .barePods("ns/pending-theirs").schedulerName("default-scheduler").pods(1, GPU, 1).end()
                .barePods("ns/ours").pods(1, GPU, 4).end().snapshot());
        assertTrue(r.bindings().isEmpty(), "ours needs 4, only 2 left; theirs is not ours to schedule");
    }
}
