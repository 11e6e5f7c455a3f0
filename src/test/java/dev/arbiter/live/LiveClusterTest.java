package dev.arbiter.live;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The live tests' common set-up: a fresh CRUD mock API server per test (fabric8 fills the two fields, here in the
 * superclass too) and a {@link LiveFixture} on it, closed after the test.
 */
@EnableKubernetesMockClient(crud = true)
abstract class LiveClusterTest {
    KubernetesMockServer server;
    KubernetesClient client;
    LiveFixture fx;

    @BeforeEach
    void openFixture() {
        fx = new LiveFixture(server, client);
    }

    @AfterEach
    void closeFixture() {
        fx.close();
    }
}
