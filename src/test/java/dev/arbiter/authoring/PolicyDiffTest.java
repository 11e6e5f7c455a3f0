package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/** {@code arbiter diff}: the shipped rules against a copy with reclaim disabled, on the seed scenario. */
class PolicyDiffTest {
    private static final String SEED = "deploy/examples/seed";

    @TempDir
    static Path dir;
    static Path noReclaim;

    /** The shipped rules without reclaim.drl: no ReclaimGrant, so nothing is ever reclaimed. */
    @BeforeAll
    static void copyRulesWithoutReclaim() throws IOException {
        noReclaim = Shipped.rulesWithout(dir, "no-reclaim", "reclaim.drl");
    }

    @Test
    void withoutReclaimTenantAsPodsAreNoLongerBoundAndTheEvictionsDisappear() {
        CliRunner r = CliRunner.run("diff", "--exit-code", "--rules", "rules", "--candidate", noReclaim.toString(), SEED);
        assertEquals(1, r.exit(), "--exit-code: the policies differ\n" + r.err());
        assertTrue(r.out().matches("(?s).*a01/qwen2-72b-unified-0\\s+Running on node-\\d\\s+Pending\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*a01/qwen2-72b-unified-0-1\\s+Running on node-\\d\\s+Pending\\n.*"), r.out());
        assertTrue(r.out().contains("Evictions (0 added, 2 removed)"), r.out());
        assertTrue(r.out().contains("- reclaim b01/tenantb-heavy-training-worker-2 for a01/qwen2-72b-unified-pg"), r.out());
        assertTrue(r.out().matches("(?s).*tenanta\\s+mars-tech.com/gpu\\s+16 -> 16\\s+16 -> 0\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*tenantb\\s+mars-tech.com/gpu\\s+16 -> 16\\s+16 -> 32\\n.*"), r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void theJsonOutputCarriesTheSameChanges() {
        Manifests seed = ManifestLoader.load(List.of(Path.of(SEED)));
        SimulationResult shipped = Shipped.simulate(seed);
        SimulationResult candidate = new Simulator(new Scheduler(RuleBook.load(noReclaim), SchedulerConfig.simulatorDefault()))
                .run(seed, 100);
        PolicyDiff diff = PolicyDiff.compare("rules", shipped, noReclaim.toString(), candidate);
        Map<String, Object> json = new Yaml().load(diff.json());
        List<Map<String, Object>> pods = (List<Map<String, Object>>) json.get("pods");
        Map<String, Object> leader = pods.stream().filter(p -> p.get("pod").equals("a01/qwen2-72b-unified-0")).findFirst().orElseThrow();
        assertEquals("Running", ((Map<String, Object>) leader.get("old")).get("phase"));
        assertEquals("Pending", ((Map<String, Object>) leader.get("candidate")).get("phase"));
        assertEquals(null, ((Map<String, Object>) leader.get("candidate")).get("node"));
        List<Map<String, Object>> evictions = (List<Map<String, Object>>) json.get("evictions");
        assertEquals(2, evictions.size());
        assertTrue(evictions.stream().allMatch(e -> e.get("change").equals("removed") && e.get("action").equals("reclaim")));
        assertEquals(true, ((Map<String, Object>) json.get("old")).get("stable"));
        assertEquals(shipped.lastCycle().rulesGeneration(), ((Map<String, Object>) json.get("old")).get("generation"));
        List<Map<String, Object>> queues = (List<Map<String, Object>>) json.get("queues");
        assertTrue(queues.contains(Map.of("queue", "tenanta", "resource", "mars-tech.com/gpu",
                "deserved", Map.of("old", "16", "candidate", "16"), "allocated", Map.of("old", "16", "candidate", "0"))), queues.toString());
    }

    @Test
    void aLongerMinimumRuntimeShowsTheSameReclaimLater() throws IOException {
        // A pack over the shipped rules that changes one setting: ten minutes of minimum runtime before reclaim.
        Path tenMinutes = Files.createDirectories(dir.resolve("ten-minutes"));
        Files.writeString(tenMinutes.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(tenMinutes.resolve("policy.yaml"), "churn:\n  minRuntime: 10m\n");
        assertEquals(60, dev.arbiter.engine.rules.RuleBook.load(Path.of("rules")).settings().churn().minRuntimeSeconds(),
                "the shipped minimum runtime is 60 s");

        CliRunner r = CliRunner.run("diff", "--candidate", tenMinutes.toString(), SEED);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().matches("(?s).*b01/tenantb-heavy-training-worker-2\\s+reclaim\\s+61 -> 601\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*a01/qwen2-72b-unified-0\\s+bound\\s+62 -> 602\\n.*"), r.out());
        assertTrue(!r.out().contains("Pods (") && !r.out().contains("Evictions ("), "the same end state: " + r.out());
    }

    @Test
    void identicalRunsShowNoDifferences() {
        Manifests small = ManifestLoader.parse(SMALL, "small.yaml");
        PolicyDiff diff = PolicyDiff.compare("rules", Shipped.simulate(small), "rules", Shipped.simulate(small));
        assertTrue(diff.isEmpty());
        assertTrue(diff.table().contains("No differences"), diff.table());
        assertTrue(diff.json().contains("\"pods\":[],\n \"evictions\":[],\n \"queues\":[]"), diff.json());
    }

    @Test
    void aBrokenCandidateExits3() throws IOException {
        Path small = Files.writeString(dir.resolve("small.yaml"), SMALL);
        Files.writeString(noReclaim.resolve("broken.drl"), "package arbiter.policy;\nrule \"x\" when Nope( ) then end\n");
        CliRunner r = CliRunner.run("diff", "--candidate", noReclaim.toString(), small.toString());
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.err().contains("broken.drl:2:"), r.err());
    }

    private static final String SMALL = """
            apiVersion: v1
            kind: Node
            metadata: {name: n1}
            status: {allocatable: {cpu: "8", nvidia.com/gpu: "8"}}
            ---
            apiVersion: v1
            kind: Pod
            metadata: {name: p, namespace: ns}
            spec:
              schedulerName: volcano
              containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1"}}}]
            """;
}
