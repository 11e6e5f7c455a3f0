package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Placement constraints on a live (mock) cluster: the informers read affinity and namespace labels, a pod that fits no
 * node says why in kube-scheduler's words in its FailedScheduling event, and a namespaceSelector sees the labels of
 * the Namespace objects.
 */
class PlacementLiveTest extends LiveClusterTest {
    private static NodeSpec labelled(String name, String key, String value) {
        NodeSpec n = node(name, 8);
        return new NodeSpec(n.name(), Map.of("kubernetes.io/hostname", name, key, value), n.taints(), false, n.allocatable(), 0);
    }

    /** A pending pod of scheduler arbiter with one GPU, as {@link LiveFixture#podObject} makes it, changed by {@code edit}. */
    private void createPod(String ns, String name, Map<String, String> labels, java.util.function.UnaryOperator<PodBuilder> edit) {
        PodSpec p = LiveFixture.pod(ns, name, "arbiter", 1, null);
        Pod pod = edit.apply(new PodBuilder(LiveFixture.podObject(p)).editMetadata().withLabels(labels).endMetadata()).build();
        fx.expectSubresources(ns, name);
        client.pods().inNamespace(ns).resource(pod).create();
    }

    @Test
    void aPodItsNodeAffinityKeepsOffEveryNodeSaysWhyInItsEvent() {
        fx.create(labelled("node-1", "gpu", "a100"));
        createPod("lab", "h100-only", Map.of(), b -> b.editSpec().withNewAffinity().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey("gpu").withOperator("In").withValues("h100").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity().endSpec());
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().snapshot().pods().size() == 1 && s.cache().snapshot().nodes().size() == 1);
        assertTrue(s.cache().snapshot().pods().get(0).placement().nodeAffinity().required() != null, "the informer reads affinity");

        s.loop().runOnce();
        await("a FailedScheduling event", () -> fx.events("lab/h100-only").stream().anyMatch(e -> e.startsWith("FailedScheduling: ")));
        String event = fx.events("lab/h100-only").stream().filter(e -> e.startsWith("FailedScheduling: ")).findFirst().orElseThrow();
        assertTrue(event.contains("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector"), event);
        assertEquals(null, fx.pod("lab/h100-only").getSpec().getNodeName());
    }

    @Test
    void aNamespaceSelectorSeesTheLabelsOfTheNamespaceObjects() {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("serving")
                .withLabels(Map.of("team", "inference")).endMetadata().build()).create();
        fx.create(node("node-1", 8));
        fx.create(node("node-2", 8));
        // A serving replica runs on node-1; the new pod keeps off nodes with pods of any team=inference namespace.
        PodSpec replica = LiveFixture.pod("serving", "replica", "arbiter", 1, null);
        fx.create(new PodSpec(replica.namespace(), replica.name(), replica.schedulerName(), "node-1", "Running", null, null,
                null, replica.requests(), Map.of(), List.of(), Map.of("app", "chat"), Map.of(), 0, 0, false));
        createPod("lab", "loner", Map.of(), b -> b.editSpec().withNewAffinity().withNewPodAntiAffinity()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution().withNewLabelSelector().addToMatchLabels("app", "chat")
                .endLabelSelector().withNewNamespaceSelector().addToMatchLabels("team", "inference").endNamespaceSelector()
                .withTopologyKey("kubernetes.io/hostname").endRequiredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity().endAffinity().endSpec());
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().snapshot().nodes().size() == 2
                && s.cache().snapshot().namespaceLabels().containsKey("serving"));
        assertEquals(Map.of("team", "inference", "kubernetes.io/metadata.name", "serving"),
                s.cache().snapshot().namespaceLabels().get("serving"));

        s.loop().runOnce();
        await("bound", () -> fx.pod("lab/loner").getSpec().getNodeName() != null);
        assertEquals("node-2", fx.pod("lab/loner").getSpec().getNodeName(), "binpack alone would take node-1");
    }
}
