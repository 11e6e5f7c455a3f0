package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Placements.GPU;
import static dev.arbiter.engine.cycle.Placements.expr;
import static dev.arbiter.engine.cycle.Placements.field;
import static dev.arbiter.engine.cycle.Placements.nodesUsed;
import static dev.arbiter.engine.cycle.Placements.preferNodes;
import static dev.arbiter.engine.cycle.Placements.requireNodes;
import static dev.arbiter.engine.cycle.Placements.term;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.NodeAffinity;
import dev.arbiter.model.Placement.WeightedNodeTerm;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Node affinity with kube-scheduler's semantics, one row per operator and rule, positive and negative. The cluster:
 * node-1 {gpu: h100, gen: 5, zone: a}, node-2 {gpu: a100, gen: 4, zone: a}, node-3 {gpu: h200, gen: 6, zone: b},
 * node-4 without labels; 8 GPUs each. Four pods of 8 GPUs each with the affinity under test go one to a node: the
 * nodes used are exactly the nodes the affinity admits.
 */
class NodeAffinityTest {
    private static ClusterBuilder cluster() {
        return ClusterBuilder.cluster().nodes(4, GPU, 8)
                .labels("node-1", "gpu", "h100", "gen", "5", "zone", "a")
                .labels("node-2", "gpu", "a100", "gen", "4", "zone", "a")
                .labels("node-3", "gpu", "h200", "gen", "6", "zone", "b");
    }

    private static CycleResult fourWholeNodePods(Placement p) {
        return Shipped.cycle(cluster().barePods("ns/p").placement(p).pods(4, GPU, 8).end().snapshot());
    }

    static Stream<Arguments> required() {
        return Stream.of(
                Arguments.of("In admits nodes with one of the values", requireNodes(term(expr("gpu", "In", "h100", "h200"))),
                        Set.of("node-1", "node-3")),
                Arguments.of("In admits no node without the label", requireNodes(term(expr("gpu", "In", "b200"))), Set.of()),
                Arguments.of("NotIn admits the other values and nodes without the label",
                        requireNodes(term(expr("gpu", "NotIn", "a100"))), Set.of("node-1", "node-3", "node-4")),
                Arguments.of("NotIn refuses every listed value", requireNodes(term(expr("gpu", "NotIn", "h100", "a100", "h200"))),
                        Set.of("node-4")),
                Arguments.of("Exists admits nodes with the label", requireNodes(term(expr("gen", "Exists"))),
                        Set.of("node-1", "node-2", "node-3")),
                Arguments.of("Exists refuses a label no node has", requireNodes(term(expr("rack", "Exists"))), Set.of()),
                Arguments.of("DoesNotExist admits nodes without the label", requireNodes(term(expr("gpu", "DoesNotExist"))),
                        Set.of("node-4")),
                Arguments.of("DoesNotExist refuses nodes with the label", requireNodes(term(expr("zone", "DoesNotExist"))),
                        Set.of("node-4")),
                Arguments.of("Gt compares the label as an integer", requireNodes(term(expr("gen", "Gt", "4"))),
                        Set.of("node-1", "node-3")),
                Arguments.of("Gt is strict", requireNodes(term(expr("gen", "Gt", "6"))), Set.of()),
                Arguments.of("Lt compares the label as an integer", requireNodes(term(expr("gen", "Lt", "6"))),
                        Set.of("node-1", "node-2")),
                Arguments.of("Gt on a label that is not an integer admits no node", requireNodes(term(expr("gpu", "Gt", "1"))),
                        Set.of()),
                Arguments.of("expressions within a term are ANDed",
                        requireNodes(term(expr("zone", "In", "a"), expr("gen", "Gt", "4"))), Set.of("node-1")),
                Arguments.of("terms are ORed", requireNodes(term(expr("gpu", "In", "h200")), term(expr("gpu", "In", "a100"))),
                        Set.of("node-2", "node-3")),
                Arguments.of("matchFields In names the node", requireNodes(new Placement.NodeSelectorTerm(List.of(),
                        List.of(field("In", "node-2")))), Set.of("node-2")),
                Arguments.of("matchFields NotIn excludes the node", requireNodes(new Placement.NodeSelectorTerm(List.of(),
                        List.of(field("NotIn", "node-2")))), Set.of("node-1", "node-3", "node-4")),
                Arguments.of("labels and fields in one term are ANDed", requireNodes(new Placement.NodeSelectorTerm(
                        List.of(expr("zone", "In", "a")), List.of(field("NotIn", "node-1")))), Set.of("node-2")),
                Arguments.of("an empty term admits no node", requireNodes(new Placement.NodeSelectorTerm(List.of(), List.of())),
                        Set.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("required")
    void requiredNodeAffinity(String name, Placement placement, Set<String> admitted) {
        CycleResult r = fourWholeNodePods(placement);
        assertEquals(admitted, nodesUsed(r));
        if (admitted.size() < 4) {
            String reason = Shipped.group(r.podGroups(), "ns/podgroup-p-3").reason();
            assertTrue(reason.contains("0/4 nodes are available: ") && reason.contains(
                    (4 - admitted.size()) + " node(s) didn't match Pod's node affinity/selector"), reason);
        }
    }

    @Test
    void nodeSelectorAndNodeAffinityMustBothHold() {
        CycleResult r = Shipped.cycle(cluster().barePods("ns/p").nodeSelector("zone", "a")
                .placement(requireNodes(term(expr("gen", "Gt", "4")))).pods(4, GPU, 8).end().snapshot());
        assertEquals(Set.of("node-1"), nodesUsed(r));
    }

    @Test
    void theNoFitReasonCountsEachNodeUnderTheFirstFilterItFails() {
        CycleResult r = Shipped.cycle(cluster().cordon("node-4")
                .barePods("ns/busy").pods(1, GPU, 8).running("node-1").end()
                .barePods("ns/p").placement(requireNodes(term(expr("gpu", "In", "h100")))).pods(1, GPU, 8).end().snapshot());
        assertEquals(new Refusal.NoNodeFits(4, java.util.Map.of("Insufficient nvidia.com/gpu", 1,
                        "node(s) were unschedulable", 1, "node(s) didn't match Pod's node affinity/selector", 2)),
                Shipped.part(Shipped.why(r, "ns/podgroup-p-0"), Refusal.NoNodeFits.class));
        assertEquals("gang of 1 needs 1 tasks, 0 placeable: 0/4 nodes are available: 1 Insufficient nvidia.com/gpu,"
                        + " 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector",
                Shipped.group(r.podGroups(), "ns/podgroup-p-0").reason().split(";")[0], "in kube-scheduler's words");
    }

    static Stream<Arguments> preferred() {
        return Stream.of(
                Arguments.of("without a preference, binpack takes the first node", Placement.NONE, "node-1"),
                Arguments.of("a preference takes the node matching it", preferNodes(10, term(expr("gpu", "In", "h200"))), "node-3"),
                Arguments.of("a preference no node matches changes nothing", preferNodes(10, term(expr("gpu", "In", "b200"))),
                        "node-1"),
                Arguments.of("weights add up over the terms a node matches", Placement.NONE.withNodeAffinity(new NodeAffinity(null,
                        List.of(new WeightedNodeTerm(4, term(expr("zone", "In", "a"))),
                                new WeightedNodeTerm(3, term(expr("gpu", "In", "h200"))),
                                new WeightedNodeTerm(2, term(expr("gen", "Gt", "5")))))), "node-3"),
                Arguments.of("the heavier term wins", Placement.NONE.withNodeAffinity(new NodeAffinity(null,
                        List.of(new WeightedNodeTerm(6, term(expr("zone", "In", "a"))),
                                new WeightedNodeTerm(3, term(expr("gpu", "In", "h200"))),
                                new WeightedNodeTerm(2, term(expr("gen", "Gt", "5")))))), "node-1"),
                Arguments.of("preferences rank before packing: the emptier preferred node beats the fuller one",
                        preferNodes(1, term(expr("gpu", "In", "a100"))), "node-2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("preferred")
    void preferredNodeAffinity(String name, Placement placement, String chosen) {
        // node-1 is half full: binpack alone would put the 4-GPU pod there.
        CycleResult r = Shipped.cycle(cluster().barePods("ns/busy").pods(1, GPU, 4).running("node-1").end()
                .barePods("ns/p").placement(placement).pods(1, GPU, 4).end().snapshot());
        assertEquals(chosen, Placements.placements(r).get("ns/p-0"));
    }

    @Test
    void aPreferredNodeWithoutRoomYieldsToTheNextBest() {
        CycleResult r = Shipped.cycle(cluster().barePods("ns/busy").pods(1, GPU, 8).running("node-3").end()
                .barePods("ns/p").placement(preferNodes(10, term(expr("gpu", "In", "h200")))).pods(1, GPU, 4).end().snapshot());
        assertEquals("node-1", Placements.placements(r).get("ns/p-0"));
    }

    @Test
    void aNoExecuteTaintKeepsOutPodsAsNoScheduleDoes() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8).taint("node-1", "maintenance", "", "NoExecute")
                .barePods("ns/p").pods(2, GPU, 8).end().snapshot());
        assertEquals(Set.of("node-2"), nodesUsed(r));
        assertTrue(Shipped.group(r.podGroups(), "ns/podgroup-p-1").reason()
                .contains("1 node(s) had untolerated taint {maintenance: }"), Shipped.group(r.podGroups(), "ns/podgroup-p-1").reason());
    }

    @Test
    void aPodToleratingNoExecuteMayGoThere() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8).taint("node-1", "maintenance", "", "NoExecute")
                .barePods("ns/p").tolerate("maintenance", null, "NoExecute").pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("node-1"), nodesUsed(r));
    }

    @Test
    void aPodToleratingTheUnschedulableTaintMayGoToACordonedNode() {
        // node-2 is full, so node-1 (cordoned) is the only node with room; a cordoned node's GPUs do not count towards
        // the cluster's size, node-2's admit the pods.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8).cordon("node-1")
                .barePods("kube-system/other-scheduler").schedulerName("default-scheduler").pods(1, GPU, 8).running("node-2").end()
                .barePods("ns/daemon").tolerate("node.kubernetes.io/unschedulable", null, "NoSchedule").pods(1, GPU, 1).end()
                .barePods("ns/other").pods(1, GPU, 1).end().snapshot());
        assertEquals(Set.of("ns/daemon-0"), Shipped.bound(r));
    }
}
