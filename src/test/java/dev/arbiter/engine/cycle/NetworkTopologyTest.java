package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.scenario.ClusterBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Network topology, one row per tier rule. The fleet: 8 nodes of 8 GPUs; HyperNodes r1..r4 of tier 1 (racks of two
 * nodes: r1 = node-1,2, r2 = node-3,4, r3 = node-5,6, r4 = node-7,8) and b1 (r1, r2), b2 (r3, r4) of tier 2. Each
 * row adds a job "ns/train" and says where its pods must be: the set of domains its nodes lie in (one name when the
 * gang keeps to one domain), or that it waits with a reason.
 */
class NetworkTopologyTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final Map<String, String> RACK = Map.of("node-1", "r1", "node-2", "r1", "node-3", "r2", "node-4", "r2",
            "node-5", "r3", "node-6", "r3", "node-7", "r4", "node-8", "r4");
    private static final Map<String, String> BLOCK = Map.of("r1", "b1", "r2", "b1", "r3", "b2", "r4", "b2");

    private static ClusterBuilder fleet() {
        return ClusterBuilder.cluster().nodes(8, GPU, 8)
                .hyperNode("r1", 1, "node-1", "node-2").hyperNode("r2", 1, "node-3", "node-4")
                .hyperNode("r3", 1, "node-5", "node-6").hyperNode("r4", 1, "node-7", "node-8")
                .hyperNodeOver("b1", 2, "r1", "r2").hyperNodeOver("b2", 2, "r3", "r4");
    }

    private static ClusterBuilder.JobBuilder train(ClusterBuilder c, int pods, NetworkTopology t) {
        return c.job("ns/train").pods(pods, GPU, 8).networkTopology(t);
    }

    /** A cluster where node-3 runs an 8-GPU pod: rack r2 (and block b1) is the fullest. */
    private static ClusterBuilder node3Busy() {
        return fleet().job("ns/busy").pods(1, GPU, 8).running("node-3").end();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a hard gang of tier 1 lands inside one rack",
                        fleet(), (UnaryOperator<ClusterBuilder>) c -> train(c, 2, NetworkTopology.tiers(true, 1)).end(),
                        "racks", Set.of("r1")),
                Arguments.of("a hard gang larger than any rack but allowed tier 2 lands inside one block",
                        fleet(), (UnaryOperator<ClusterBuilder>) c -> train(c, 4, NetworkTopology.tiers(true, 2)).end(),
                        "blocks", Set.of("b1")),
                Arguments.of("best fit takes the fullest rack that holds the gang, not the first",
                        node3Busy(), (UnaryOperator<ClusterBuilder>) c -> train(c, 1, NetworkTopology.tiers(true, 1)).end(),
                        "racks", Set.of("r2")),
                Arguments.of("best fit takes the fullest block when no rack holds the gang",
                        node3Busy(), (UnaryOperator<ClusterBuilder>) c -> train(c, 3, NetworkTopology.tiers(true, 2)).end(),
                        "blocks", Set.of("b1")),
                Arguments.of("a soft gang takes the lowest tier that holds it",
                        fleet(), (UnaryOperator<ClusterBuilder>) c -> train(c, 2, NetworkTopology.tiers(false, 2)).end(),
                        "racks", Set.of("r1")),
                Arguments.of("a soft gang larger than any allowed domain spreads",
                        fleet(), (UnaryOperator<ClusterBuilder>) c -> train(c, 4, NetworkTopology.tiers(false, 1)).end(),
                        "racks", Set.of("r1", "r2")),
                Arguments.of("a Kueue required level keeps the gang within one value of the label",
                        labelled(), (UnaryOperator<ClusterBuilder>) c -> c.job("ns/train").pods(2, GPU, 8)
                                .annotate(NetworkTopology.KUEUE_REQUIRED, "rack").end(),
                        "racks", Set.of("r2")),
                Arguments.of("a gang without a constraint prefers nodes in fuller domains",
                        node3Busy(), (UnaryOperator<ClusterBuilder>) c -> c.job("ns/train").pods(1, GPU, 8).end(),
                        "racks", Set.of("r2")));
    }

    /** Rack labels instead of HyperNodes, node-1 busy: rack r1 has one free node, r2 two. */
    private static ClusterBuilder labelled() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8);
        for (int i = 1; i <= 4; i++) c.label("node-" + i, "rack", RACK.get("node-" + i));
        return c.job("ns/busy").pods(1, GPU, 8).running("node-1").end();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void placesTheGang(String name, ClusterBuilder cluster, UnaryOperator<ClusterBuilder> job, String level,
                       Set<String> expected) {
        CycleResult r = Shipped.cycle(job.apply(cluster).snapshot());
        Set<String> nodes = nodesOf(r, "ns/train-");
        assertTrue(!nodes.isEmpty(), name + ": the gang should start, " + Shipped.group(r.podGroups(), "ns/train"));
        Set<String> domains = new TreeSet<>();
        for (String n : nodes) domains.add(level.equals("racks") ? RACK.get(n) : BLOCK.get(RACK.get(n)));
        assertEquals(expected, domains, name + ": nodes " + nodes);
    }

    @Test
    void aHardGangLargerThanEveryAllowedDomainWaitsNamingTheClosest() {
        CycleResult r = Shipped.cycle(train(node3Busy(), 3, NetworkTopology.tiers(true, 1)).end().snapshot());
        PodGroupStatus g = Shipped.group(r.podGroups(), "ns/train");
        assertEquals(Set.of(), nodesOf(r, "ns/train-"));
        assertTrue(g.reason().startsWith("no domain (hard, tier <= 1) holds the whole gang; closest r1: 16 of 16"
                + " nvidia.com/gpu free, needs 24"), g.reason());
    }

    @Test
    void aHardGangWithoutAnyDomainWaitsAndSaysSo() {
        CycleResult r = Shipped.cycle(train(ClusterBuilder.cluster().nodes(2, GPU, 8), 1, NetworkTopology.tiers(true, 1))
                .end().snapshot());
        assertTrue(Shipped.group(r.podGroups(), "ns/train").reason().contains("the cluster has no network domains"));
    }

    @Test
    void theStatusNamesTheChosenDomain() {
        CycleResult r = Shipped.cycle(train(fleet(), 4, NetworkTopology.tiers(true, 2)).end().snapshot());
        assertEquals("b1", Shipped.group(r.podGroups(), "ns/train").domain());
        CycleResult plain = Shipped.cycle(fleet().job("ns/train").pods(1, GPU, 8).end().snapshot());
        assertNull(Shipped.group(plain.podGroups(), "ns/train").domain());
    }

    @Test
    void aHardGangReclaimsInsideOneRack() {
        // Queue b borrowed all 8 nodes, its jobs started on nodes 1, 3, 5, 7, 2, 4, 6, 8 in that order: the newest
        // (victims first) lie on node-8 and node-6, in two racks. The gang of 2 needs one rack: its 2 victims come
        // from one rack.
        ClusterBuilder c = fleet().queue("a").weight(1).end().queue("b").weight(1).end();
        int[] order = {1, 3, 5, 7, 2, 4, 6, 8};
        for (int i = 0; i < 8; i++) {
            c.job("ns/b" + i).queue("b").pods(1, GPU, 8).running("node-" + order[i]).startedAt(-3600).end();
        }
        c.job("ns/train").queue("a").pods(2, GPU, 8).networkTopology(NetworkTopology.tiers(true, 1)).end();
        CycleResult r = Shipped.scheduler().schedule(c.snapshot(), 1);
        Set<String> racks = new TreeSet<>();
        r.evictions().forEach(e -> racks.add(RACK.get(e.node())));
        assertEquals(2, r.evictions().size(), "evictions " + r.evictions());
        assertEquals(1, racks.size(), "victims in racks " + racks);
        assertEquals(racks.iterator().next(), Shipped.group(r.podGroups(), "ns/train").domain());
    }

    /** A scheduler for the shipped policy overlaid with {@code policyYaml}. */
    private static Scheduler withPolicy(Path dir, String policyYaml) throws IOException {
        Path pack = Files.createDirectories(dir.resolve("pack"));
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("policy.yaml"), policyYaml);
        return new Scheduler(RuleBook.load(pack), SchedulerConfig.simulatorDefault());
    }

    @Test
    void thePolicyMayChooseTheEmptiestDomain(@TempDir Path dir) throws IOException {
        Scheduler s = withPolicy(dir, "topology:\n  choice: spread\n");
        CycleResult r = s.schedule(train(node3Busy(), 1, NetworkTopology.tiers(true, 1)).end().snapshot(), 1);
        Set<String> racks = new TreeSet<>();
        for (String n : nodesOf(r, "ns/train-")) racks.add(RACK.get(n));
        assertEquals(Set.of("r1"), racks);
    }

    /**
     * Eight nodes in four racks dealt round-robin (node-1 r1, node-2 r2, ...), rack labels as the policy's level: four
     * whole-node jobs without a constraint fill two racks whole rather than one node in each of four racks; with
     * {@code preferFullerDomains: false} they take node-1..4, one in each rack.
     */
    @ParameterizedTest(name = "preferFullerDomains {0} fills {1} racks")
    @org.junit.jupiter.params.provider.CsvSource({"true, 2", "false, 4"})
    void gangsWithoutAConstraintFillOneRackBeforeTheNext(boolean prefer, int racks, @TempDir Path dir) throws IOException {
        Scheduler s = withPolicy(dir, "topology:\n  levels: [rack]\n  preferFullerDomains: " + prefer + "\n");
        ClusterBuilder c = ClusterBuilder.cluster().nodes(8, GPU, 8);
        for (int i = 1; i <= 8; i++) c.label("node-" + i, "rack", "r" + ((i - 1) % 4 + 1));
        for (int i = 0; i < 4; i++) c.job("ns/j" + i).pods(1, GPU, 8).end();
        CycleResult r = s.schedule(c.snapshot(), 1);
        Set<String> used = new TreeSet<>();
        for (Binding b : r.bindings()) used.add("r" + ((Integer.parseInt(b.node().substring(5)) - 1) % 4 + 1));
        assertEquals(4, r.bindings().size());
        assertEquals(racks, used.size(), "racks used " + used);
    }

    private static Set<String> nodesOf(CycleResult r, String podPrefix) {
        Set<String> out = new TreeSet<>();
        for (Binding b : r.bindings()) if (b.pod().startsWith(podPrefix)) out.add(b.node());
        return out;
    }
}
