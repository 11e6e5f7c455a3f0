package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Parked jobs (issue 17, {@link CycleWork#staysParked}): a job that could not start, and left no trace, is passed over
 * while nothing it could need changes — a kept scheduler then decides exactly what a fresh one decides, reasons
 * included — and is walked again as soon as something does.
 */
class ParkingTest extends KeptAgainstFresh {

    /**
     * Two 8-GPU nodes full of long-running work, and three waiting jobs of the same priority: nothing to preempt
     * (only lower priorities may be), one queue (nothing to reclaim).
     */
    private static ClusterSnapshot full() {
        return ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).priorityClass("normal", 100)
                .job("ns/busy").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 8)
                .running("node-1", "node-2").startedAt(0).end()
                .job("ns/wait-a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .job("ns/wait-b").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 4).phase("Inqueue").end()
                .job("ns/wait-c").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 2).phase("Inqueue").end()
                .snapshot(10_000);
    }

    /** Two 8-GPU nodes full of long-running work, as {@link #full}, and a third node of {@code gpus} GPUs. */
    private static ClusterBuilder busyAndThird(int gpus) {
        return ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).node("node-3", "nvidia.com/gpu", gpus)
                .priorityClass("normal", 100)
                .job("ns/busy").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 8)
                .running("node-1", "node-2").startedAt(0).end();
    }

    private static ClusterSnapshot arrival(String id) {
        return ClusterBuilder.cluster().priorityClass("normal", 100)
                .job(id).priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end().snapshot();
    }

    @Test
    void aJobThatCannotStartIsPassedOverWhileOnlyNewWorkArrivesAndKeepsItsReason() {
        ClusterSnapshot first = full();
        CycleResult one = both(first, 1);
        assertEquals(0, kept.parkedPasses(), "nothing is parked before a cycle has walked the jobs");
        String reason = reasonOf(one, "ns/wait-a");
        assertTrue(reason != null && reason.contains("preempt"), reason);

        // New work that cannot start either: the waiting jobs are passed over in allocation and both eviction steps.
        ClusterSnapshot second = plus(first, 30, arrival("ns/late"));
        CycleResult two = both(second, 2);
        assertEquals(3 * 3, kept.parkedPasses(), "three parked jobs, passed over in three steps");
        assertEquals(reason, reasonOf(two, "ns/wait-a"));

        // The same again: parked jobs stay parked, the new one is parked now too.
        both(plus(second, 30, arrival("ns/later")), 3);
        assertEquals(4 * 3, kept.parkedPasses());
    }

    @Test
    void aParkedJobIsWalkedAgainWhenRunningWorkLeaves() {
        ClusterSnapshot first = full();
        both(first, 1);
        both(plus(first, 30, arrival("ns/late")), 2);
        assertTrue(kept.parkedPasses() > 0);
        // busy's pods finish: the nodes free up, and the waiting jobs start (a parked job passed over would not).
        List<PodSpec> pods = new ArrayList<>();
        for (PodSpec p : first.pods()) if (!p.name().startsWith("busy-")) pods.add(p);
        List<PodGroupSpec> groups = new ArrayList<>();
        for (PodGroupSpec g : first.podGroups()) if (!g.name().equals("busy")) groups.add(g);
        ClusterSnapshot freed = new ClusterSnapshot(first.nodes(), pods, groups, first.queues(), first.priorityClasses(),
                first.now() + 60, first.nominations(), first.namespaceLabels(), first.hyperNodes());
        CycleResult three = both(freed, 3);
        assertEquals(0, kept.parkedPasses());
        assertTrue(three.bindings().size() >= 2, three.bindings().toString());
    }

    @Test
    void aParkedJobIsWalkedAgainWhenItsQueuesShareChanges() {
        ClusterSnapshot first = full();
        both(first, 1);
        ClusterSnapshot second = plus(first, 30, arrival("ns/late"));
        both(second, 2);
        assertTrue(kept.parkedPasses() > 0);
        // The queue's deserved share set below what it holds: it is overused now, and every waiting job says so.
        List<QueueSpec> queues = new ArrayList<>();
        for (QueueSpec q : second.queues()) {
            queues.add(new QueueSpec(q.name(), q.weight(), q.priority(), q.capability(), q.guarantee(), q.reclaimable(),
                    q.state(), q.parent(), q.arrivalCycle(), q.dequeueStrategy(), Resources.of("nvidia.com/gpu", 4)));
        }
        ClusterSnapshot overused = new ClusterSnapshot(second.nodes(), second.pods(), second.podGroups(), queues,
                second.priorityClasses(), second.now() + 30, second.nominations(), second.namespaceLabels(),
                second.hyperNodes());
        CycleResult three = both(overused, 3);
        assertEquals(0, kept.parkedPasses());
        assertTrue(reasonOf(three, "ns/wait-a").contains("overused"), reasonOf(three, "ns/wait-a"));
    }

    @Test
    void aParkedJobIsWalkedAgainWhenAnotherSchedulersPodLeaves() {
        // The nodes are full of another scheduler's pods: no queue of ours holds them. (The waiting jobs ask more
        // than the cluster has, so that new work does not change the queue's deserved share.)
        ClusterSnapshot first = ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).priorityClass("normal", 100)
                .job("ns/foreign").schedulerName("default-scheduler").pods(2, "nvidia.com/gpu", 8)
                .running("node-1", "node-2").startedAt(0).end()
                .job("ns/wait-a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .job("ns/wait-b").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .snapshot(10_000);
        both(first, 1);
        both(plus(first, 30, arrival("ns/late")), 2);
        assertEquals(2 * 3, kept.parkedPasses());
        List<PodSpec> pods = new ArrayList<>();
        for (PodSpec p : first.pods()) if (!p.name().equals("foreign-0")) pods.add(p);
        ClusterSnapshot freed = new ClusterSnapshot(first.nodes(), pods, first.podGroups(), first.queues(),
                first.priorityClasses(), first.now() + 60, first.nominations(), first.namespaceLabels(), first.hyperNodes());
        CycleResult three = both(freed, 3);
        assertEquals(0, kept.parkedPasses());
        assertEquals(1, three.bindings().size(), three.bindings().toString());
    }

    /**
     * A job passed over in allocation is walked in the eviction steps once something was committed before its turn
     * there (new work started after it in allocation): from the reason it had after allocation.
     */
    @Test
    void aJobPassedOverInAllocationIsWalkedInTheEvictionStepsAfterACommit() {
        ClusterSnapshot first = busyAndThird(1)
                .job("ns/wait-a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .snapshot(10_000);
        both(first, 1);
        // Created after the waiting job, so after it in job order.
        ClusterSnapshot made = ClusterBuilder.cluster().priorityClass("normal", 100)
                .job("ns/tiny").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 1).phase("Inqueue").end()
                .snapshot();
        PodGroupSpec g = made.podGroups().get(0);
        ClusterSnapshot tiny = new ClusterSnapshot(List.of(), made.pods(), List.of(new PodGroupSpec(g.namespace(), g.name(),
                g.queue(), g.minMember(), g.minTaskMember(), g.minResources(), g.priorityClassName(), g.phase(),
                g.arrivalCycle(), 1_000, g.networkTopology())), List.of(), List.of(), 0, java.util.Map.of(), java.util.Map.of());
        // A cycle that commits nothing first: the job stays parked, passed over in every step.
        ClusterSnapshot second = plus(first, 30, arrival("ns/late"));
        both(second, 2);
        assertEquals(3, kept.parkedPasses());
        CycleResult three = both(plus(second, 30, tiny), 3);
        assertEquals(1, three.bindings().size(), three.bindings().toString());
        assertEquals(2, kept.parkedPasses(), "both passed over in allocation only (the new one was parked too)");
    }

    /**
     * Room held for a nominated pod is no change to the running world: when the nomination goes, the room comes back,
     * and a parked job that fits there is walked again and starts.
     */
    @Test
    void aParkedJobIsWalkedAgainWhenANominationGoes() {
        ClusterSnapshot base = busyAndThird(8)
                .job("ns/pair").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .job("ns/wait-a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .snapshot(10_000);
        // The last cycle nominated node-3 for one of pair's pods: the room stays held for it (pair cannot start whole).
        ClusterSnapshot first = new ClusterSnapshot(base.nodes(), base.pods(), base.podGroups(), base.queues(),
                base.priorityClasses(), base.now(), java.util.Map.of("ns/pair-0", "node-3"), base.namespaceLabels(),
                base.hyperNodes());
        CycleResult one = both(first, 1);
        assertTrue(one.bindings().isEmpty() && one.evictions().isEmpty(), one.bindings() + " " + one.evictions());
        ClusterSnapshot second = plus(first, 30, arrival("ns/late"));
        both(second, 2);
        assertTrue(kept.parkedPasses() > 0);
        // The nomination goes: node-3's room is free, and wait-a (pair still cannot start whole) takes it.
        ClusterSnapshot released = new ClusterSnapshot(second.nodes(), second.pods(), second.podGroups(), second.queues(),
                second.priorityClasses(), second.now() + 30, java.util.Map.of(), second.namespaceLabels(), second.hyperNodes());
        CycleResult three = both(released, 3);
        assertEquals(0, kept.parkedPasses());
        assertEquals(1, three.bindings().size(), three.bindings().toString());
    }

    /** A protection that counts down changes the reason of a job that would reclaim: it is walked every cycle. */
    @Test
    void aJobWaitingForAProtectionToEndIsNotPassedOver() {
        ClusterSnapshot first = ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).priorityClass("normal", 100)
                .queue("a").end().queue("b").end()
                .job("ns/young").queue("a").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 8)
                .running("node-1", "node-2").startedAt(10_000 - 5).end()
                .job("ns/wait").queue("b").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .snapshot(10_000);
        CycleResult one = both(first, 1);
        assertTrue(reasonOf(one, "ns/wait").contains("protected"), reasonOf(one, "ns/wait"));
        ClusterSnapshot later = ClusterBuilder.cluster().priorityClass("normal", 100)
                .job("ns/late").queue("b").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .snapshot();
        CycleResult two = both(plus(first, 20, later), 2);
        assertEquals(0, kept.parkedPasses());
        assertTrue(!reasonOf(two, "ns/wait").equals(reasonOf(one, "ns/wait")), reasonOf(two, "ns/wait"));
    }

    private static String reasonOf(CycleResult r, String podGroup) {
        for (PodGroupStatus s : r.podGroups()) if (s.podGroup().equals(podGroup)) return s.reason();
        throw new AssertionError("no status for " + podGroup);
    }
}
