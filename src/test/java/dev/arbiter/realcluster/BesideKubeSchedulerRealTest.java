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
        runningScheduler(dev.arbiter.live.LiveConfig.defaults(Set.of("arbiter"), "arbiter-test").withPeriod(Duration.ofMillis(500)));
        // kube-scheduler's pods first, before kube-scheduler runs: Arbiter sees them through several cycles and must
        // leave them alone.
        List<String> theirs = new ArrayList<>();
        List<String> ours = new ArrayList<>();
        for (int i = 0; i < EACH; i++) {
            theirs.add(pod("side", "theirs-" + i, null, "default-scheduler", 0, null));
            ours.add(pod("side", "ours-" + i, null, "arbiter", 0, null));
        }
        apply(docs(theirs));
        apply(docs(ours));
        await("Arbiter bound its own", () -> boundStartingWith("ours-") == EACH, Duration.ofSeconds(60));
        assertEquals(0, boundStartingWith("theirs-"), "kube-scheduler's pods left alone");

        Process ks = cluster.startKubeScheduler();
        closeAfter(ks::destroyForcibly);
        await("kube-scheduler bound its own", () -> boundStartingWith("theirs-") == EACH, Duration.ofSeconds(60));
        // Both running now: more of each kind arrive together.
        List<String> more = new ArrayList<>();
        for (int i = EACH; i < 2 * EACH; i++) {
            more.add(pod("side", "theirs-" + i, null, "default-scheduler", 0, null));
            more.add(pod("side", "ours-" + i, null, "arbiter", 0, null));
        }
        apply(docs(more));
        await("all bound", () -> bound("side") == 4 * EACH, Duration.ofSeconds(60));

        Set<String> boundByArbiter = cluster.audit.since(auditMark, r -> r.on("pods", "binding") && r.code() == 201
                && r.by(RealCluster.ARBITER_USER)).stream().map(AuditLog.Request::name).collect(Collectors.toSet());
        Set<String> boundByKubeScheduler = cluster.audit.since(auditMark, r -> r.on("pods", "binding") && r.code() == 201
                && r.by(RealCluster.KUBE_SCHEDULER_USER)).stream().map(AuditLog.Request::name).collect(Collectors.toSet());
        assertEquals(2 * EACH, boundByArbiter.size(), () -> "Arbiter bound " + boundByArbiter);
        assertTrue(boundByArbiter.stream().allMatch(n -> n.startsWith("ours-")), () -> "Arbiter bound " + boundByArbiter);
        assertEquals(2 * EACH, boundByKubeScheduler.size(), () -> "kube-scheduler bound " + boundByKubeScheduler);
        assertTrue(boundByKubeScheduler.stream().allMatch(n -> n.startsWith("theirs-")),
                () -> "kube-scheduler bound " + boundByKubeScheduler);
        assertEquals(List.of(), cluster.audit.since(auditMark, r -> r.by(RealCluster.ARBITER_USER)
                && r.on("pods", "binding") && r.code() != 201), "Arbiter's refused bindings");
    }

    private static long boundStartingWith(String prefix) {
        return admin.pods().inNamespace("side").list().getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith(prefix) && p.getSpec().getNodeName() != null).count();
    }
}
