package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.bound;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** order.drl: queue order (priority, then share) and job order (priority, then creation). */
class OrderRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    @Test
    void aHigherPriorityQueueIsServedFirst() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("a").end().queue("b").priority(10).end()
                .job("ns/a").queue("a").pods(1, GPU, 8).phase("Inqueue").end()
                .job("ns/b").queue("b").pods(1, GPU, 8).phase("Inqueue").end().snapshot());
        assertEquals(Set.of("ns/b-0"), bound(r));
    }

    @Test
    void allocationInterleavesQueuesByShare() {
        // Two equal queues each submit four 1-node jobs on a 4-node cluster: each gets two nodes.
        ClusterBuilder b = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a").end().queue("b").end();
        for (int i = 0; i < 4; i++) b.job("a/j" + i).queue("a").pods(1, GPU, 8).phase("Inqueue").end();
        for (int i = 0; i < 4; i++) b.job("b/j" + i).queue("b").pods(1, GPU, 8).phase("Inqueue").end();
        CycleResult r = Shipped.cycle(b.snapshot());
        assertEquals(Set.of("a/j0-0", "a/j1-0", "b/j0-0", "b/j1-0"), bound(r));
    }

    @Test
    void withinAQueueTheEarlierJobOfEqualPriorityGoesFirst() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .job("ns/older").pods(1, GPU, 8).phase("Inqueue").end()
                .job("ns/newer").pods(1, GPU, 8).phase("Inqueue").end().snapshot());
        assertEquals(Set.of("ns/older-0"), bound(r));
    }
}
