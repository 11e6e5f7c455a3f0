package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Watch expiry on the real server: Arbiter's API server goes down; meanwhile 50 pods are created through a second API
 * server on the same etcd and etcd's history is compacted past Arbiter's last resource version; when Arbiter's server
 * is back, its informers' watches from that version are too old (410 Gone), they list afresh, and every pod binds
 * exactly once.
 */
class WatchExpiryRealTest extends RealClusterTest {
    @Test
    void podsCreatedWhileTheWatchWasGoneAndCompactedAwayBindOnceEach() throws Exception {
        cluster.namespace("wx");
        for (int i = 0; i < 4; i++) node("wx-" + i, 64, 0);
        apply(pod("wx", "before", null, "arbiter", 0, null));
        runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(500)));
        await("the scheduler binds", () -> nodeOf("wx", "before") != null);

        KubernetesClient second = cluster.startSecondApiServer();
        closeAfter(cluster::stopSecondApiServer);
        cluster.killApiServer();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String name = "during-" + i;
            names.add(name);
            second.resourceList(pod("wx", name, null, "arbiter", 0, null)).serverSideApply();
        }
        long compacted = cluster.compactEtcd();
        long restarted = cluster.audit.mark();
        cluster.startApiServer();
        cluster.awaitServing();

        await("all 50 bound", () -> bound("wx") == 51, Duration.ofSeconds(60));
        List<AuditLog.Request> after = cluster.audit.since(restarted, r -> r.by(RealCluster.ARBITER_USER));
        assertTrue(after.stream().anyMatch(r -> "list".equals(r.verb()) && "pods".equals(r.resource())),
                () -> "the pod informer listed afresh after compaction at revision " + compacted);
        Map<String, Long> accepted = arbiterRequests().stream().filter(r -> r.on("pods", "binding") && r.code() == 201)
                .collect(Collectors.groupingBy(AuditLog.Request::name, Collectors.counting()));
        assertEquals(51, accepted.size(), () -> "pods bound: " + accepted.keySet());
        assertTrue(accepted.values().stream().allMatch(n -> n == 1), () -> "bound more than once: " + accepted);
    }
}
