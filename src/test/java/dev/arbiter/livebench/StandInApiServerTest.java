package dev.arbiter.livebench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The stand-in answers a fabric8 client the way the scheduler uses it: CRUD, informers, binding, 409s, faults. */
class StandInApiServerTest {
    @Test
    void aFabric8ClientCanCreateWatchBindAndIsToldWhenAPodIsAlreadyBound() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ofMillis(2));
             KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
            List<String> seen = new CopyOnWriteArrayList<>();
            SharedIndexInformer<Pod> informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod p) {
                    seen.add("add " + p.getMetadata().getName());
                }

                @Override
                public void onUpdate(Pod o, Pod n) {
                    seen.add("update " + n.getMetadata().getName() + " " + n.getSpec().getNodeName());
                }

                @Override
                public void onDelete(Pod p, boolean unknown) {
                    seen.add("delete " + p.getMetadata().getName());
                }
            }, 0);
            client.pods().inNamespace("team").resource(new PodBuilder().withNewMetadata().withName("p").endMetadata()
                    .withNewSpec().addNewContainer().withName("c").withImage("i").endContainer().endSpec().build()).create();
            Binding b = new BindingBuilder().withNewMetadata().withName("p").endMetadata().withNewTarget().withKind("Node")
                    .withName("n1").endTarget().build();
            client.raw(api.url() + "/api/v1/namespaces/team/pods/p/binding", "POST", b);
            KubernetesClientException again = null;
            try {
                client.bindings().inNamespace("team").resource(b).create();
            } catch (KubernetesClientException e) {
                again = e;
            }
            assertNotNull(again);
            await(() -> seen.contains("update p n1"));
            assertEquals("n1", client.pods().inNamespace("team").withName("p").get().getSpec().getNodeName());
            assertEquals(List.of("add p", "update p n1"), seen);
            assertEquals(1, client.nodes().list().getItems().size());
            informer.stop();
            Node n = client.nodes().withName("n1").get();
            assertNotNull(n.getMetadata().getUid());
            assertNull(api.get("pods", "team/nope"));
            assertTrue(api.requests("POST pods/binding") >= 1, api.requestCounts().toString());
            assertEquals(Map.of(), Map.of());
        }
    }

    private static void await(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out");
            Thread.sleep(10);
        }
    }
}
