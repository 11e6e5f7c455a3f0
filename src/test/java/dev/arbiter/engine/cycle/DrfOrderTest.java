package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Orders;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.scenario.ClusterBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DRF inside a queue: with {@code order.jobs: [priority desc, share asc, ...]} jobs of equal priority go in order of
 * their dominant resource share (Volcano's {@code drf} plugin's job order, after its {@code priority} plugin as in
 * Volcano's default tiers), lowest first; the shipped order (creation) is unchanged. The shares are those of
 * Volcano's {@code drf_test.go}-style arithmetic: the largest fraction of the cluster's total a job's running pods
 * hold.
 */
class DrfOrderTest {
    @TempDir
    Path dir;

    /** a/big (older) holds 2 of 3 nodes and wants a third; a/small (newer) holds nothing and wants one. */
    private static ClusterSnapshot oneFreeNode() {
        return ClusterBuilder.cluster().nodes(3, "nvidia.com/gpu", 8, "cpu", 32)
                .job("a/big").pods(3, "nvidia.com/gpu", 8).minMember(1).running("node-1", "node-2").startedAt(0).end()
                .job("a/small").pods(1, "nvidia.com/gpu", 8).end().snapshot(1000);
    }

    private RuleBook drf() throws IOException {
        Files.writeString(dir.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(dir.resolve("policy.yaml"), "order:\n  jobs: [priority desc, share asc, creation asc, name asc]\n");
        return RuleBook.load(dir);
    }

    @Test
    void theJobWithTheLowerDominantShareGoesFirst() throws IOException {
        CycleResult r = new Scheduler(drf(), SchedulerConfig.simulatorDefault()).schedule(oneFreeNode(), 1);
        assertEquals(List.of("a/small-0"), r.bindings().stream().map(b -> b.pod()).toList());
    }

    @Test
    void theShippedOrderServesTheOlderJobFirst() {
        CycleResult r = Shipped.cycle(oneFreeNode());
        assertEquals(List.of("a/big-2"), r.bindings().stream().map(b -> b.pod()).toList());
    }

    @Test
    void aJobsDominantShareIsItsLargestFractionOfTheCluster() {
        // 3 nodes of 8 GPUs and 32 cpus: a/big's two running pods hold 16 of 24 GPUs (2/3) and no cpu.
        dev.arbiter.engine.state.WorkingCluster s = dev.arbiter.engine.state.WorkingCluster.index(oneFreeNode(),
                java.util.Set.of("arbiter", "volcano"), java.util.Set.of("pods"));
        java.util.function.ToDoubleFunction<Job> share = Orders.dominantShares(s.jobs.values(), s.clusterTotal);
        assertEquals(2.0 / 3, share.applyAsDouble(s.jobs.get("a/big")), 1e-9);
        assertEquals(0.0, share.applyAsDouble(s.jobs.get("a/small")));
        assertEquals(1.0, Resources.of("nvidia.com/gpu", 1).dominantShare(Resources.of("cpu", 1)),
                "a resource the cluster has none of counts as all of it (Volcano's helpers.Share)");
    }

    @Test
    void shareIsAWordOfTheJobOrder() {
        assertEquals(PolicySettings.defaults().orders().jobs().size(), 3, "the shipped order leaves shares out");
    }
}
