package dev.arbiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.sim.SimulationResult;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code arbiter snapshot} of a cluster that serves the upstream Workload API: its {@code scheduling.k8s.io/v1beta1}
 * PodGroups and the pods' {@code spec.schedulingGroup} come along, and the snapshot simulates as the cluster is (a
 * running gang stays whole, a pending one starts on the free nodes).
 */
@EnableKubernetesMockClient(crud = true)
class LiveSnapshotWorkloadApiTest {
    KubernetesClient client;
    KubernetesMockServer server;

    @Test
    void upstreamPodGroupsAndPodsSchedulingGroupsAreKept() {
        for (String n : List.of("gpu-1", "gpu-2", "gpu-3", "gpu-4")) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(n).endMetadata().withNewStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity("8")).addToAllocatable("cpu", new Quantity("32"))
                    .endStatus().build()).create();
        }
        client.genericKubernetesResources(LiveSnapshot.QUEUES).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("scheduling.volcano.sh/v1beta1").withKind("Queue").withNewMetadata().withName("team")
                .endMetadata().addToAdditionalProperties("spec", Map.of("weight", 1)).build()).create();
        podGroup("sweep", "2026-01-01T00:00:00Z", 2, Map.of("all", Map.of()),
                List.of(Map.of("type", "PodGroupInitiallyScheduled", "status", "True", "reason", "Scheduled",
                        "message", "2 placed", "lastTransitionTime", "2026-01-01T00:00:05Z"),
                        Map.of("type", "example.com/Audited", "status", "True", "reason", "Checked", "message", "s3cr3t")));
        podGroup("train", "2026-01-01T00:01:00Z", 2, null, null);
        client.pods().inNamespace("ml").resource(pod("sweep-0", "sweep", "gpu-1", "2026-01-01T00:00:01Z")).create();
        client.pods().inNamespace("ml").resource(pod("sweep-1", "sweep", "gpu-2", "2026-01-01T00:00:01Z")).create();
        client.pods().inNamespace("ml").resource(pod("train-0", "train", null, "2026-01-01T00:01:01Z")).create();
        client.pods().inNamespace("ml").resource(pod("train-1", "train", null, "2026-01-01T00:01:01Z")).create();

        String yaml = LiveSnapshot.write(client);
        assertTrue(yaml.contains("apiVersion: scheduling.k8s.io/v1beta1"), yaml);
        assertTrue(yaml.contains("podGroupName: train"), yaml);
        for (String banned : List.of("s3cr3t", "example.com/Audited", "example.com/other", "2 placed")) {
            assertFalse(yaml.contains(banned), "snapshot contains " + banned + ":\n" + yaml);
        }
        Manifests m = ManifestLoader.parse(yaml, "snapshot");
        PodGroupSpec sweep = m.podGroups().stream().filter(g -> g.name().equals("sweep")).findFirst().orElseThrow();
        assertEquals(2, sweep.minMember());
        assertEquals("team", sweep.queue());
        assertEquals("Running", sweep.phase(), "PodGroupInitiallyScheduled True: the gang has run whole");
        assertTrue(sweep.workloadApi() != null && sweep.workloadApi().disruptAll(), () -> "disruptionMode all: " + sweep);
        PodGroupSpec train = m.podGroups().stream().filter(g -> g.name().equals("train")).findFirst().orElseThrow();
        assertEquals("Pending", train.phase());
        assertEquals(List.of("ml/sweep", "ml/sweep", "ml/train", "ml/train"), m.pods().stream()
                .map(p -> p.namespace() + "/" + p.groupName()).toList(), "each pod's group, from spec.schedulingGroup");

        SimulationResult r = Shipped.simulate(m);
        for (String p : List.of("ml/train-0", "ml/train-1")) {
            String node = r.pods().stream().filter(x -> x.pod().equals(p)).findFirst().orElseThrow().node();
            assertTrue("gpu-3".equals(node) || "gpu-4".equals(node), p + " on " + node + "; notices " + m.notices());
        }
    }

    private void podGroup(String name, String created, int minCount, Map<String, Object> disruptionMode,
                          List<Map<String, Object>> conditions) {
        Map<String, Object> spec = new java.util.LinkedHashMap<>(Map.of("schedulingPolicy", Map.of("gang", Map.of("minCount", minCount))));
        if (disruptionMode != null) spec.put("disruptionMode", disruptionMode);
        var b = new GenericKubernetesResourceBuilder().withApiVersion("scheduling.k8s.io/v1beta1").withKind("PodGroup")
                .withNewMetadata().withName(name).withNamespace("ml").withCreationTimestamp(created)
                .addToAnnotations("scheduling.volcano.sh/queue-name", "team").addToAnnotations("example.com/other", "x")
                .endMetadata().addToAdditionalProperties("spec", spec);
        if (conditions != null) b.addToAdditionalProperties("status", Map.of("conditions", conditions));
        client.genericKubernetesResources(LiveSnapshot.WORKLOAD_POD_GROUPS).inNamespace("ml").resource(b.build()).create();
    }

    private static Pod pod(String name, String group, String node, String created) {
        Pod p = new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").withCreationTimestamp(created).endMetadata()
                .withNewSpec().withSchedulerName("arbiter").withNodeName(node)
                .addNewContainer().withName("main").withNewResources().addToRequests("nvidia.com/gpu", new Quantity("8"))
                .endResources().endContainer().endSpec()
                .withNewStatus().withPhase(node == null ? "Pending" : "Running").endStatus().build();
        p.getSpec().setAdditionalProperty("schedulingGroup", Map.of("podGroupName", group));
        return p;
    }
}
