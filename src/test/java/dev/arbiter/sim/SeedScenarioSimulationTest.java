package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The seed story end to end, through the same simulator {@code arbiter simulate} runs: tenant B's training takes all
 * 32 GPUs, tenant A's p0 inference arrives, reclaim evicts exactly enough of B for A's two pods, shares end 16/16.
 */
class SeedScenarioSimulationTest {
    private static final String GPU = "mars-tech.com/gpu";
    private static final SimulationResult RESULT =
            Shipped.simulate(ManifestLoader.load(List.of(Path.of("deploy/examples/seed"))));

    @Test
    void tenantBsFourPodsBindInCycleOne() {
        CycleResult first = RESULT.cycles().get(0);
        assertEquals(4, first.bindings().size());
        assertTrue(first.bindings().stream().allMatch(b -> b.pod().startsWith("b01/tenantb-heavy-training-")));
        assertEquals(32, Shipped.units(Shipped.queue(first.queues(), "tenantb").allocated(), GPU));
    }

    @Test
    void reclaimEvictsExactlyEnoughForTenantAsTwoPods() {
        List<Eviction> evictions = RESULT.cycles().stream().flatMap(c -> c.evictions().stream()).toList();
        assertEquals(2, evictions.size(), "two 8-GPU pods free the 16 GPUs tenant A needs");
        for (Eviction e : evictions) {
            assertEquals("reclaim", e.action());
            assertEquals("a01/qwen2-72b-unified-pg", e.forPodGroup());
            assertTrue(e.pod().startsWith("b01/tenantb-heavy-training-worker-"), "workers go before the master: " + e.pod());
        }
        Set<String> aBound = new TreeSet<>();
        for (CycleResult c : RESULT.cycles()) for (Binding b : c.bindings()) if (b.pod().startsWith("a01/")) aBound.add(b.pod());
        assertEquals(Set.of("a01/qwen2-72b-unified-0", "a01/qwen2-72b-unified-0-1"), aBound);
        int evictedIn = RESULT.cycles().stream().filter(c -> !c.evictions().isEmpty()).findFirst().orElseThrow().cycle();
        int aBoundIn = RESULT.cycles().stream().filter(c -> c.bindings().stream().anyMatch(b -> b.pod().startsWith("a01/")))
                .findFirst().orElseThrow().cycle();
        assertEquals(61, evictedIn, "tenant A arrives in cycle 61, once tenant B has run the minimum runtime");
        assertEquals(evictedIn + 1, aBoundIn, "A binds once the victims have left");
    }

    @Test
    void deservedSharesEnd16And16AndTheRunIsStable() {
        assertTrue(RESULT.stable());
        assertEquals(16, Shipped.units(Shipped.queue(RESULT.queues(), "tenanta").deserved(), GPU));
        assertEquals(16, Shipped.units(Shipped.queue(RESULT.queues(), "tenantb").deserved(), GPU));
        assertEquals(16, Shipped.units(Shipped.queue(RESULT.queues(), "tenanta").allocated(), GPU));
        assertEquals(16, Shipped.units(Shipped.queue(RESULT.queues(), "tenantb").allocated(), GPU));
        assertEquals("Running", Shipped.group(RESULT.podGroups(), "b01/tenantb-heavy-training").phase());
        assertEquals("Running", Shipped.group(RESULT.podGroups(), "a01/qwen2-72b-unified-pg").phase());
    }

    @Test
    void theJsonOutputHasTheDocumentedShape() {
        String json = JsonReport.write(RESULT);
        assertTrue(json.startsWith("{\"cycles\":["));
        assertTrue(json.contains("{\"pod\":\"b01/tenantb-heavy-training-master-0\",\"node\":\"node-"), json);
        assertTrue(json.contains(",\"action\":\"reclaim\",\"for\":\"a01/qwen2-72b-unified-pg\",\"rule\":\"reclaim: "), json);
        assertTrue(json.contains("\"phase\":\"Evicted\",\"node\":null"), json);
        assertTrue(json.contains("{\"queue\":\"tenanta\",\"parent\":\"root\",\"weight\":1,\"state\":\"Open\",\"deserved\":{"), json);
        assertTrue(json.contains("\"mars-tech.com/gpu\":\"16\""), json);
    }
}
