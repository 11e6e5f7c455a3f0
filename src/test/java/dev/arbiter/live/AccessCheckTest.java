package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.runtime.KubeClients;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import org.junit.jupiter.api.Test;

/**
 * The start-up access check ({@link LiveScheduler#checkAccess}): it lists one of each kind the informers need, and a
 * refusal is one line naming the kind (the first refused, in the check's order), missing Volcano CRDs with the fix.
 */
class AccessCheckTest extends LiveClusterTest {
    private void refuse(String path, int code, String reason) {
        server.expect().get().withPath(path + "?limit=1").andReturn(code, new StatusBuilder().withStatus("Failure")
                .withReason(reason).withCode(code).withMessage(reason).build()).always();
    }

    /** The check on a client that does not retry, as {@code run}'s ({@link KubeClients#config}). */
    private void check() {
        io.fabric8.kubernetes.client.Config config = new io.fabric8.kubernetes.client.ConfigBuilder(client.getConfiguration())
                .withRequestRetryBackoffLimit(0).build();
        try (var noRetries = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build()) {
            LiveScheduler.checkAccess(noRetries);
        }
    }

    @Test
    void aClusterThatLetsEverythingBeListedPasses() {
        check();
    }

    @Test
    void missingVolcanoCrdsAreNamedWithTheFix() {
        refuse("/apis/scheduling.volcano.sh/v1beta1/podgroups", 404, "NotFound");
        KubeClients.ClusterUnavailable e = assertThrows(KubeClients.ClusterUnavailable.class, () -> check());
        assertTrue(e.getMessage().endsWith(": no podgroups.scheduling.volcano.sh: install the CRDs (deploy/crds) or Volcano"),
                e.getMessage());
    }

    @Test
    void ofSeveralRefusalsTheFirstInTheChecksOrderIsSaid() {
        refuse("/apis/scheduling.volcano.sh/v1beta1/queues", 404, "NotFound");
        refuse("/api/v1/pods", 404, "NotFound");
        KubeClients.ClusterUnavailable e = assertThrows(KubeClients.ClusterUnavailable.class, () -> check());
        assertTrue(e.getMessage().contains("(listing pods)"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
