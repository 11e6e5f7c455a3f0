package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Arbiter ({@code --scheduler-name=arbiter}) and the release's kube-scheduler on one cluster: each binds only the pods
 * that name it, and every pod is bound once.
 */
class BesideKubeSchedulerRealTest extends RealClusterTest {
    static final int EACH = 20;

    @Test
    void eachSchedulerBindsOnlyItsOwnPods() throws Exception {
        cluster.namespace("side");
        for (int i = 0; i < 4; i++) node("side-" + i, 64, 0);
        Process ks = cluster.startKubeScheduler();
        closeAfter(ks::destroyForcibly);
        runningScheduler(dev.arbiter.live.LiveConfig.defaults(Set.of("arbiter"), "arbiter-test").withPeriod(Duration.ofMillis(500)));
        List<String> docs = new ArrayList<>();
        for (int i = 0; i < EACH; i++) {
            docs.add(pod("side", "ours-" + i, null, "arbiter", 0, null));
            docs.add(pod("side", "theirs-" + i, null, "default-scheduler", 0, null));
        }
        apply(docs(docs));
        await("all bound", () -> admin.pods().inNamespace("side").list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName() != null).count() == 2 * EACH, Duration.ofSeconds(60));

        Set<String> boundByArbiter = cluster.audit.since(auditMark, r -> r.on("pods", "binding") && r.code() == 201
                && r.by(RealCluster.ARBITER_USER)).stream().map(AuditLog.Request::name).collect(Collectors.toSet());
        Set<String> boundByKubeScheduler = cluster.audit.since(auditMark, r -> r.on("pods", "binding") && r.code() == 201
                && r.by(RealCluster.KUBE_SCHEDULER_USER)).stream().map(AuditLog.Request::name).collect(Collectors.toSet());
        assertEquals(EACH, boundByArbiter.size(), () -> "Arbiter bound " + boundByArbiter);
        assertTrue(boundByArbiter.stream().allMatch(n -> n.startsWith("ours-")), () -> "Arbiter bound " + boundByArbiter);
        assertEquals(EACH, boundByKubeScheduler.size(), () -> "kube-scheduler bound " + boundByKubeScheduler);
        assertTrue(boundByKubeScheduler.stream().allMatch(n -> n.startsWith("theirs-")),
                () -> "kube-scheduler bound " + boundByKubeScheduler);
        assertEquals(List.of(), cluster.audit.since(auditMark, r -> r.by(RealCluster.ARBITER_USER)
                && r.on("pods", "binding") && r.code() != 201), "Arbiter's refused bindings");
    }
}
