package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** deploy/examples/workloads, simulated: every kind expanded as its controller would, every constraint honoured. */
class WorkloadsExampleTest {
    private static final Manifests MANIFESTS = ManifestLoader.load(List.of(Path.of("deploy/examples/workloads")));
    private static final SimulationResult RESULT = Shipped.simulate(MANIFESTS);
    private static final Map<String, NodeSpec> NODES = new HashMap<>();

    static {
        MANIFESTS.nodes().forEach(n -> NODES.put(n.name(), n));
    }

    /** The node each pod of {@code prefix} ended on (null while pending). */
    private static Map<String, String> nodesOf(String prefix) {
        Map<String, String> out = new HashMap<>();
        for (PodOutcome p : RESULT.pods()) if (p.pod().startsWith(prefix)) out.put(p.pod(), p.node());
        assertTrue(!out.isEmpty(), "no pod " + prefix + "*");
        return out;
    }

    private static Set<String> label(Map<String, String> placed, String key) {
        return placed.values().stream().map(n -> NODES.get(n).labels().get(key)).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theVolcanoJobRunsAsItsControllerNamesItOnH100NodesOnly() {
        Map<String, String> placed = nodesOf("research/pretrain-");
        assertEquals(Set.of("research/pretrain-master-0", "research/pretrain-worker-0", "research/pretrain-worker-1"), placed.keySet());
        assertEquals(Set.of("h100"), label(placed, "gpu"));
        assertEquals("Running", Shipped.group(RESULT.podGroups(), "research/pretrain-6f1c2d3e-0000-4000-8000-000000000001").phase());
    }

    @Test
    void theMpiJobsWorkersRunOnA100NodesWithTheirLauncher() {
        Map<String, String> placed = nodesOf("research/allreduce-");
        assertEquals(3, placed.size());
        assertTrue(placed.keySet().stream().anyMatch(p -> p.matches("research/allreduce-launcher-[a-z0-9]{5}")), placed.toString());
        assertEquals(Set.of("a100"), label(Map.of("w0", placed.get("research/allreduce-worker-0"), "w1",
                placed.get("research/allreduce-worker-1")), "gpu"));
        assertEquals("Running", Shipped.group(RESULT.podGroups(), "research/allreduce").phase());
    }

    @Test
    void theBatchJobsIndexedPodsRunOnThePreferredA100s() {
        Map<String, String> placed = nodesOf("research/eval-");
        assertEquals(4, placed.size());
        assertTrue(placed.keySet().stream().allMatch(p -> p.matches("research/eval-[0-3]-[a-z0-9]{5}")), placed.toString());
        assertEquals(Set.of("a100"), label(placed, "gpu"));
        assertEquals(2, Shipped.group(RESULT.podGroups(), "research/podgroup-6f1c2d3e-0000-4000-8000-000000000004").minMember());
    }

    @Test
    void theLeaderWorkerSetGroupStaysInOneRack() {
        Map<String, String> placed = nodesOf("serving/chat-70b-0");
        assertEquals(2, placed.size());
        assertTrue(!placed.containsValue(null), placed.toString());
        assertEquals(1, label(placed, "rack").size(), placed.toString());
    }

    @Test
    void theInferenceReplicasRunOnePerNodeOverBothZones() {
        Map<String, String> placed = nodesOf("serving/embed-");
        assertEquals(3, new TreeSet<>(placed.values()).size(), placed.toString());
        assertEquals(Set.of("zone-a", "zone-b"), label(placed, "topology.kubernetes.io/zone"));
    }

    @Test
    void thePodWithAResourceClaimStaysPendingAndSaysWhy() {
        assertEquals(null, nodesOf("research/dra-notebook").get("research/dra-notebook"));
        String reason = Shipped.group(RESULT.podGroups(), "research/podgroup-dra-notebook").reason();
        assertTrue(reason.contains("pod research/dra-notebook needs spec.resourceClaims (dynamic resource allocation), which"
                + " Arbiter does not evaluate"), reason);
    }
}
