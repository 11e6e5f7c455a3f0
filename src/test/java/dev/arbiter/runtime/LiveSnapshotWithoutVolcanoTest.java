package dev.arbiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

/** A cluster without Volcano's CRDs still snapshots: no Queues or PodGroups, and the file says why. */
@EnableKubernetesMockClient
class LiveSnapshotWithoutVolcanoTest {
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    KubernetesClient client;
    KubernetesMockServer server;

    @Test
    void missingVolcanoCrdsLeaveANoteInsteadOfFailing() {
        server.expect().get().withPath("/api/v1/nodes").andReturn(200, new NodeListBuilder().addToItems(new NodeBuilder()
                .withNewMetadata().withName("n1").endMetadata().withNewStatus()
                .addToAllocatable("cpu", new Quantity("8")).endStatus().build()).build()).once();
        server.expect().get().withPath("/api/v1/pods").andReturn(200, new PodListBuilder().build()).once();
        server.expect().get().withPath("/apis/scheduling.k8s.io/v1/priorityclasses")
                .andReturn(200, new PriorityClassListBuilder().build()).once();
        for (String plural : new String[] {"queues", "podgroups"}) {
            server.expect().get().withPath("/apis/scheduling.volcano.sh/v1beta1/" + plural)
                    .andReturn(404, new StatusBuilder().withCode(404).withReason("NotFound").build()).once();
        }
        String yaml = LiveSnapshot.write(client);
        assertTrue(yaml.contains("# no Volcano Queues (the scheduling.volcano.sh CRDs are not installed)"), yaml);
        assertTrue(yaml.contains("# no Volcano PodGroups"), yaml);
        assertTrue(yaml.contains("# no Workload API PodGroups (the API server does not serve scheduling.k8s.io/v1beta1 podgroups)"), yaml);
        Manifests m = ManifestLoader.parse(yaml, "snapshot");
        assertEquals(1, m.nodes().size());
    }
}
