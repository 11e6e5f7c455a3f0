package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.usage.UsageRanks;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.QueueUsage;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.scenario.ClusterBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queues ranked by decayed past usage ({@code shares.usageHalfLife} with the queue order key {@code usage}), translated
 * from Kueue's {@code pkg/scheduler/scheduler_afs_test.go} {@code TestScheduleForAFS}: one ClusterQueue of 8 cpus, its
 * LocalQueues {@code lq-a}, {@code lq-b}, {@code lq-c} of weight 1 become Volcano queues of weight 1 sharing one 8-cpu
 * node; Kueue's {@code initialUsage} is the stored usage the snapshot carries; half-life 10s, sampling 1s as there.
 * A workload is a one-pod job; "admitted" is bound.
 */
class UsageOrderTest {
    @TempDir
    Path dir;

    private static final long NOW = 1000;

    private RuleBook usagePolicy() throws IOException {
        Files.writeString(dir.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(dir.resolve("policy.yaml"), """
                shares:
                  usageHalfLife: 10s
                  usageSamplingInterval: 1s
                order:
                  queues: [priority desc, usage asc, share asc, name asc]
                """);
        return RuleBook.load(dir);
    }

    /** One 8-cpu node, queues lq-a, lq-b, lq-c; the jobs (name, queue, cpus) in creation order. */
    private static ClusterSnapshot cluster(Map<String, Integer> usedCpus, String... jobs) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 8);
        for (String q : List.of("lq-a", "lq-b", "lq-c")) c.queue(q).weight(1).end();
        for (String j : jobs) {
            String[] f = j.split(" ");
            c.job("default/" + f[0]).queue(f[1]).pods(1, "cpu", Integer.parseInt(f[2])).end();
        }
        Map<String, QueueUsage> stored = new HashMap<>();
        usedCpus.forEach((q, cpus) -> stored.put(q, new QueueUsage(Map.of("cpu", cpus * 1000.0), NOW)));
        return c.snapshot(NOW).withUsage(stored);
    }

    private Set<String> bound(ClusterSnapshot s) throws IOException {
        return Shipped.bound(new Scheduler(usagePolicy(), SchedulerConfig.simulatorDefault()).schedule(s, 1));
    }

    @Test
    void admitsWorkloadFromLessActiveLocalQueue() throws IOException {
        ClusterSnapshot s = cluster(Map.of("lq-a", 8, "lq-b", 2), "wl-a1 lq-a 8", "wl-b1 lq-b 8");
        assertEquals(Set.of("default/wl-b1-0"), bound(s));
    }

    @Test
    void withoutAfsClassicAdmissionDecisionIgnoresQueueUsage() {
        ClusterSnapshot s = cluster(Map.of("lq-a", 8, "lq-b", 2), "wl-a1 lq-a 8", "wl-b1 lq-b 8");
        CycleResult r = Shipped.cycle(s);
        assertEquals(Set.of("default/wl-a1-0"), Shipped.bound(r));
        assertTrue(r.usage().isEmpty(), "the shipped policy samples nothing");
    }

    @Test
    void admitsOneWorkloadFromEachLocalQueueWhenQuotaIsLimited() throws IOException {
        ClusterSnapshot s = cluster(Map.of("lq-a", 4, "lq-b", 4), "wl-a1 lq-a 4", "wl-a2 lq-a 4", "wl-b1 lq-b 4", "wl-b2 lq-b 4");
        assertEquals(Set.of("default/wl-a1-0", "default/wl-b1-0"), bound(s));
    }

    @Test
    void schedulesNormallyWhenQueuesHaveEqualUsage() throws IOException {
        ClusterSnapshot s = cluster(Map.of("lq-a", 2, "lq-b", 2, "lq-c", 2), "wl-a1 lq-a 4", "wl-b1 lq-b 3", "wl-c1 lq-c 1");
        assertEquals(Set.of("default/wl-a1-0", "default/wl-b1-0", "default/wl-c1-0"), bound(s));
    }

    @Test
    void admitsWorkloadFromLqBWithUninitializedCache() throws IOException {
        // lq-b has no stored usage: it starts from none.
        ClusterSnapshot s = cluster(Map.of("lq-a", 8), "wl-a1 lq-a 8", "wl-b1 lq-b 8");
        assertEquals(Set.of("default/wl-b1-0"), bound(s));
    }

    @Test
    void aCycleStoresASampleForEveryQueueThatHadNoneOrAnOldOne() throws IOException {
        // lq-a sampled 0.5 s ago (under the 1 s interval): no new sample; lq-b none: sampled now, from nothing.
        ClusterSnapshot s = cluster(Map.of(), "wl-a1 lq-a 8").withUsage(Map.of("lq-a", new QueueUsage(Map.of("cpu", 8000.0), NOW)));
        CycleResult r = new Scheduler(usagePolicy(), SchedulerConfig.simulatorDefault()).schedule(s, 1);
        assertTrue(!r.usage().containsKey("lq-a"), "a sample younger than the interval is kept");
        assertEquals(QueueUsage.none(NOW), r.usage().get("lq-b"));
    }

    // ---- The ranks themselves (UsageRanks) ---------------------------------------------------------------------------

    private static final PolicySettings.Shares TEN_SECONDS =
            new PolicySettings.Shares(Set.of("pods"), Duration.ofSeconds(10), Duration.ofSeconds(1));

    private static WorkingCluster indexed(ClusterSnapshot s) {
        return WorkingCluster.index(s, Set.of("arbiter", "volcano"), Set.of("pods"));
    }

    @Test
    void whatAQueueStartsThisCycleCountsAtOnceAsOneSamplingIntervalWouldCountIt() {
        // Kueue's entry penalty: requests × alpha(sampling, half-life). lq-a and lq-b used 4 cpus each; lq-a starts 4.
        WorkingCluster s = indexed(cluster(Map.of("lq-a", 4, "lq-b", 4)));
        UsageRanks ranks = new UsageRanks(s.queues.values(), Map.of("lq-a", new QueueUsage(Map.of("cpu", 4000.0), NOW),
                "lq-b", new QueueUsage(Map.of("cpu", 4000.0), NOW)), NOW, s.clusterTotal, TEN_SECONDS);
        QueueState a = s.queues.get("lq-a"), b = s.queues.get("lq-b");
        assertEquals(ranks.rank(a), ranks.rank(b));
        a.charge(Resources.of("cpu", 4));
        double alpha = 1 - Math.pow(0.5, 0.1);
        assertEquals((4000 + 4000 * alpha) / 8000, ranks.rank(a), 1e-12);
        assertTrue(ranks.rank(a) > ranks.rank(b), "the queue that just started work now ranks after");
    }

    @Test
    void localQueueDecayingUsageIsNotReconciledIfNotEnoughTimeHasPassed() {
        // Stored 4 min ago with a 5 min interval: no sample is due, but the rank still decays to now.
        WorkingCluster s = indexed(cluster(Map.of()));
        PolicySettings.Shares fiveMinutes = new PolicySettings.Shares(Set.of("pods"), Duration.ofMinutes(5), Duration.ofMinutes(5));
        UsageRanks ranks = new UsageRanks(s.queues.values(), Map.of("lq-a", new QueueUsage(Map.of("cpu", 8000.0), NOW - 240)),
                NOW, s.clusterTotal, fiveMinutes);
        assertTrue(!ranks.samples().containsKey("lq-a"));
        assertEquals(Math.pow(0.5, 0.8), ranks.rank(s.queues.get("lq-a")), 1e-12);
    }

    @Test
    void aQueueWithTwiceTheWeightRanksAsIfItHadUsedHalf() {
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(1, "cpu", 8).queue("heavy").weight(2).end().queue("light").end()
                .snapshot(NOW).withUsage(Map.of("heavy", new QueueUsage(Map.of("cpu", 4000.0), NOW),
                        "light", new QueueUsage(Map.of("cpu", 2000.0), NOW)));
        WorkingCluster s = indexed(snap);
        UsageRanks ranks = new UsageRanks(s.queues.values(), snap.usage(), NOW, s.clusterTotal, TEN_SECONDS);
        assertEquals(ranks.rank(s.queues.get("light")), ranks.rank(s.queues.get("heavy")), 1e-12);
    }
}
