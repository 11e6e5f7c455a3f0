package dev.arbiter.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Every change {@code whatif} proposes, proven: the change is made to the scenario by this test's own hand (from the
 * answer's JSON, not by {@link Change#apply}), the whole scenario is simulated again from cycle 1 with the change made
 * at the cycle asked about (a setting is written into a policy.yaml overlay and loaded as a pack), and the job must
 * start within the cycles whatif said. Scenarios: the seed story (tenant A's gang before reclaim, brought in at cycle
 * 30 while tenant B's pods are younger than the minimum runtime), a gang blocked by its queue's capability, one
 * blocked by its node selector, one held to one rack by its network topology, one kept off tainted nodes, one blocked by the minimum runtime
 * shielding young pods from preemption; and a gated pod nothing in reach starts.
 */
class WhatIfProofTest {
    private static final Path SEED = Path.of("deploy/examples/seed");
    private static final Path SCENARIOS = Path.of("src/test/resources/whatif");

    @TempDir
    Path temp;

    private record Asked(Manifests manifests, WhatIfState.At at, Answer answer, Path rules) {}

    private static Asked ask(Path manifests, Path rules, String subject, Integer atCycle) {
        Manifests m = ManifestLoader.load(List.of(manifests));
        RuleBook book = RuleBook.load(rules == null ? RuleBook.shippedFolder() : rules);
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        Simulator sim = new Simulator(new Scheduler(book, config));
        Simulator.Options options = Simulator.Options.defaults(200);
        WhatIfState.At at = atCycle == null ? WhatIfState.whereStillPending(sim, m, options, subject)
                : WhatIfState.atCycle(sim, m, options, subject, atCycle);
        Answer a = at.answer() != null ? at.answer()
                : WhatIf.ask(new WhatIf.Question(at.state(), at.cycle(), at.job(), book, config, 1));
        if (atCycle != null) m = WhatIfState.broughtIn(m, at.job(), atCycle);
        return new Asked(m, at, a, rules);
    }

    @Test
    void everyChangeForTheSeedGangBeforeReclaimStartsIt() throws Exception {
        Asked a = ask(SEED, null, "a01/qwen2-72b-unified-pg", 30);
        assertEquals(Answer.Verdict.CHANGES_FOUND, a.answer().verdict());
        assertTrue(a.answer().reason().contains("minimum runtime"), a.answer().reason());
        List<String> kinds = kinds(a.answer());
        assertEquals(List.of("setting", "jobs-ended", "nodes-added"), kinds);
        JsonNode first = changes(a.answer()).get(0);
        assertEquals("churn.minRuntime", first.get("setting").asString());
        assertEquals("29s", first.get("to").asString(), "the largest minimum runtime that lets reclaim take tenant B's 29 s old pods");
        assertEquals(2, changes(a.answer()).get(2).get("count").asInt(), "two 8-GPU nodes for a gang of two 8-GPU pods");
        proveAll(a);
    }

    @Test
    void theSeedGangAtItsOwnArrivalStartsWithNoChange() {
        Asked a = ask(SEED, null, "a01/qwen2-72b-unified-pg", 61);
        assertEquals(Answer.Verdict.STARTS_UNCHANGED, a.answer().verdict());
        assertEquals("cycle 61 evicts 2 pods (reclaim), binds 2 pods in cycle 62", a.answer().outcome());
    }

    @Test
    void theSeedGangAtTheEndIsNotPending() {
        Asked a = ask(SEED, null, "a01/qwen2-72b-unified-pg", null);
        assertEquals(Answer.Verdict.NOT_PENDING, a.answer().verdict());
        assertTrue(a.answer().outcome().startsWith("started in cycle 62"), a.answer().outcome());
    }

    @Test
    void aGangBlockedByItsQueuesCapabilityStartsWhenTheCapabilityIsRaisedByOnePod() throws Exception {
        Asked a = ask(SCENARIOS.resolve("capability"), null, "research/train", null);
        assertEquals(Answer.Verdict.CHANGES_FOUND, a.answer().verdict());
        JsonNode c = changes(a.answer()).get(0);
        assertEquals("capability", c.get("kind").asString());
        assertEquals("16", c.get("capability").get("nvidia.com/gpu").asString(), "8 GPUs more: one pod's worth, the least that works");
        assertTrue(c.get("blocks").asString().contains("capability exhausted"), c.get("blocks").asString());
        proveAll(a);
    }

    @Test
    void aGangBlockedByItsNodeSelectorStartsWithoutItOrOnNodesItAsksFor() throws Exception {
        Asked a = ask(SCENARIOS.resolve("selector"), null, "vision/detect", null);
        assertEquals(List.of("node-selector-dropped", "nodes-added"), kinds(a.answer()));
        assertEquals("h100", changes(a.answer()).get(1).get("labels").get("accelerator").asString());
        proveAll(a);
    }

    @Test
    void aGangHeldToOneRackStartsWhenItMayUseTheBlock() throws Exception {
        Asked a = ask(SCENARIOS.resolve("topology"), null, "llm/pretrain", null);
        assertEquals(List.of("topology-relaxed"), kinds(a.answer()), "the gentlest relaxation only; nodes outside every"
                + " rack cannot hold a gang that must stay in one");
        assertEquals("hard, tier <= 2", changes(a.answer()).get(0).get("networkTopology").asString());
        assertTrue(a.answer().notFound().stream().anyMatch(n -> n.startsWith("hardware:")), a.answer().notFound().toString());
        proveAll(a);
    }

    @Test
    void aGangKeptOffTaintedNodesStartsWithATolerationOrOnNodesOfItsShape() throws Exception {
        Asked a = ask(SCENARIOS.resolve("taint"), null, "train/finetune", null);
        assertEquals(List.of("taint-tolerated", "nodes-added"), kinds(a.answer()));
        assertEquals("dedicated=inference:NoSchedule", changes(a.answer()).get(0).get("taint").asString());
        assertTrue(a.answer().remedies().get(1).change().words().startsWith("2 nodes added of the pods' shape"),
                a.answer().remedies().get(1).change().words());
        proveAll(a);
    }

    @Test
    void aGangBlockedByTheMinimumRuntimeStartsWithAShorterOneOrWithoutItsShieldFromPreemption() throws Exception {
        Asked a = ask(SCENARIOS.resolve("min-runtime"), SCENARIOS.resolve("min-runtime-rules"), "team/urgent", 5);
        List<String> settings = new ArrayList<>();
        for (JsonNode c : changes(a.answer())) if (c.get("kind").asString().equals("setting")) settings.add(c.get("setting").asString() + "=" + c.get("to").asString());
        assertEquals(List.of("churn.minRuntime=4s", "churn.minRuntimeAgainstPreemption=false"), settings);
        assertEquals(List.of("setting", "setting", "jobs-ended", "nodes-added"), kinds(a.answer()));
        proveAll(a);
    }

    @Test
    void aJobNothingInReachStartsGetsNoChangeWithTheReasons() {
        Asked a = ask(SCENARIOS.resolve("gated"), null, "ops/held", null);
        assertEquals(Answer.Verdict.NONE_IN_REACH, a.answer().verdict());
        assertTrue(a.answer().remedies().isEmpty());
        assertEquals(5, a.answer().notFound().size(), a.answer().notFound().toString());
        String text = WhatIfText.render(a.answer(), 5, null);
        assertTrue(text.contains("No change within reach found."), text);
        assertTrue(text.contains("scheduling gates"), text);
    }

    @Test
    void theChangesAreRankedByTierThenCost() {
        Asked a = ask(SCENARIOS.resolve("min-runtime"), SCENARIOS.resolve("min-runtime-rules"), "team/urgent", 5);
        List<Cost.Tier> tiers = a.answer().remedies().stream().map(Answer.Remedy::tier).toList();
        List<Cost.Tier> sorted = new ArrayList<>(tiers);
        sorted.sort(null);
        assertEquals(sorted, tiers);
        assertEquals(Cost.Tier.POLICY, tiers.get(0));
        assertEquals(Cost.Tier.HARDWARE, tiers.get(tiers.size() - 1));
    }

    // ---- the proof -----------------------------------------------------------------------------------------------------

    private static List<String> kinds(Answer a) throws RuntimeException {
        List<String> out = new ArrayList<>();
        for (JsonNode c : changes(a)) out.add(c.get("kind").asString());
        return out;
    }

    private static List<JsonNode> changes(Answer a) {
        JsonNode doc = new ObjectMapper().readTree(WhatIfText.json(a, -1, null));
        List<JsonNode> out = new ArrayList<>();
        doc.get("changes").forEach(out::add);
        return out;
    }

    /** Each change, made by hand and simulated from cycle 1: the job has minMember pods bound by the cycle whatif said. */
    private void proveAll(Asked a) throws Exception {
        List<JsonNode> changes = changes(a.answer());
        assertFalse(changes.isEmpty());
        for (JsonNode c : changes) prove(a, c);
    }

    private void prove(Asked a, JsonNode c) throws Exception {
        String job = a.at().job();
        int n = a.at().cycle();
        Path rules = a.rules() == null ? RuleBook.shippedFolder() : a.rules();
        if (c.get("kind").asString().equals("setting")) rules = overlay(rules, c.get("setting").asString(), c.get("to").asString());
        Simulator sim = new Simulator(new Scheduler(RuleBook.load(rules), SchedulerConfig.simulatorDefault()));
        List<CycleResult> cycles = sim.runWith(a.manifests(), Simulator.Options.defaults(200),
                new Simulator.Intervention(n, s -> byHand(s, job, c))).cycles();
        Set<String> pods = new HashSet<>();
        for (PodSpec p : a.manifests().pods()) if (p.jobId().equals(job)) pods.add(p.key());
        int minMember = a.manifests().podGroups().stream().filter(g -> g.key().equals(job)).mapToInt(PodGroupSpec::minMember)
                .findFirst().orElse(1);
        int lastCycleSaid = lastCycle(c.get("outcome").asString());
        int bound = 0;
        for (CycleResult r : cycles) {
            if (r.cycle() > lastCycleSaid) break;
            for (Binding b : r.bindings()) if (pods.contains(b.pod())) bound++;
        }
        assertTrue(bound >= minMember, c.get("change").asString() + ": " + bound + " of " + job + "'s pods bound by cycle "
                + lastCycleSaid + ", minMember " + minMember);
    }

    /** The last cycle an outcome names: {@code cycle 30 evicts 2 pods (reclaim), binds 2 pods in cycle 31} → 31. */
    private static int lastCycle(String outcome) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cycle (\\d+)").matcher(outcome);
        int last = -1;
        while (m.find()) last = Integer.parseInt(m.group(1));
        assertTrue(last > 0, outcome);
        return last;
    }

    /** The change {@code c} made to the world, by hand, from its JSON. */
    private static ClusterSnapshot byHand(ClusterSnapshot s, String job, JsonNode c) {
        List<NodeSpec> nodes = new ArrayList<>(s.nodes());
        List<PodSpec> pods = new ArrayList<>(s.pods());
        List<QueueSpec> queues = new ArrayList<>(s.queues());
        switch (c.get("kind").asString()) {
            case "setting" -> { }
            case "capability" -> queues.replaceAll(q -> !q.name().equals(c.get("queue").asString()) ? q
                    : new QueueSpec(q.name(), q.weight(), q.priority(), Caps.ofMilli(milli(c.get("capability"))), q.guarantee(),
                    q.reclaimable(), q.state(), q.parent(), q.arrivalCycle(), q.dequeueStrategy(), q.deserved(), q.lendingLimit()));
            case "jobs-ended" -> {
                Set<String> ended = new HashSet<>();
                c.get("jobs").forEach(j -> ended.add(j.get("job").asString()));
                pods.removeIf(p -> ended.contains(p.jobId()));
            }
            case "nodes-added" -> {
                for (int i = 0; i < c.get("count").asInt(); i++) {
                    Map<String, String> labels = new LinkedHashMap<>();
                    c.get("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
                    labels.put("kubernetes.io/hostname", "proof-" + i);
                    nodes.add(new NodeSpec("proof-" + i, labels, List.of(), false, Resources.ofMilli(milli(c.get("allocatable"))), 0));
                }
            }
            case "topology-relaxed" -> {
                String to = c.get("networkTopology").asString();
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(hard|soft), tier <= (\\d+)").matcher(to);
                dev.arbiter.model.NetworkTopology t = to.equals("none") ? null : m.matches()
                        ? dev.arbiter.model.NetworkTopology.tiers(m.group(1).equals("hard"), Integer.parseInt(m.group(2)))
                        : fail("cannot read networkTopology " + to);
                List<PodGroupSpec> groups = new ArrayList<>(s.podGroups());
                groups.replaceAll(g -> g.key().equals(job) ? g.withNetworkTopology(t) : g);
                return new ClusterSnapshot(nodes, pods, groups, queues, s.priorityClasses(), s.now(), s.nominations(),
                        s.namespaceLabels(), s.hyperNodes(), s.refusedVictims(), s.usage());
            }
            case "taint-tolerated" -> {
                String[] t = c.get("taint").asString().split("[=:]");
                dev.arbiter.model.Toleration tol = new dev.arbiter.model.Toleration(t[0], "Equal", t[1], t[2]);
                pods.replaceAll(p -> {
                    if (!p.jobId().equals(job) || p.isBound()) return p;
                    List<dev.arbiter.model.Toleration> tols = new ArrayList<>(p.tolerations());
                    tols.add(tol);
                    return new PodSpec(p.namespace(), p.name(), p.schedulerName(), p.nodeName(), p.phase(),
                            p.priorityClassName(), p.priority(), p.preemptionPolicy(), p.requests(), p.nodeSelector(), tols,
                            p.labels(), p.annotations(), p.arrivalCycle(), p.creationOrder(), p.terminating(), p.startedAt(),
                            p.placement());
                });
            }
            case "node-selector-dropped" -> pods.replaceAll(p -> {
                if (!p.jobId().equals(job) || p.isBound()) return p;
                Map<String, String> sel = new HashMap<>(p.nodeSelector());
                sel.remove(c.get("nodeSelectorKey").asString());
                return new PodSpec(p.namespace(), p.name(), p.schedulerName(), p.nodeName(), p.phase(), p.priorityClassName(),
                        p.priority(), p.preemptionPolicy(), p.requests(), sel, p.tolerations(), p.labels(), p.annotations(),
                        p.arrivalCycle(), p.creationOrder(), p.terminating(), p.startedAt(), p.placement());
            });
            default -> throw new AssertionError("no proof by hand for " + c.get("kind").asString());
        }
        return new ClusterSnapshot(nodes, pods, s.podGroups(), queues, s.priorityClasses(), s.now(), s.nominations(),
                s.namespaceLabels(), s.hyperNodes(), s.refusedVictims(), s.usage());
    }

    private static Map<String, Long> milli(JsonNode quantities) {
        Map<String, Long> out = new TreeMap<>();
        quantities.properties().forEach(e -> out.put(e.getKey(), Quantity.parseAmount(e.getKey(), e.getValue().asString())));
        return out;
    }

    /** A pack over {@code base} whose policy.yaml sets {@code setting} (e.g. {@code churn.minRuntime}) to {@code value}. */
    private Path overlay(Path base, String setting, String value) throws Exception {
        Path dir = Files.createTempDirectory(temp, "pack");
        Files.writeString(dir.resolve("pack.yaml"), "name: proof\nextends: " + base.toAbsolutePath() + "\n");
        String[] path = setting.split("\\.");
        Files.writeString(dir.resolve("policy.yaml"), path[0] + ":\n  " + path[1] + ": " + value + "\n");
        return dir;
    }
}
