package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.queue;
import static dev.arbiter.engine.cycle.Shipped.units;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** fair-share.drl: deserved shares by weighted water-filling, capped by request and capability; overused. */
class FairShareRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    /** One case: queue weights, GPUs each queue asks for, optional GPU capability (0 = none), expected deserved. */
    record Case(int[] weights, int[] requests, int[] capabilities, int[] expected) {}

    static Stream<Arguments> cases() {
        return Stream.of(
                c("weights 1:1 split 32 GPUs 16/16", new int[] {1, 1}, new int[] {32, 32}, new int[] {0, 0}, new int[] {16, 16}),
                c("weights 1:3 split 32 GPUs 8/24", new int[] {1, 3}, new int[] {32, 32}, new int[] {0, 0}, new int[] {8, 24}),
                c("weights 2:1:1 split 32 GPUs 16/8/8", new int[] {2, 1, 1}, new int[] {32, 32, 32}, new int[] {0, 0, 0}, new int[] {16, 8, 8}),
                c("a queue asking for less than its part leaves the rest to others", new int[] {1, 1}, new int[] {8, 32}, new int[] {0, 0}, new int[] {8, 24}),
                c("unequal weights with a capped request redistribute the surplus", new int[] {3, 1}, new int[] {8, 32}, new int[] {0, 0}, new int[] {8, 24}),
                c("capability caps the deserved share", new int[] {1, 1}, new int[] {32, 32}, new int[] {4, 0}, new int[] {4, 28}),
                c("a queue with no demand deserves nothing", new int[] {1, 1}, new int[] {0, 32}, new int[] {0, 0}, new int[] {0, 32}),
                c("demand below the cluster is fully deserved", new int[] {1, 1}, new int[] {8, 8}, new int[] {0, 0}, new int[] {8, 8}));
    }

    private static Arguments c(String name, int[] w, int[] r, int[] cap, int[] exp) {
        return Arguments.of(Named.of(name, new Case(w, r, cap, exp)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void deservedShares(Case c) {
        ClusterBuilder b = ClusterBuilder.cluster().nodes(4, GPU, 8, "cpu", 64);
        for (int i = 0; i < c.weights().length; i++) {
            ClusterBuilder.QueueBuilder q = b.queue("q" + i).weight(c.weights()[i]);
            if (c.capabilities()[i] > 0) q.capability(GPU, c.capabilities()[i]);
            q.end();
            if (c.requests()[i] > 0) {
                b.job("ns/j" + i).queue("q" + i).pods(c.requests()[i], GPU, 1).minMember(1).phase("Inqueue").end();
            }
        }
        CycleResult r = Shipped.cycle(b.snapshot());
        for (int i = 0; i < c.weights().length; i++) {
            assertEquals(c.expected()[i], units(queue(r.queues(), "q" + i).deserved(), GPU), "deserved GPUs of q" + i);
        }
    }

    @Test
    void aGuaranteeIsAlwaysDeserved() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("small").weight(1).guarantee(GPU, 16).end()
                .queue("big").weight(3).end()
                .job("a/x").queue("small").pods(32, GPU, 1).minMember(1).phase("Inqueue").end()
                .job("b/y").queue("big").pods(32, GPU, 1).minMember(1).phase("Inqueue").end()
                .snapshot());
        long small = queue(r.queues(), "small").deserved().milli(GPU);
        long big = queue(r.queues(), "big").deserved().milli(GPU);
        assertTrue(small >= 16_000, "small deserves its guarantee, got " + small + "m");
        // Integer water-filling may leave less than one milli-GPU per unit of weight undistributed.
        assertEquals(32_000, small + big, 4, "the whole cluster is handed out");
    }

    @Test
    void aQueueHoldingMoreThanItDeservesIsReclaimedFromButOneBelowIsNot() {
        // b holds all 4 nodes; a arrives wanting 2 nodes. b is overused (32 >= 16), a is not: a reclaims from b.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/train").queue("b").pods(4, GPU, 8).minMember(1).running("node-1", "node-2", "node-3", "node-4").end()
                .job("a/infer").queue("a").pods(2, GPU, 8).minMember(2).end()
                .snapshot());
        assertEquals(2, r.evictions().size(), "b gives back exactly two nodes");
        assertEquals(16, units(queue(r.queues(), "a").deserved(), GPU));
        assertEquals(16, units(queue(r.queues(), "b").deserved(), GPU));
    }

    @Test
    void aLightQueueGetsTheIdleClusterWhateverTheWeightRatio() {
        // 20,000:1: the light queue's part of each round rounds down to nothing while the heavy queue wants nothing;
        // once the heavy queue is met, the light one takes what is left.
        // (8 GPUs × 1/20,002 is 0.4 milli-GPU: nothing.)
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("heavy").weight(20_000).end().queue("light").weight(1).end()
                .job("ns/l").queue("light").pods(8, GPU, 1).minMember(1).phase("Inqueue").end().snapshot());
        assertEquals(8, units(queue(r.queues(), "light").deserved(), GPU));
        assertEquals(8, r.bindings().size());
    }

    @Test
    void aCapabilityOfZeroForbidsTheResource() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("cpu-only").capability(GPU, 0).end()
                .job("ns/gpu").queue("cpu-only").pods(1, GPU, 8).phase("Inqueue").end().snapshot());
        assertTrue(r.bindings().isEmpty(), "bound " + r.bindings());
        assertEquals(0, units(queue(r.queues(), "cpu-only").deserved(), GPU));
    }
}
