package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.HyperNodeSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Network topology on a live (mock) cluster: HyperNodes arrive through their informer and keep a hard gang inside one
 * rack; a cluster without the HyperNode CRD still schedules, and says once that it has no HyperNodes.
 */
class TopologyLiveTest extends LiveClusterTest {
    private void createHyperNode(String name, int tier, String... nodes) {
        VolcanoHyperNode h = new VolcanoHyperNode();
        h.setMetadata(new ObjectMetaBuilder().withName(name).build());
        VolcanoHyperNode.Spec spec = new VolcanoHyperNode.Spec();
        spec.putExtra("tier", tier);
        List<Map<String, Object>> members = new java.util.ArrayList<>();
        for (String n : nodes) members.add(Map.of("type", "Node", "selector", Map.of("exactMatch", Map.of("name", n))));
        spec.putExtra("members", members);
        h.setSpec(spec);
        client.resources(VolcanoHyperNode.class).resource(h).create();
    }

    /** PodGroup ml/train of {@code size} 8-GPU pods, hard within tier 1. */
    private void createTrainingGang(int size) {
        VolcanoPodGroup pg = new VolcanoPodGroup();
        pg.setMetadata(new ObjectMetaBuilder().withNamespace("ml").withName("train").build());
        VolcanoPodGroup.Spec spec = new VolcanoPodGroup.Spec();
        spec.minMember = size;
        spec.queue = "default";
        spec.putExtra("networkTopology", Map.of("mode", "hard", "highestTierAllowed", 1));
        pg.setSpec(spec);
        client.resources(VolcanoPodGroup.class).inNamespace("ml").resource(pg).create();
        for (int i = 0; i < size; i++) fx.create(LiveFixture.pod("ml", "train-" + i, "arbiter", 8, "train"));
    }

    @Test
    void hyperNodesFromTheInformerKeepAHardGangInsideOneRack() {
        for (int i = 1; i <= 4; i++) fx.create(node("node-" + i, 8));
        // Binpack alone would take node-1 and node-2, across the racks.
        createHyperNode("rack-a", 1, "node-1", "node-3");
        createHyperNode("rack-b", 1, "node-2", "node-4");
        fx.create(LiveFixture.pod("ops", "busy", "arbiter", 8, null));
        createTrainingGang(2);
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().snapshot().hyperNodes().size() == 2 && s.cache().snapshot().pods().size() == 3);
        assertEquals(new HyperNodeSpec("rack-a", 1, List.of(new HyperNodeSpec.Member(HyperNodeSpec.MemberType.NODE,
                "node-1", null, null), new HyperNodeSpec.Member(HyperNodeSpec.MemberType.NODE, "node-3", null, null))),
                s.cache().snapshot().hyperNodes().get(0));

        // The busy pod came first and took node-1: rack-a has room for one pod, rack-b for two.
        s.loop().runOnce();
        await("all bound", () -> fx.nodeOf("ops/busy") != null && fx.nodeOf("ml/train-0") != null
                && fx.nodeOf("ml/train-1") != null);
        assertEquals("node-1", fx.nodeOf("ops/busy"));
        assertEquals(Set.of("node-2", "node-4"), new TreeSet<>(List.of(fx.nodeOf("ml/train-0"), fx.nodeOf("ml/train-1"))));
        assertNull(s.cache().hyperNodesAbsent());

        client.resources(VolcanoHyperNode.class).withName("rack-b").delete();
        await("a deleted HyperNode leaves the snapshot", () -> s.cache().snapshot().hyperNodes().size() == 1);
    }

    @Test
    void withoutTheHyperNodeCrdTheSchedulerRunsAndSaysSo() {
        for (String query : List.of("?resourceVersion=0", "?limit=1")) {
            server.expect().get().withPath("/apis/topology.volcano.sh/v1alpha1/hypernodes" + query)
                    .andReturn(404, new StatusBuilder().withStatus("Failure").withReason("NotFound").withCode(404)
                            .withMessage("the server could not find the requested resource").build()).always();
        }
        server.expect().get().withPath("/apis/topology.volcano.sh/v1alpha1/hypernodes")
                .andReturn(404, new StatusBuilder().withStatus("Failure").withReason("NotFound").withCode(404)
                        .withMessage("the server could not find the requested resource").build()).always();
        fx.create(node("node-1", 8));
        fx.create(LiveFixture.pod("ops", "job", "arbiter", 8, null));
        LiveScheduler s = fx.manualScheduler();
        await("told", () -> s.cache().hyperNodesAbsent() != null);
        assertEquals("cannot list HyperNodes (topology.volcano.sh/v1alpha1): the HyperNode CRD is not installed (404);"
                + " running without HyperNodes (topology comes from node labels only); asking again every 30 s",
                s.cache().hyperNodesAbsent());
        assertTrue(s.cache().isHealthy(), "a missing HyperNode CRD does not make the cache unhealthy");
        s.loop().runOnce();
        await("bound", () -> fx.nodeOf("ops/job") != null);
    }

    /**
     * A cluster with nothing in it gives the informers no event to start a cycle with; the HyperNode informer's first
     * list, which ends after the others', must then ask for one, or the first cycle waits for the period (10 minutes in
     * these tests, where it made the seed story time out now and then).
     */
    @Test
    void readingTheHyperNodesAsksForACycle() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        try (ClusterCache cache = new ClusterCache(client, new AssumeCache(java.time.Duration.ofSeconds(30)),
                asked::incrementAndGet)) {
            cache.start();
            await("synced", cache::hasSynced);
            await("a cycle asked for", () -> asked.get() > 0);
            assertNull(cache.hyperNodesAbsent(), "the mock server lists HyperNodes (there are none)");
        }
    }
}
