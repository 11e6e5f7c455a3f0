package dev.arbiter.live;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The live tests' common set-up: a fresh CRUD mock API server per test (fabric8 fills the two fields, here in the
 * superclass too) and a {@link LiveFixture} on it, closed after the test.
 *
 * <p>Why a mock, now that the real-cluster suite ({@code dev.arbiter.realcluster}) runs Arbiter against a real
 * kube-apiserver: the tests built on this class script what a real server cannot be made to do on demand — a bind
 * refused on its third attempt, an answer lost after the write was applied, a binding that takes 2 s, a watch closed
 * mid-event — and each runs in milliseconds where a real-server test takes seconds. Where a case is covered on both
 * (the seed story, PodDisruptionBudgets, leader takeover, watch recovery, status writes), the mock test names its
 * real-server counterpart and the two assert the same outcome; {@code docs/operations.md} lists what the mock
 * assumed that the real server showed otherwise.
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
