package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.arbiter.live.LiveScheduler;
import org.junit.jupiter.api.Test;

/**
 * A pod's placement constraints hold after the pod is updated: a bound pod whose required anti-affinity keeps others
 * of its kind off its node goes on keeping them off once the kubelet has reported it Running (an update of its
 * status), and twin pods that differ only in their ServiceAccount token volume (every pod on a real API server) are
 * read alike. Before, the cache derived the updated pod's record without its affinity, and the second pod was bound
 * beside the first.
 */
class PlacementAfterUpdatesRealTest extends RealClusterTest {
    @Test
    void aRunningPodsAntiAffinityStillKeepsItsTwinOffItsNode() {
        cluster.namespace("pa");
        node("solo-1", 16, 0);
        LiveScheduler s = manualScheduler();
        apply(web("web-0"));
        await("web-0 in cache", () -> s.cache().snapshot().pods().size() == 1);
        assertEquals(1, s.loop().runOnce().report().bound());
        await("web-0 runs", () -> "Running".equals(admin.pods().inNamespace("pa").withName("web-0").get().getStatus().getPhase()));
        await("Arbiter sees it Running", () -> s.cache().snapshot().pods().stream()
                .anyMatch(p -> p.name().equals("web-0") && "Running".equals(p.phase())));

        apply(web("web-1"));
        await("web-1 in cache", () -> s.cache().snapshot().pods().size() == 2);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, s.loop().runOnce().report().bound(), "web-1 may not join web-0 on the only node");
        }
        assertNotNull(nodeOf("pa", "web-0"));
        assertNull(nodeOf("pa", "web-1"));
    }

    /** A pod labelled app=web that no other app=web pod may share a node with. */
    private static String web(String name) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: pa
                  labels: {app: web}
                spec:
                  schedulerName: arbiter
                  affinity:
                    podAntiAffinity:
                      requiredDuringSchedulingIgnoredDuringExecution:
                        - labelSelector: {matchLabels: {app: web}}
                          topologyKey: kubernetes.io/hostname
                  containers:
                    - name: main
                      image: registry.example.com/web:1
                      resources: {requests: {cpu: "1", memory: 1Gi}}
                """.formatted(name);
    }
}
