package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.Runtimes;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * In the simulator a pod with {@code simulation.arbiter.dev/runtime} Succeeds that long after it started and frees
 * its room; the run skips the idle cycles up to that end and keeps going.
 */
class SimulatedRuntimeTest {
    private static String pod(String name, String runtime) {
        String ann = runtime == null ? "" : "\n  annotations: {simulation.arbiter.dev/runtime: \"" + runtime + "\"}";
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: team%s
                spec:
                  schedulerName: arbiter
                  containers:
                  - name: c
                    resources: {requests: {nvidia.com/gpu: "8"}}
                ---
                """.formatted(name, ann);
    }

    private static final String NODE = """
            apiVersion: v1
            kind: Node
            metadata: {name: node-1}
            status:
              allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
            ---
            """;

    private static Map<String, Integer> boundAt(SimulationResult r) {
        Map<String, Integer> out = new TreeMap<>();
        for (CycleResult c : r.cycles()) for (Binding b : c.bindings()) out.put(b.pod(), c.cycle());
        return out;
    }

    @Test
    void aPodThatEndsFreesItsNodeForTheNext() {
        Manifests m = ManifestLoader.parse(NODE + pod("first", "90s") + pod("second", null), "t.yaml");
        SimulationResult r = new Simulator(Shipped.scheduler()).run(m, 200, 10);
        assertEquals(Map.of("team/first", 1, "team/second", 10), boundAt(r),
                "first starts at 10 s and ends at 100 s: the cycle at 100 s sees it gone and binds second");
        assertEquals("Succeeded", r.pods().stream().filter(p -> p.pod().equals("team/first")).findFirst().orElseThrow().phase());
        assertTrue(r.stable());
    }

    @Test
    void withoutARuntimeThePodRunsToTheEnd() {
        Manifests m = ManifestLoader.parse(NODE + pod("first", null) + pod("second", null), "t.yaml");
        SimulationResult r = new Simulator(Shipped.scheduler()).run(m, 200, 10);
        assertEquals(Map.of("team/first", 1), boundAt(r));
    }

    @Test
    void durationsAsAPersonWritesThem() {
        assertEquals(5400, Runtimes.seconds("1h30m"));
        assertEquals(90, Runtimes.seconds("90"));
        assertEquals(86_400 + 7_200, Runtimes.seconds("1d2h"));
        assertEquals(Runtimes.UNKNOWN, Runtimes.seconds("1.5h"));
        assertEquals(Runtimes.UNKNOWN, Runtimes.seconds("h"));
        assertEquals(Runtimes.UNKNOWN, Runtimes.seconds("2h-"));
        assertEquals("1h30m", Runtimes.show(5400));
        assertEquals("2d3h", Runtimes.show(2 * 86_400 + 3 * 3600 + 59));
    }
}
