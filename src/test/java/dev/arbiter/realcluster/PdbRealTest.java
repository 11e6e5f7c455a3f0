package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.live.LiveScheduler;
import dev.arbiter.live.SchedulingLoop;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, fault 1, on a real API server: reclaim under a policy/v1 PodDisruptionBudget. Tenant b runs four workers
 * (one 8-GPU node each, of four); tenant a's gang of two whole nodes arrives, and reclaim takes two of b's workers.
 * No controller-manager runs, so the test writes each budget's status as the disruption controller would (no
 * disruption allowed); the API server then answers 429 to every eviction of a pod the budget selects, dry runs too.
 *
 * <p>What the audit log cannot show: the dry runs are told apart by their query ({@code ?dryRun=All}), not by their
 * body, and a budget that changes between a plan's dry runs and its real evictions (see docs) is not staged here.
 */
class PdbRealTest extends RealClusterTest {
    @Test
    void aBudgetOverOneWorkerWastesNoEvictionAndTheUnprotectedWorkerIsTaken() {
        LiveScheduler s = tenants();
        List<Eviction> planned = s.loop().plan().evictions();
        assertEquals(2, planned.size(), planned::toString);
        String guarded = planned.get(0).pod().split("/")[1];
        budget("guard-one", "worker: " + guarded);

        await("the gang binds", () -> {
            s.loop().runOnce().report();
            return nodeOf("ta", "gang-0") != null && nodeOf("ta", "gang-1") != null;
        });

        List<AuditLog.Request> evictions = evictionPosts();
        List<AuditLog.Request> real = evictions.stream().filter(r -> !r.uri().contains("dryRun=All")).toList();
        assertEquals(2, real.size(), () -> "real evictions: " + evictions);
        for (AuditLog.Request r : real) {
            assertEquals(201, r.code(), r::toString);
            assertFalse(r.name().equals(guarded), () -> "the guarded worker was asked for real: " + evictions);
        }
        assertEquals(1, evictions.stream().filter(r -> r.code() == 429).count(), () -> "429s: " + evictions);
        assertNotNull(nodeOf("tb", guarded), "the guarded worker runs on");
        assertEquals(2, admin.pods().inNamespace("tb").list().getItems().size(), "two workers evicted, not three");
    }

    @Test
    void aBudgetOverEveryWorkerCostsABoundedNumberOfRefusalsAndTheGangIsToldWhy() {
        LiveScheduler s = tenants();
        budget("guard-all", "app: b");

        // Cycles back to back for 8 s: each worker may be asked at 0 s and again once its 5 s backoff ends.
        long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        SchedulingLoop.Outcome last = null;
        int cycles = 0;
        while (System.nanoTime() < end) {
            last = s.loop().runOnce();
            last.report();
            cycles++;
        }

        List<AuditLog.Request> evictions = evictionPosts();
        int refused = (int) evictions.stream().filter(r -> r.code() == 429).count();
        assertEquals(evictions.size(), refused, () -> "every eviction POST is refused: " + evictions);
        assertTrue(refused >= 4 && refused <= 8, refused + " refusals in " + cycles + " cycles: " + evictions);
        assertEquals(4, admin.pods().inNamespace("tb").list().getItems().size(), "no worker evicted");
        String reason = reason(last, "ta/gang");
        assertTrue(reason.contains("by the Eviction API") && reason.contains("(429)"), reason);
        assertTrue(reason.contains("disruption budget"), reason);
    }

    // ---- fixture ------------------------------------------------------------------------------------------------

    private LiveScheduler tenants() {
        cluster.namespace("ta");
        cluster.namespace("tb");
        for (int i = 0; i < 4; i++) node("gpu-" + i, 32, 8);
        apply(docs(List.of(queue("qa", 1), queue("qb", 1), podGroup("tb", "train", "qb", 1))));
        kubelet.startedAgo(Duration.ofMinutes(10)); // past the churn policy's minimum runtime: b's workers may be taken
        List<String> workers = new ArrayList<>();
        for (int i = 0; i < 4; i++) workers.add(worker("train-" + i));
        apply(docs(workers));
        LiveScheduler s = manualScheduler();
        await("b in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasPodGroup("tb/train"));
        assertEquals(4, s.loop().runOnce().report().bound());
        await("b runs", () -> admin.pods().inNamespace("tb").list().getItems().stream()
                .allMatch(p -> "Running".equals(p.getStatus().getPhase())));
        apply(docs(List.of(podGroup("ta", "gang", "qa", 2), pod("ta", "gang-0", "gang", "arbiter", 8, null),
                pod("ta", "gang-1", "gang", "arbiter", 8, null))));
        await("a in cache", () -> s.cache().hasPodGroup("ta/gang") && s.cache().snapshot().pods().size() == 6);
        return s;
    }

    /** A worker of tenant b, labelled {@code app: b} and {@code worker: <name>} for the budgets to select. */
    private static String worker(String name) {
        return pod("tb", name, "train", "arbiter", 8, null).replace("  namespace: tb",
                "  namespace: tb\n  labels: {app: b, worker: " + name + "}");
    }

    /**
     * A budget in tb over the pods matching {@code selector} ("key: value") allowing no disruption, with the status
     * the disruption controller would write.
     */
    private static void budget(String name, String selector) {
        apply("""
                apiVersion: policy/v1
                kind: PodDisruptionBudget
                metadata: {name: %s, namespace: tb}
                spec:
                  maxUnavailable: 0
                  selector:
                    matchLabels: {%s}
                """.formatted(name, selector));
        var pdb = admin.policy().v1().podDisruptionBudget().inNamespace("tb").withName(name).get();
        long healthy = admin.pods().inNamespace("tb").list().getItems().stream()
                .filter(p -> p.getMetadata().getLabels() != null && selector.endsWith(": " + p.getMetadata().getLabels()
                        .get(selector.substring(0, selector.indexOf(':'))))).count();
        admin.policy().v1().podDisruptionBudget().inNamespace("tb").resource(new PodDisruptionBudgetBuilder(pdb)
                .withNewStatus().withObservedGeneration(pdb.getMetadata().getGeneration()).withDisruptionsAllowed(0)
                .withCurrentHealthy((int) healthy).withDesiredHealthy((int) healthy).withExpectedPods((int) healthy)
                .endStatus().build()).updateStatus();
    }

    private List<AuditLog.Request> evictionPosts() {
        return arbiterRequests().stream().filter(r -> r.on("pods", "eviction")).toList();
    }

    private static String reason(SchedulingLoop.Outcome o, String podGroup) {
        for (PodGroupStatus g : o.result().podGroups()) if (g.podGroup().equals(podGroup)) return String.valueOf(g.reason());
        throw new AssertionError("no status for " + podGroup);
    }
}
