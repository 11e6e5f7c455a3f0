package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** preempt.drl: within a queue, a pending job evicts strictly lower-priority work, never equal or higher. */
class PreemptRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    private static ClusterBuilder fullQueue() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("q").reclaimable(false).end()
                .job("ns/old").queue("q").priorityClass("low").pods(2, GPU, 8).minMember(1)
                .running("node-1", "node-2").end();
    }

    @Test
    void aHigherPriorityJobEvictsLowerPriorityWorkOfItsQueue() {
        CycleResult r = Shipped.cycle(fullQueue()
                .job("ns/new").queue("q").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(1, r.evictions().size());
        Eviction e = r.evictions().get(0);
        assertEquals("preempt", e.action());
        assertEquals("ns/new", e.forPodGroup());
        assertEquals("preempt: a pending job may evict tasks of strictly lower-priority jobs in its own queue", e.rule());
    }

    @Test
    void anEqualPriorityJobDoesNotPreempt() {
        CycleResult r = Shipped.cycle(fullQueue()
                .job("ns/new").queue("q").priorityClass("low").pods(1, GPU, 8).end().snapshot());
        assertTrue(r.evictions().isEmpty());
    }

    @Test
    void preemptionStaysInsideTheQueue() {
        // The other queue's low-priority work is not reclaimable and the preemptor's own queue is empty.
        CycleResult r = Shipped.cycle(fullQueue().queue("other").end()
                .job("ns/new").queue("other").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertTrue(r.evictions().isEmpty(), "no preemption across queues; only reclaim crosses queues");
    }

    @Test
    void aQueueAtItsCapabilityPreemptsEvenWhenNodesHaveRoom() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("q").capability(GPU, 16).end()
                .job("ns/old").queue("q").priorityClass("low").pods(2, GPU, 8).minMember(1).running("node-1", "node-2").end()
                .job("ns/new").queue("q").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(1, r.evictions().size(), "the queue's capability, not the nodes, is what is short");
        assertEquals("preempt", r.evictions().get(0).action());
    }

    @Test
    void aPodMarkedNotPreemptableIsNeverEvicted() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .job("ns/old").priorityClass("low").pods(1, GPU, 8).notPreemptable().running("node-1").end()
                .job("ns/new").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertTrue(r.evictions().isEmpty());
    }

    @Test
    void theProtectedPodIsSkippedAndAnotherVictimTaken() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .job("ns/keep").priorityClass("low").pods(1, GPU, 8).notPreemptable().running("node-1").end()
                .job("ns/take").priorityClass("low").pods(1, GPU, 8).running("node-2").end()
                .job("ns/new").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("ns/take-0"), evicted(r));
    }

    @Test
    void aPreemptorWaitsForItsVictimsAndBindsNextCycle() {
        CycleResult r = Shipped.cycle(fullQueue()
                .job("ns/new").queue("q").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertTrue(r.bindings().isEmpty(), "victims leave first; the preemptor binds in a later cycle");
        assertEquals(new Refusal.WaitingForEvicted(1, "preempt"), Shipped.why(r, "ns/new"));
    }

    @Test
    void aNodeSharedWithAnotherQueueDoesNotExposeThatQueuesPods() {
        // node-1 holds a's low pod (2 GPUs) and b's low pod (6 GPUs); a's urgent pod needs all 8: evicting a's own
        // pod is not enough, and b's pod is not a's to preempt (b is not reclaimable either).
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("a").end().queue("b").reclaimable(false).end()
                .job("a/low").queue("a").priorityClass("low").pods(1, GPU, 2).running("node-1").end()
                .job("b/low").queue("b").priorityClass("low").pods(1, GPU, 6).running("node-1").end()
                .job("a/urgent").queue("a").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        assertTrue(r.evictions().isEmpty(), "evicted " + evicted(r));
    }

    @Test
    void aStarvingJobEvictsOnlyUntilItsGangCanStart() {
        // Volcano's job-starving rule: the preemptor needs 1 of its 2 pods to start, so one victim is enough; its
        // second pod waits for a node to free up.
        CycleResult r = Shipped.cycle(fullQueue()
                .job("ns/new").queue("q").priorityClass("high").pods(2, GPU, 8).minMember(1).end().snapshot());
        assertEquals(1, r.evictions().size(), "evicted " + evicted(r));
    }

    @Test
    void aJobWhoseGangAlreadyRunsDoesNotPreemptForItsOtherPods() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("q").reclaimable(false).end()
                .job("ns/old").queue("q").priorityClass("low").pods(2, GPU, 8).minMember(1).running("node-1", "node-2").end()
                .job("ns/new").queue("q").priorityClass("high").pods(3, GPU, 8).minMember(1).running("node-3")
                .end().snapshot());
        assertTrue(r.evictions().isEmpty(), "ns/new runs with its minimum; its other pods wait for free capacity");
    }

    @Test
    void aVolcanoJobWithAMinimumPerRoleStillPreemptsWithFewerPods() {
        // Volcano's job controller writes minTaskMember for every role; minMember (1) is below their sum (4), so only
        // minMember counts and the job starts with one pod.
        CycleResult r = Shipped.cycle(fullQueue()
                .job("ns/vcjob").queue("q").priorityClass("high").pods("worker", 4, GPU, 8).minMember(1)
                .minTaskMember("worker", 4).end().snapshot());
        assertEquals(1, r.evictions().size(), "evicted " + evicted(r));
    }

    @Test
    void aJobThatFindsNoLowerPriorityWorkSaysSo() {
        CycleResult r = Shipped.cycle(fullQueue()
                .job("ns/new").queue("q").priorityClass("low").pods(1, GPU, 8).phase("Inqueue").end().snapshot());
        assertEquals(new Refusal.NoLowerWork("q", true, 10), Shipped.attempted(Shipped.why(r, "ns/new"), "preempt"));
    }

    @Test
    void aJobWhoseVictimsAreAllProtectedSaysByWhichRule() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("q").reclaimable(false).end()
                .job("ns/old").queue("q").priorityClass("low").pods(1, GPU, 8).running("node-1").notPreemptable().end()
                .job("ns/new").queue("q").priorityClass("high").pods(1, GPU, 8).end().snapshot());
        Refusal.AllProtected all = (Refusal.AllProtected) Shipped.attempted(Shipped.why(r, "ns/new"), "preempt");
        assertEquals(new Refusal.QueuePods("q", true), all.whose());
        assertEquals(1, all.by().size());
        assertEquals("victims: a pod marked volcano.sh/preemptable false is never evicted", all.by().get(0).rule());
        assertEquals(1, all.by().get(0).count());
    }
}
