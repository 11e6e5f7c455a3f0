package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.live.LiveScheduler;
import dev.arbiter.live.VolcanoQueue;
import dev.arbiter.model.QueueUsage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A queue's decayed past usage survives a restart (issue 37, item 7): the scheduler stores each queue's sample on its
 * Volcano Queue ({@value QueueUsage#ANNOTATION}, a merge patch the shipped ClusterRole grants), and a new scheduler
 * reads it back and decays it by the time elapsed since. Queue "heavy" used a whole 8-GPU node until two minutes ago;
 * after a restart, of two equal jobs the one of "light" runs, although "heavy" comes first by name (and does without
 * the stored usage).
 */
class QueueUsageRestartRealTest extends RealClusterTest {
    @TempDir
    Path pack;

    private RuleBook fairUsage() throws IOException {
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("deploy/policies/fair-usage").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("policy.yaml"), "shares:\n  usageSamplingInterval: 1s\n");
        return RuleBook.load(pack);
    }

    private LiveScheduler scheduler(RuleBook rules) {
        LiveScheduler s = new LiveScheduler(cluster.arbiterClient(AGENT), rules, config("arbiter-test"), new SimpleMeterRegistry());
        closeAfter(s::close);
        s.startInformersOnly();
        await("caches synced", s::isReady);
        return s;
    }

    private static QueueUsage stored(String queue) {
        VolcanoQueue q = admin.resources(VolcanoQueue.class).withName(queue).get();
        String v = q == null || q.getMetadata().getAnnotations() == null ? null : q.getMetadata().getAnnotations().get(QueueUsage.ANNOTATION);
        return v == null ? null : QueueUsage.parse(v);
    }

    @Test
    void theUsageStoredOnTheQueueOutlivesTheScheduler() throws Exception {
        RuleBook rules = fairUsage();
        long before = Instant.now().getEpochSecond() - 120;
        node("n1", 16, 8);
        apply(docs(List.of("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata:
                  name: heavy
                  annotations: {arbiter.dev/usage: "%s nvidia.com/gpu=8"}
                spec: {weight: 1, reclaimable: true}
                """.formatted(Instant.ofEpochSecond(before)), queue("light", 1))));

        // 1. A scheduler samples both queues and stores the samples: "light" from none, "heavy" decayed to now.
        LiveScheduler first = scheduler(rules);
        first.loop().runOnce();
        await("both queues carry a sample of this run", () -> stored("light") != null && stored("heavy").at() > before);
        QueueUsage heavy = stored("heavy");
        assertTrue(heavy.amount("nvidia.com/gpu") < 8000 && heavy.amount("nvidia.com/gpu") > 7990,
                "8 GPUs decayed by a few minutes of a day's half-life: " + heavy);
        assertEquals(0, stored("light").amount("nvidia.com/gpu"));
        first.close();

        // 2. Two equal jobs arrive; a new scheduler (nothing carried over in memory) serves "light" first.
        cluster.namespace("usage");
        apply(docs(List.of(podGroup("usage", "heavy-job", "heavy", 1), pod("usage", "heavy-0", "heavy-job", "arbiter", 8, null),
                podGroup("usage", "light-job", "light", 1), pod("usage", "light-0", "light-job", "arbiter", 8, null))));
        LiveScheduler second = scheduler(rules);
        await("both pods seen", () -> second.cache().snapshot().pods().size() == 2);
        second.loop().runOnce();
        await("light-0 bound", () -> nodeOf("usage", "light-0") != null);
        assertEquals(null, nodeOf("usage", "heavy-0"), "the queue that used the node recently waits");
    }
}
