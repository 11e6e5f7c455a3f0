package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;

import static dev.arbiter.engine.cycle.Shipped.queue;
import static dev.arbiter.engine.cycle.Shipped.units;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** deploy/policies/capacity: explicit deserved shares, capability as hard maximum, reclaim down to deserved. */
class CapacityPackTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final RuleBook CAPACITY = RuleBook.load(Path.of("deploy/policies/capacity"));

    private static CycleResult cycle(ClusterBuilder c) {
        return new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(), 1);
    }

    @Test
    void theDeservedShareIsWhatTheQueueSays() {
        CycleResult r = cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").weight(1).deserved(GPU, 24).end().queue("b").weight(100).deserved(GPU, 8).end()
                .job("a/w").queue("a").pods(1, GPU, 1).end());
        assertEquals(24, units(queue(r.queues(), "a").deserved(), GPU), "weights do not matter");
        assertEquals(8, units(queue(r.queues(), "b").deserved(), GPU), "nor does demand");
    }

    @Test
    void aQueueBorrowsUpToItsCapabilityButNotPast() {
        CycleResult r = cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").deserved(GPU, 8).capability(GPU, 24).end()
                .job("a/w").queue("a").pods(4, GPU, 8).minMember(1).phase("Inqueue").end());
        assertEquals(3, r.bindings().size());
    }

    @Test
    void reclaimTakesBackDownToTheDeservedShare() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").deserved(GPU, 8).end().queue("b").deserved(GPU, 24).end();
        for (int i = 1; i <= 4; i++) c.job("a/j" + i).queue("a").pods(1, GPU, 8).running("node-" + i).end();
        // Four jobs of one pod each: a starving job reclaims only what it needs to start.
        for (int i = 1; i <= 4; i++) c.job("b/want" + i).queue("b").pods(1, GPU, 8).end();
        CycleResult r = cycle(c);
        assertEquals(3, r.evictions().size(), "a keeps its deserved 8");
        assertTrue(r.evictions().stream().allMatch(e -> e.action().equals("reclaim")));
    }

    @Test
    void theShippedProportionPackDividesByWeightInstead() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").weight(1).deserved(GPU, 24).end().queue("b").weight(1).deserved(GPU, 8).end()
                .job("a/w").queue("a").pods(32, GPU, 1).minMember(1).phase("Inqueue").end()
                .job("b/w").queue("b").pods(32, GPU, 1).minMember(1).phase("Inqueue").end().snapshot());
        assertEquals(16, units(queue(r.queues(), "a").deserved(), GPU));
        assertEquals(16, units(queue(r.queues(), "b").deserved(), GPU));
    }
}
