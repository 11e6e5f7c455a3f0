package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.arbiter.decision.Eviction;
import dev.arbiter.live.LiveScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A reclaimed victim that takes its time to terminate (its pod stays Terminating, holding its GPUs, as a real kubelet
 * does during the grace period): the reclaimer waits, evicts nothing more, binds nothing on the victim's node while
 * the victim holds it, and binds there once the pod is gone.
 */
class TerminatingVictimRealTest extends RealClusterTest {
    @Test
    void theReclaimerWaitsForItsVictimToLeaveAndBindsOnceWithNoDoubleBooking() {
        cluster.namespace("ta");
        cluster.namespace("tb");
        node("gpu-1", 32, 8);
        node("gpu-2", 32, 8);
        apply(docs(List.of(queue("qa", 1), queue("qb", 1))));
        kubelet.startedAgo(Duration.ofMinutes(10));
        apply(docs(List.of(podGroup("tb", "train", "qb", 1),
                pod("tb", "train-0", "train", "arbiter", 8, null), pod("tb", "train-1", "train", "arbiter", 8, null))));
        LiveScheduler s = manualScheduler();
        await("B in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().hasPodGroup("tb/train"));
        assertEquals(2, s.loop().runOnce().report().bound());
        await("B runs", () -> admin.pods().inNamespace("tb").list().getItems().stream()
                .allMatch(p -> "Running".equals(p.getStatus().getPhase())));

        kubelet.holdTermination(true);
        apply(docs(List.of(podGroup("ta", "serve", "qa", 1), pod("ta", "serve-0", "serve", "arbiter", 8, null))));
        await("A in cache", () -> s.cache().hasPodGroup("ta/serve") && s.cache().snapshot().pods().size() == 3);
        List<Eviction> evictions = s.loop().runOnce().result().evictions();
        assertEquals(1, evictions.size(), () -> "evictions: " + evictions);
        String victim = evictions.get(0).pod().split("/")[1];
        String freed = evictions.get(0).node();
        await("the victim is Terminating", () -> admin.pods().inNamespace("tb").withName(victim).get()
                .getMetadata().getDeletionTimestamp() != null);
        await("Arbiter sees it Terminating", () -> s.cache().snapshot().pods().stream()
                .anyMatch(p -> p.key().equals("tb/" + victim) && p.terminating()));

        for (int i = 0; i < 5; i++) {
            var outcome = s.loop().runOnce();
            assertEquals(0, outcome.report().bound(), "nothing binds while the victim holds its GPUs");
            assertEquals(List.of(), outcome.result().evictions(), "no second victim for the same need");
        }
        assertNull(nodeOf("ta", "serve-0"));

        kubelet.holdTermination(false);
        await("the victim is gone", () -> admin.pods().inNamespace("tb").withName(victim).get() == null);
        await("A binds on the freed node", () -> {
            s.loop().runOnce();
            return nodeOf("ta", "serve-0") != null;
        });
        assertEquals(freed, nodeOf("ta", "serve-0"));
        assertNotNull(nodeOf("tb", victim.equals("train-0") ? "train-1" : "train-0"), "the other B pod keeps running");
        List<AuditLog.Request> evictionPosts = arbiterRequests().stream().filter(r -> r.on("pods", "eviction")).toList();
        assertEquals(1, evictionPosts.size(), () -> "eviction requests: " + evictionPosts);
        List<AuditLog.Request> binds = arbiterRequests().stream().filter(r -> r.on("pods", "binding")).toList();
        assertEquals(3, binds.size(), () -> "binding requests: " + binds);
    }
}
