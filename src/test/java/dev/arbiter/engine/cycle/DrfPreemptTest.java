package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.scenario.ClusterBuilder;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The drf pack's preemption (deploy/policies/drf/preempt.drl): Volcano's {@code drf} preemptable rule
 * ({@code plugins/drf/drf.go}: a preemptee is a victim when {@code ls < rs || |ls - rs| <= shareDelta}, ls the
 * preemptor job's share with its task, rs the preemptee job's share without it). 8-GPU nodes; jobs of one priority in
 * one queue; the preemptor already admitted (Inqueue: as in Volcano, a job the queue's budget holds Pending does not
 * preempt).
 */
class DrfPreemptTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final RuleBook DRF = RuleBook.load(Path.of("deploy/policies/drf"));

    private static CycleResult cycle(RuleBook rules, ClusterBuilder c) {
        return new Scheduler(rules, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(1000), 1);
    }

    /** ns/hog holds 24 of 32 GPUs (share 0.75), ns/small 8 (0.25); ns/new wants 8 (0.25 with them). */
    private static ClusterBuilder hogAndSmall(int hogPods) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(hogPods + 1, GPU, 8);
        String[] nodes = new String[hogPods];
        for (int i = 0; i < hogPods; i++) nodes[i] = "node-" + (i + 1);
        return c.job("ns/hog").pods(hogPods, GPU, 8).minMember(1).running(nodes).startedAt(0).end()
                .job("ns/small").pods(1, GPU, 8).running("node-" + (hogPods + 1)).startedAt(0).end()
                .job("ns/new").pods(1, GPU, 8).phase("Inqueue").end();
    }

    @Test
    void aJobWithTheSmallerShareTakesFromTheJobThatWouldStillHoldMore() {
        // hog without one pod: 16/32 = 0.5 >= 0.25, a victim; small without its pod: 0 < 0.25, not one.
        Set<String> evicted = Shipped.evicted(cycle(DRF, hogAndSmall(3)));
        assertEquals(1, evicted.size(), evicted.toString());
        assertTrue(evicted.iterator().next().startsWith("ns/hog-"), evicted.toString());
    }

    @Test
    void theShippedPolicyNeverPreemptsEqualPriority() {
        assertEquals(Set.of(), Shipped.evicted(cycle(Shipped.RULES, hogAndSmall(3))));
    }

    @Test
    void noJobWouldStillHoldTheShareThePreemptorWouldHaveSoNothingIsEvicted() {
        // hog holds 8 of 16 GPUs: without it, 0 < new's 8/16. small likewise.
        CycleResult r = cycle(DRF, hogAndSmall(1));
        assertEquals(Set.of(), Shipped.evicted(r));
        assertEquals(new Refusal.NoShareGap("default"), Shipped.attempted(Shipped.why(r, "ns/new"), "preempt"));
    }
}
