package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Placements.GPU;
import static dev.arbiter.engine.cycle.Placements.HOST;
import static dev.arbiter.engine.cycle.Placements.expr;
import static dev.arbiter.engine.cycle.Placements.labels;
import static dev.arbiter.engine.cycle.Placements.requireNodes;
import static dev.arbiter.engine.cycle.Placements.spreading;
import static dev.arbiter.engine.cycle.Placements.term;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Topology spread constraints with kube-scheduler's semantics: maxSkew, DoNotSchedule and ScheduleAnyway, minDomains,
 * the nodeAffinityPolicy and nodeTaintsPolicy defaults, a node missing the key. Each case schedules one-GPU pods
 * labelled {@code app=s} (unless it says otherwise) on 8-GPU nodes, so binpack alone would put them all on node-1, and
 * checks how many landed per node or zone.
 */
class TopologySpreadTest {
    private static final LabelSelector S = labels("app", "s");

    private static SpreadConstraint constraint(int maxSkew, String key, boolean doNotSchedule, int minDomains,
                                               boolean honorAffinity, boolean honorTaints) {
        return new SpreadConstraint(maxSkew, key, doNotSchedule, S, minDomains, honorAffinity, honorTaints);
    }

    /** Pods bound per node, or per value of {@code key} over {@code c}'s nodes. */
    private static Map<String, Integer> perDomain(CycleResult r, ClusterBuilder c, String key) {
        Map<String, String> domainOf = new TreeMap<>();
        c.snapshot().nodes().forEach(n -> domainOf.put(n.name(), n.labels().getOrDefault(key, "-")));
        Map<String, Integer> out = new TreeMap<>();
        for (Binding b : r.bindings()) out.merge(domainOf.get(b.node()), 1, Integer::sum);
        return out;
    }

    private static ClusterBuilder zones(String... zoneOfNode) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(zoneOfNode.length, GPU, 8);
        for (int i = 0; i < zoneOfNode.length; i++) if (!zoneOfNode[i].isEmpty()) c.label("node-" + (i + 1), "zone", zoneOfNode[i]);
        return c;
    }

    private static CycleResult run(ClusterBuilder c, int pods, Placement p) {
        return Shipped.cycle(c.job("ns/s").label("app", "s").minMember(1).placement(p).pods(pods, GPU, 1).end().snapshot());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("maxSkew 1 per hostname fills every node once before any twice", zones("a", "a", "b", "b"), 8, HOST,
                        spreading(constraint(1, HOST, true, 1, true, false)),
                        Map.of("node-1", 2, "node-2", 2, "node-3", 2, "node-4", 2)),
                Arguments.of("maxSkew 2 lets a node run two ahead of the emptiest", zones("a", "a", "b", "b"), 3, HOST,
                        spreading(constraint(2, HOST, true, 1, true, false)), Map.of("node-1", 2, "node-2", 1)),
                Arguments.of("per zone the zones stay within maxSkew, however many nodes they have", zones("a", "a", "b", "c"), 6,
                        "zone", spreading(constraint(1, "zone", true, 1, true, false)), Map.of("a", 2, "b", 2, "c", 2)),
                Arguments.of("ScheduleAnyway never refuses, it prefers the domain with fewer matching pods", zones("a", "b"), 3,
                        "zone", spreading(constraint(1, "zone", false, 1, true, false)), Map.of("a", 2, "b", 1)),
                Arguments.of("minDomains above the domains counts the minimum as zero: one pod per zone", zones("a", "b"), 4,
                        "zone", spreading(constraint(1, "zone", true, 3, true, false)), Map.of("a", 1, "b", 1)),
                Arguments.of("minDomains met leaves the minimum as counted", zones("a", "b"), 4, "zone",
                        spreading(constraint(1, "zone", true, 2, true, false)), Map.of("a", 2, "b", 2)),
                Arguments.of("a node without the topology key is refused", zones("a", "b", ""), 3, "zone",
                        spreading(constraint(1, "zone", true, 1, true, false)), Map.of("a", 2, "b", 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void spread(String name, ClusterBuilder c, int pods, String key, Placement p, Map<String, Integer> expected) {
        assertEquals(expected, perDomain(run(c, pods, p), c, key));
    }

    @Test
    void thePodIsRefusedWithKubeSchedulersWords() {
        ClusterBuilder c = zones("a", "b", "");
        CycleResult r = Shipped.cycle(c.job("ns/s").label("app", "s").placement(spreading(constraint(1, "zone", true, 3, true,
                false))).pods(3, GPU, 1).end().snapshot());
        String reason = Shipped.group(r.podGroups(), "ns/s").reason();
        assertTrue(reason.contains("0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing"
                + " required label), 2 node(s) didn't match pod topology spread constraints"), reason);
    }

    @Test
    void withNodeAffinityPolicyHonorOnlyTheNodesThePodMayUseCount() {
        // node-3 (zone c) is an a100 node the pods may not use: with Honor its empty zone does not hold the minimum at 0.
        java.util.function.Supplier<ClusterBuilder> cluster = () -> zones("a", "b", "c").label("node-1", "gpu", "h100")
                .label("node-2", "gpu", "h100").label("node-3", "gpu", "a100");
        ClusterBuilder c = cluster.get();
        Placement honor = spreading(constraint(1, "zone", true, 1, true, false))
                .withNodeAffinity(requireNodes(term(expr("gpu", "In", "h100"))).nodeAffinity());
        assertEquals(Map.of("a", 2, "b", 2), perDomain(run(c, 4, honor), c, "zone"));
        Placement ignore = spreading(constraint(1, "zone", true, 1, false, false))
                .withNodeAffinity(requireNodes(term(expr("gpu", "In", "h100"))).nodeAffinity());
        ClusterBuilder c2 = cluster.get();
        assertEquals(Map.of("a", 1, "b", 1), perDomain(run(c2, 4, ignore), c2, "zone"));
    }

    @Test
    void withNodeTaintsPolicyIgnoreATaintedNodesEmptyZoneHoldsTheMinimumAtZero() {
        ClusterBuilder c = zones("a", "b", "c").taint("node-3", "dedicated", "x", "NoSchedule");
        assertEquals(Map.of("a", 1, "b", 1), perDomain(run(c, 4, spreading(constraint(1, "zone", true, 1, true, false))), c, "zone"));
        ClusterBuilder c2 = zones("a", "b", "c").taint("node-3", "dedicated", "x", "NoSchedule");
        assertEquals(Map.of("a", 2, "b", 2), perDomain(run(c2, 4, spreading(constraint(1, "zone", true, 1, true, true))), c2, "zone"));
    }

    @Test
    void aPodThatDoesNotMatchItsOwnSelectorDoesNotCountItself() {
        ClusterBuilder c = zones("a", "b").barePods("ns/others").label("app", "s").pods(2, GPU, 1).running("node-1", "node-1").end();
        // The new pods are labelled app=t: they spread app=s pods, of which node-1 holds two and node-2 none.
        CycleResult r = Shipped.cycle(c.job("ns/t").label("app", "t").minMember(1)
                .placement(spreading(constraint(1, "zone", true, 1, true, false))).pods(3, GPU, 1).end().snapshot());
        assertEquals(Map.of("b", 3), perDomain(r, c, "zone"), "zone a is 2 ahead; they add nothing to zone b's count");
    }

    @Test
    void onlyPodsOfTheSameNamespaceCount() {
        ClusterBuilder c = zones("a", "b").barePods("other/s").label("app", "s").pods(2, GPU, 1).running("node-1", "node-1").end();
        CycleResult r = run(c, 2, spreading(constraint(1, "zone", true, 1, true, false)));
        assertEquals(Map.of("a", 1, "b", 1), perDomain(r, c, "zone"));
    }

    @Test
    void scheduleAnywayPrefersTheDomainWithFewerMatchingPodsOverPacking() {
        ClusterBuilder c = zones("a", "b").barePods("ns/old").label("app", "s").pods(1, GPU, 4).running("node-1").end();
        CycleResult r = run(c, 1, spreading(constraint(1, "zone", false, 1, true, false)));
        assertEquals(Map.of("b", 1), perDomain(r, c, "zone"), "binpack alone would take node-1");
    }

    @Test
    void aSelectorThatMatchesNothingCountsNothing() {
        SpreadConstraint none = new SpreadConstraint(1, HOST, true, null, 1, true, false);
        CycleResult r = run(zones("a", "b"), 3, Placement.NONE.withSpread(List.of(none)));
        assertEquals(3, r.bindings().size());
        assertEquals(1, Placements.nodesUsed(r).size(), "nothing to spread: binpack decides");
    }
}
