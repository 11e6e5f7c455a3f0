package dev.arbiter.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The synthetic cluster generator: reproducible, realistic shapes, valid placements, YAML that loads back equal. */
class ClusterGeneratorTest {
    private static final SynthSpec FLEET = SynthSpec.fleet(400, 3_000, 20, 7);

    @Test
    void theSameSeedGivesTheSameClusterAndAnotherSeedAnother() {
        Manifests a = ClusterGenerator.generate(FLEET);
        assertEquals(a, ClusterGenerator.generate(FLEET));
        assertNotEquals(a, ClusterGenerator.generate(SynthSpec.fleet(400, 3_000, 20, 8)));
    }

    @Test
    void theYamlLoadsBackIntoEqualManifests() {
        Manifests m = ClusterGenerator.generate(SynthSpec.fleet(60, 400, 6, 3));
        Manifests loaded = ManifestLoader.parse(ManifestYamlWriter.toYaml(m), "generated.yaml");
        assertEquals(m.priorityClasses(), loaded.priorityClasses());
        assertEquals(m.queues(), loaded.queues());
        assertEquals(m.nodes(), loaded.nodes());
        assertEquals(m.podGroups(), loaded.podGroups());
        assertEquals(m.pods(), loaded.pods());
        assertTrue(loaded.notices().isEmpty(), loaded.notices().toString());
    }

    @Test
    void theYamlOfAClusterWithEveryKindOfConstraintLoadsBackEqual() {
        Manifests m = ClusterGenerator.generate(VARIED);
        Manifests loaded = ManifestLoader.parse(ManifestYamlWriter.toYaml(m), "generated.yaml");
        assertEquals(m.nodes(), loaded.nodes());
        assertEquals(m.pods(), loaded.pods());
        assertTrue(loaded.notices().isEmpty(), loaded.notices().toString());
    }

    private static final SynthSpec VARIED = SynthSpec.fleet(300, 3_000, 10, 5).withConstraints(SynthSpec.Constraints.VARIED);

    @Test
    void theVariedMixHasEveryKindOfConstraint() {
        Manifests m = ClusterGenerator.generate(VARIED);
        List<dev.arbiter.model.Placement> ps = m.pods().stream().map(PodSpec::placement).toList();
        assertTrue(ps.stream().anyMatch(p -> p.nodeAffinity().required() != null), "required node affinity");
        for (String op : List.of("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")) {
            assertTrue(ps.stream().anyMatch(p -> p.nodeAffinity().required() != null && p.nodeAffinity().required().stream()
                    .anyMatch(t -> t.matchExpressions().stream().anyMatch(r -> r.operator().equals(op)))), "node affinity " + op);
        }
        assertTrue(ps.stream().anyMatch(p -> !p.nodeAffinity().preferred().isEmpty()), "preferred node affinity");
        assertTrue(ps.stream().anyMatch(p -> !p.podAffinity().required().isEmpty()), "required pod affinity");
        assertTrue(ps.stream().anyMatch(p -> !p.podAffinity().preferred().isEmpty()), "preferred pod affinity");
        assertTrue(ps.stream().anyMatch(p -> p.podAntiAffinity().required().stream().anyMatch(t -> t.topologyKey().equals(ClusterGenerator.HOSTNAME))),
                "anti-affinity per hostname");
        assertTrue(ps.stream().anyMatch(p -> p.podAntiAffinity().required().stream().anyMatch(t -> t.topologyKey().equals(ClusterGenerator.RACK))),
                "LeaderWorkerSet groups kept in one rack");
        assertTrue(ps.stream().anyMatch(p -> !p.podAntiAffinity().preferred().isEmpty()), "preferred anti-affinity");
        assertTrue(ps.stream().anyMatch(p -> p.spread().stream().anyMatch(c -> c.doNotSchedule())), "DoNotSchedule spread");
        assertTrue(ps.stream().anyMatch(p -> p.spread().stream().anyMatch(c -> !c.doNotSchedule())), "ScheduleAnyway spread");
        assertTrue(ps.stream().anyMatch(p -> p.spread().stream().anyMatch(c -> c.minDomains() > 1)), "minDomains");
        assertTrue(ps.stream().anyMatch(p -> p.spread().stream().anyMatch(c -> c.honorNodeTaints())), "nodeTaintsPolicy Honor");
        assertTrue(ps.stream().anyMatch(p -> !p.hostPorts().isEmpty()), "host ports");
    }

    @Test
    void theBenchmarkMixCarriesItsShares() {
        Manifests m = ClusterGenerator.generate(SynthSpec.fleet(1_000, 10_000, 20, 7).withConstraints(SynthSpec.Constraints.MIX));
        List<PodSpec> pending = m.pods().stream().filter(p -> !p.isBound() && p.schedulerName().equals(ClusterGenerator.SCHEDULER)).toList();
        double affinity = share(pending, p -> p.placement().nodeAffinity().required() != null);
        double anti = share(pending, p -> !p.placement().podAntiAffinity().required().isEmpty());
        double spread = share(pending, p -> !p.placement().spread().isEmpty());
        assertTrue(affinity > 0.2 && affinity < 0.4, "node affinity on " + affinity);
        assertTrue(anti > 0.05 && anti < 0.15, "anti-affinity on " + anti);
        assertTrue(spread > 0.05 && spread < 0.15, "spread on " + spread);
        assertTrue(pending.stream().allMatch(p -> p.placement().podAffinity().isNone() && p.placement().hostPorts().isEmpty()
                && p.placement().nodeAffinity().preferred().isEmpty()), "the mix has required rules only");
    }

    private static double share(List<PodSpec> pods, java.util.function.Predicate<PodSpec> p) {
        return pods.stream().filter(p).count() / (double) pods.size();
    }

    @Test
    void withoutConstraintsTheSameSeedMakesTheSameJobs() {
        Manifests plain = ClusterGenerator.generate(SynthSpec.fleet(300, 3_000, 10, 5));
        Manifests mix = ClusterGenerator.generate(SynthSpec.fleet(300, 3_000, 10, 5).withConstraints(SynthSpec.Constraints.MIX));
        assertEquals(plain.nodes(), mix.nodes());
        assertEquals(plain.podGroups().stream().filter(g -> g.phase().equals("Pending")).map(PodGroupSpec::key).toList(),
                mix.podGroups().stream().filter(g -> g.phase().equals("Pending")).map(PodGroupSpec::key).toList().subList(0,
                        (int) plain.podGroups().stream().filter(g -> g.phase().equals("Pending")).count()));
    }

    @Test
    void pendingPodsReachTheRequestedCount() {
        Manifests m = ClusterGenerator.generate(FLEET);
        long pending = m.pods().stream().filter(p -> !p.isBound()).count();
        assertTrue(pending >= 3_000 && pending < 3_000 + 64, "pending " + pending);
    }

    @Test
    void runningPodsNeverOvercommitANodeNorIgnoreTheirConstraints() {
        for (Manifests m : List.of(ClusterGenerator.generate(FLEET), ClusterGenerator.generate(VARIED))) runningPodsKeepTheirConstraints(m);
    }

    private static void runningPodsKeepTheirConstraints(Manifests m) {
        assertEquals(List.of(), new ClusterWorld(m).overCapacityNodes());
        Map<String, NodeSpec> nodes = new HashMap<>();
        m.nodes().forEach(n -> nodes.put(n.name(), n));
        for (PodSpec p : m.pods()) {
            if (!p.isBound() || !p.schedulerName().equals(ClusterGenerator.SCHEDULER)) continue;
            NodeSpec n = nodes.get(p.nodeName());
            assertTrue(!n.unschedulable(), p.key() + " runs on cordoned " + n.name());
            p.nodeSelector().forEach((k, v) -> assertEquals(v, n.labels().get(k), p.key() + " on " + n.name()));
            n.taints().stream().filter(t -> !t.effect().equals("PreferNoSchedule"))
                    .forEach(t -> assertTrue(p.tolerations().stream().anyMatch(tol -> tol.tolerates(t)), p.key() + " on tainted " + n.name()));
            assertTrue(p.placement().nodeAffinity().requiredMatches(n), p.key() + " on " + n.name() + " against its node affinity");
            for (dev.arbiter.model.Placement.PodAffinityTerm t : p.placement().podAntiAffinity().required()) {
                for (PodSpec q : m.pods()) {
                    if (q == p || !p.nodeName().equals(q.nodeName()) || !t.topologyKey().equals(ClusterGenerator.HOSTNAME)) continue;
                    assertTrue(!t.matches(p.namespace(), q, Map.of()), p.key() + " shares " + n.name() + " with " + q.key() + " against " + t);
                }
            }
        }
    }

    @Test
    void aFleetHasEveryShape() {
        Manifests m = ClusterGenerator.generate(SynthSpec.fleet(2_000, 20_000, 20, 11));
        assertTrue(m.nodes().stream().anyMatch(n -> n.allocatable().milli(ClusterGenerator.GPU) > 0), "GPU nodes");
        assertTrue(m.nodes().stream().anyMatch(n -> n.allocatable().milli(ClusterGenerator.GPU) == 0), "CPU nodes");
        assertTrue(m.nodes().stream().anyMatch(NodeSpec::unschedulable), "cordoned nodes");
        assertTrue(m.nodes().stream().anyMatch(n -> n.taints().stream().anyMatch(t -> t.effect().equals("NoSchedule"))), "tainted nodes");
        assertTrue(m.queues().stream().anyMatch(q -> q.capability() != null), "capped queues");
        assertTrue(m.queues().stream().anyMatch(q -> !q.reclaimable()), "queues that are not reclaimable");
        assertTrue(m.queues().stream().map(q -> q.weight()).distinct().count() > 1, "different weights");
        Map<String, Integer> sizes = new HashMap<>();
        m.pods().forEach(p -> { if (p.groupName() != null) sizes.merge(p.namespace() + "/" + p.groupName(), 1, Integer::sum); });
        assertTrue(sizes.values().stream().anyMatch(s -> s == 64), "PyTorchJob gangs of 64");
        assertTrue(sizes.values().stream().anyMatch(s -> s == 2), "gangs of 2");
        assertTrue(m.podGroups().stream().anyMatch(g -> g.name().startsWith("lws-")), "LeaderWorkerSet groups");
        assertTrue(m.podGroups().stream().anyMatch(g -> g.minMember() < sizes.get(g.key())), "elastic gangs");
        assertTrue(m.podGroups().stream().anyMatch(g -> !g.minTaskMember().isEmpty()), "gangs with minTaskMember");
        assertTrue(m.pods().stream().anyMatch(p -> p.groupName() == null && p.isBound()), "running single pods");
        assertTrue(m.pods().stream().anyMatch(p -> p.groupName() == null && !p.isBound()), "pending single pods");
        assertTrue(m.pods().stream().anyMatch(p -> "Never".equals(p.preemptionPolicy())), "pods that never preempt");
        assertTrue(m.pods().stream().anyMatch(p -> !p.preemptableMarker()), "pods that are never victims");
        assertTrue(m.pods().stream().anyMatch(p -> !p.schedulerName().equals(ClusterGenerator.SCHEDULER)), "pods of another scheduler");
        assertTrue(m.podGroups().stream().map(PodGroupSpec::priorityClassName).distinct().count() >= 5, "priority classes");
    }

    @Test
    void generateWritesYamlThatSimulateLoads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cluster.yaml");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"generate", "--nodes", "20", "--pods", "120", "--queues", "3", "--seed", "7",
                "--file", file.toString()}, new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        assertEquals(ClusterGenerator.generate(new SynthSpec(20, 120, 3, 7, 0.5, 64, 1)),
                ManifestLoader.load(List.of(file)), "the file holds exactly the generated cluster");
        StringWriter sim = new StringWriter();
        code = Main.run(new String[] {"simulate", "--max-cycles", "5", file.toString()}, new PrintWriter(sim), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        assertTrue(sim.toString().contains("Cycle 1:"), sim.toString());
        assertTrue(Files.size(file) > 10_000);
    }

    @Test
    void theYamlReadsAsPeopleWriteItWithoutQuotedKeys() {
        String yaml = ManifestYamlWriter.toYaml(ClusterGenerator.generate(new SynthSpec(20, 120, 3, 7, 0.5, 64, 1)));
        assertTrue(yaml.lines().noneMatch(l -> l.stripLeading().matches("(- )?\"[^\"]*\":.*")), "a quoted key");
        assertTrue(yaml.contains("\nkind: PriorityClass\nmetadata:\n  name: batch-low\nvalue: 100\nglobalDefault: false\n"), yaml.substring(0, 400));
        assertTrue(yaml.contains("    memory: 2Ti\n"), "plain quantities");
        assertTrue(yaml.contains("    nvidia.com/gpu: \"8\"\n"), "a number-like string stays a string");
        assertTrue(yaml.contains("      limits:\n        nvidia.com/gpu: "), "GPU limits, as the API server requires");
    }

    @Test
    void stringsYamlWouldReadAsSomethingElseAreQuotedAndEveryStringLoadsBack() {
        List<String> other = List.of("8", "true", "no", "on", "null", "1e3", "0x1f", "1:30", ".5", "2026-11-29", "2026-11-29T10:00:00Z");
        List<String> awkward = List.of("a: b", "", "-x", "x y", "#c", "*a", "[a]", "{b}", "c, d", "say \"hi\"", "back\\slash");
        List<String> plain = List.of("q-00", "500m", "16Gi", "nvidia.com/gpu", "PreemptLowerPriority", "node-00001");
        Map<String, String> annotations = new HashMap<>();
        for (List<String> values : List.of(other, awkward, plain)) values.forEach(v -> annotations.put("k" + annotations.size(), v));
        PodSpec pod = new PodSpec("ns", "p1", ClusterGenerator.SCHEDULER, null, "Pending", null, null, null,
                dev.arbiter.model.Resources.of("cpu", 1, "pods", 1), Map.of(), List.of(), Map.of(), annotations, 0, 0, false);
        Manifests m = new Manifests(List.of(), List.of(pod), List.of(), List.of(), List.of(), List.of(), Map.of(), List.of());
        String yaml = ManifestYamlWriter.toYaml(m);
        assertEquals(annotations, ManifestLoader.parse(yaml, "annotations.yaml").pods().get(0).annotations(), yaml);
        annotations.forEach((k, v) -> {
            if (other.contains(v)) assertTrue(yaml.contains("    " + k + ": \"" + v + "\"\n"), v + " must be double-quoted: " + yaml);
            if (plain.contains(v)) assertTrue(yaml.contains("    " + k + ": " + v + "\n"), v + " is written plain: " + yaml);
        });
    }
}
