package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Eviction;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The seed story (deploy/examples/seed) on a live API: tenant B's elastic training fills the cluster, tenant A's
 * critical service arrives, two training workers are reclaimed through the Eviction API, and tenant A's gang binds
 * on the freed nodes. The pods are the ones the training operator and the LeaderWorkerSet controller would create
 * (expanded by the manifest loader).
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterpart is {@code
 * SeedStoryRealTest}, and the two agree: the same two workers reclaimed through the Eviction API, tenant A bound on
 * the freed nodes, the master training on, 16/16.
 */
class SeedStoryTest extends LiveClusterTest {
    @Test
    void reclaimEvictsTwoTrainingWorkersAndTenantABinds() {
        Manifests seed = ManifestLoader.load(List.of(Path.of("deploy/examples/seed")));
        seed.priorityClasses().forEach(fx::create);
        seed.queues().stream().filter(q -> !q.name().equals("default")).forEach(fx::create);
        seed.nodes().forEach(fx::create);
        seed.podGroups().stream().filter(g -> g.arrivalCycle() == 0).forEach(fx::create);
        seed.pods().stream().filter(p -> p.arrivalCycle() == 0).forEach(fx::create);
        LiveScheduler s = fx.manualScheduler();
        await("tenant B in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasQueue("tenantb"));

        // Cycles 0-2: tenant B borrows the idle half and runs on all four nodes.
        assertEquals(4, s.loop().runOnce().report().bound());
        await("training runs everywhere", () -> boundPods(s).size() == 4 && boundOnApi("b01") == 4);

        // Tenant A arrives.
        seed.podGroups().stream().filter(g -> g.arrivalCycle() > 0).forEach(fx::create);
        seed.pods().stream().filter(p -> p.arrivalCycle() > 0).forEach(fx::create);
        await("tenant A in cache", () -> s.cache().snapshot().pods().size() == 6
                && s.cache().hasPodGroup("a01/qwen2-72b-unified-pg"));

        SchedulingLoop.Outcome reclaim = s.loop().runOnce();
        List<Eviction> evictions = reclaim.result().evictions();
        assertEquals(2, evictions.size(), () -> "evictions: " + evictions);
        assertEquals(2, reclaim.report().evicted());
        for (Eviction e : evictions) {
            assertEquals("reclaim", e.action());
            assertTrue(e.pod().startsWith("b01/tenantb-heavy-training-worker-"), e.pod());
        }
        await("victims gone, and seen gone", () -> evictions.stream().allMatch(e -> fx.pod(e.pod()) == null
                && !s.cache().holdsPod(e.pod())));
        String victim = evictions.get(0).pod();
        await("a Reclaimed event names the preemptor and the rule", () -> fx.allEvents().stream()
                .anyMatch(ev -> ev.getInvolvedObject().getName().equals(victim.split("/")[1])
                        && ev.getReason().equals("Reclaimed") && ev.getMessage().contains("a01/qwen2-72b-unified-pg")
                        && ev.getMessage().contains(evictions.get(0).rule())));

        SchedulingLoop.Outcome bind = s.loop().runOnce();
        assertEquals(2, bind.report().bound(), () -> "bindings: " + bind.result().bindings());
        await("tenant A serves", () -> fx.nodeOf("a01/qwen2-72b-unified-0") != null
                && fx.nodeOf("a01/qwen2-72b-unified-0-1") != null);
        Set<String> freed = evictions.stream().map(Eviction::node).collect(Collectors.toSet());
        assertEquals(freed, Set.of(fx.nodeOf("a01/qwen2-72b-unified-0"), fx.nodeOf("a01/qwen2-72b-unified-0-1")));
        assertTrue(fx.nodeOf("b01/tenantb-heavy-training-master-0") != null, "the master keeps training");

        await("tenant A's PodGroup Running", () -> {
            VolcanoPodGroup pg = fx.podGroup("a01/qwen2-72b-unified-pg");
            return pg.getStatus() != null && "Running".equals(pg.getStatus().phase);
        });
        s.loop().runOnce();
        await("queue status shows tenant A's 16 GPUs", () -> {
            VolcanoQueue q = fx.queue("tenanta");
            return q.getStatus() != null && q.getStatus().allocated != null
                    && "16".equals(String.valueOf(q.getStatus().allocated.get("mars-tech.com/gpu")))
                    && Integer.valueOf(1).equals(q.getStatus().running);
        });
    }

    private long boundOnApi(String namespace) {
        return client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName() != null).count();
    }

    /** Bound in the informer's view, without assumptions. */
    private static List<String> boundPods(LiveScheduler s) {
        return s.cache().snapshot().pods().stream().filter(PodSpec::isBound)
                .filter(p -> s.assumed().assumedNode(p.key()) == null).map(PodSpec::key).toList();
    }
}
