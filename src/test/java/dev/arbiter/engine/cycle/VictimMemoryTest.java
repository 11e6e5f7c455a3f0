package dev.arbiter.engine.cycle;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The victim search's memory across cycles (issue 17, {@link VictimMemory}): a kept scheduler starts a search from
 * the victim nodes the cycle before worked out, brought up to date from the nodes that may have changed since, and
 * decides exactly what a fresh scheduler decides. Each case has a cycle that recalls, then a change that gives a node
 * no one touched a victim it did not have: the kept scheduler must see it.
 */
class VictimMemoryTest extends KeptAgainstFresh {
    /** {@code s} later by {@code seconds}, the same objects otherwise. */
    private static ClusterSnapshot later(ClusterSnapshot s, long seconds) {
        return with(s, seconds, s.pods(), s.podGroups());
    }

    /** A one-GPU job of queue {@code queue} that binds on the spare node every cycle (so no cycle parks its jobs). */
    private static ClusterSnapshot small(String queue) {
        return small(queue, "normal");
    }

    private static ClusterSnapshot small(String queue, String priorityClass) {
        return ClusterBuilder.cluster().priorityClass("normal", 100)
                .job("ns/small").queue(queue).priorityClass(priorityClass).minMember(1).pods(1, "nvidia.com/gpu", 1)
                .phase("Inqueue").end().snapshot();
    }

    /**
     * Queue "a" fills two 8-GPU nodes with pods younger than the minimum runtime (protected from reclaim), but for an
     * old 1-GPU pod; queue "b" waits for 8 GPUs. Reclaim finds its victim nodes (node-1 only) and no plan. A minute
     * later the young pods' protection has run out on nodes no pod left or joined: b reclaims.
     */
    @Test
    void aProtectionRunningOutOnAnUntouchedNodeGivesItsVictimsBack() {
        ClusterSnapshot first = ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).node("spare", "nvidia.com/gpu", 1)
                .priorityClass("normal", 100)
                .queue("a").end().queue("b").weight(2).end()
                .job("ns/old").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 1)
                .running("node-1").startedAt(0).end()
                .job("ns/young-1").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 7)
                .running("node-1").startedAt(10_000 - 5).end()
                .job("ns/young-2").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .running("node-2").startedAt(10_000 - 5).end()
                .job("ns/wait").queue("b").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .phase("Inqueue").end()
                .job("ns/nowhere").queue("b").priorityClass("normal").pods(1, "nvidia.com/gpu", 8)
                .nodeSelector("pool", "none").end()
                .snapshot(10_000);
        ClusterSnapshot withSmall = plus(first, 0, small("a"));
        CycleResult one = both(withSmall, 1);
        assertTrue(one.evictions().isEmpty(), one.evictions().toString());
        CycleResult two = both(later(withSmall, 10), 2);
        assertTrue(two.evictions().isEmpty(), two.evictions().toString());
        assertTrue(kept.victimRecalls() > 0, "the second cycle starts from the first one's victim nodes");

        CycleResult three = both(later(withSmall, 120), 3);
        assertEquals(1, three.evictions().size(), three.evictions().toString());
    }

    /**
     * The other way round: the clock goes back (a snapshot from a skewed clock), and a pod that was a victim is younger
     * than the minimum runtime again, on a node no pod left or joined. Reclaim still finds no plan, and its reason names
     * the node that comes closest with every allowed victim gone: not that one, which no longer hosts any.
     */
    @Test
    void aNewProtectionOnAnUntouchedNodeTakesItsVictimsAway() {
        ClusterSnapshot first = plus(ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8)
                .node("spare", "nvidia.com/gpu", 1).priorityClass("normal", 100)
                .queue("a").end().queue("b").end()
                .job("ns/a-1").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 1)
                .running("node-1").startedAt(9_990).end()
                .job("ns/c-1").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 6)
                .running("node-1").startedAt(10_090).end()
                .job("ns/b-2").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 1)
                .running("node-2").startedAt(0).end()
                .job("ns/d-2").queue("a").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 7)
                .running("node-2").startedAt(10_090).end()
                .job("ns/wait").queue("b").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .phase("Inqueue").end()
                .snapshot(10_100), 0, small("a"));
        both(first, 1);
        both(later(first, 1), 2);
        assertTrue(kept.victimRecalls() > 0, "the second cycle starts from the first one's victim nodes");
        CycleResult three = both(later(first, -100), 3);
        assertTrue(three.evictions().isEmpty(), three.evictions().toString());
    }

    /**
     * A PodGroup naming no priority class takes the highest priority of its pods. Job "mixed" runs a low-priority pod
     * that fills node-1 and waits with a high-priority one, so it is not a victim of "wait" (priority 500). When the
     * high-priority pod is deleted, the job's priority drops and its running pod becomes a victim, on a node no pod
     * left or joined: the kept scheduler must look at that node again.
     */
    @Test
    void aJobWhosePriorityDropsGivesItsRunningPodsAsVictims() {
        ClusterSnapshot built = plus(ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8)
                .node("spare", "nvidia.com/gpu", 1)
                .priorityClass("low", 10).priorityClass("high", 1000).priorityClass("mid", 500)
                .queue("a").end()
                .job("ns/mixed").queue("a").podPriorityClass("low").minMember(1).pods(2, "nvidia.com/gpu", 8)
                .running("node-1").startedAt(0).end()
                .job("ns/low-2").queue("a").priorityClass("low").minMember(1).pods(1, "nvidia.com/gpu", 1)
                .running("node-2").startedAt(0).end()
                .job("ns/high-2").queue("a").priorityClass("high").minMember(1).pods(1, "nvidia.com/gpu", 7)
                .running("node-2").startedAt(0).end()
                .job("ns/wait").queue("a").priorityClass("mid").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .phase("Inqueue").end()
                .snapshot(10_000), 0, small("a"));
        // mixed's pending pod is of the high class.
        List<PodSpec> pods = new ArrayList<>();
        PodSpec pendingHigh = null;
        for (PodSpec p : built.pods()) {
            if (p.name().startsWith("mixed-") && !p.isBound()) {
                pendingHigh = new PodSpec(p.namespace(), p.name(), p.schedulerName(), p.nodeName(), p.phase(), "high",
                        p.priority(), p.preemptionPolicy(), p.requests(), p.nodeSelector(), p.tolerations(), p.labels(),
                        p.annotations(), p.arrivalCycle(), p.creationOrder(), p.terminating(), p.startedAt());
                pods.add(pendingHigh);
            } else {
                pods.add(p);
            }
        }
        ClusterSnapshot first = with(built, 0, pods, built.podGroups());
        CycleResult one = both(first, 1);
        assertTrue(one.evictions().isEmpty(), one.evictions().toString());
        both(later(first, 1), 2);
        assertTrue(kept.victimRecalls() > 0, "the second cycle starts from the first one's victim nodes");

        List<PodSpec> without = new ArrayList<>(first.pods());
        without.remove(pendingHigh);
        ClusterSnapshot third = with(first, 2, without, first.podGroups());
        CycleResult three = both(third, 3);
        assertEquals(1, three.evictions().size(), three.evictions().toString());
        assertTrue(three.evictions().get(0).toString().contains("mixed-0"), three.evictions().toString());
    }

    /**
     * Within the cycle that recalls, the nodes it already touched are looked at again. Queue "b" waits to reclaim 8
     * GPUs from queue "a", whose only pod old enough to be reclaimed holds 4 GPUs of node-1 (a young one holds the
     * rest): no plan. Next cycle, a job of queue "a" preempts that pod first and takes its room: when reclaim recalls
     * its victim nodes, node-1 hosts no victim any more, and the refusal must say so.
     */
    @Test
    void aNodeTouchedEarlierInTheCycleIsLookedAtAgain() {
        ClusterSnapshot first = plus(ClusterBuilder.cluster().nodes(4, "nvidia.com/gpu", 8)
                .node("spare", "nvidia.com/gpu", 1)
                .priorityClass("low", 10).priorityClass("high", 1000).priorityClass("mid", 500)
                .queue("a").end().queue("b").end()
                .job("ns/old").queue("a").priorityClass("low").minMember(1).pods(1, "nvidia.com/gpu", 4)
                .running("node-1").startedAt(0).end()
                .job("ns/young-1").queue("a").priorityClass("high").minMember(1).pods(1, "nvidia.com/gpu", 4)
                .running("node-1").startedAt(10_000 - 5).end()
                .job("ns/young-2").queue("a").priorityClass("high").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .running("node-2").startedAt(10_000 - 5).end()
                // more nodes where reclaim finds a victim too small to make room
                .job("ns/old-small").queue("a").priorityClass("high").minMember(2).pods(2, "nvidia.com/gpu", 1)
                .running("node-3", "node-4").startedAt(0).end()
                .job("ns/young-big").queue("a").priorityClass("high").minMember(2).pods(2, "nvidia.com/gpu", 7)
                .running("node-3", "node-4").startedAt(10_000 - 5).end()
                .job("ns/wait").queue("b").priorityClass("low").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .phase("Inqueue").end()
                .snapshot(10_000), 0, small("a", "mid"));
        CycleResult one = both(first, 1);
        assertTrue(one.evictions().isEmpty(), one.evictions().toString());
        ClusterSnapshot preemptor = ClusterBuilder.cluster().priorityClass("mid", 500)
                .job("ns/urgent").queue("a").priorityClass("mid").minMember(1).pods(1, "nvidia.com/gpu", 4)
                .phase("Inqueue").end().snapshot();
        CycleResult two = both(plus(first, 1, preemptor), 2);
        assertEquals(1, two.evictions().size(), two.evictions().toString());
        assertTrue(two.evictions().get(0).toString().contains("old-0"), two.evictions().toString());
        assertTrue(kept.victimRecalls() > 0, "reclaim starts from the first cycle's victim nodes");
    }

    /**
     * Queue "a" runs high-priority pods on two 8-GPU nodes, and a low-priority 1-GPU pod on node-1; a job of priority
     * 500 waits for 8 GPUs. Preemption finds its victim nodes (node-1 only) and no plan. Then a low-priority pod that
     * was already running on node-2 appears in the snapshot in place of a high one: that node's pods changed, and the
     * kept scheduler must look at it again.
     */
    @Test
    void aNodeWhosePodsChangedIsLookedAtAgain() {
        ClusterSnapshot first = highOnNode2();
        CycleResult one = both(first, 1);
        assertTrue(one.evictions().isEmpty(), one.evictions().toString());
        both(later(first, 1), 2);
        assertTrue(kept.victimRecalls() > 0, "the second cycle starts from the first one's victim nodes");
        ClusterSnapshot third = swapped(first, 20);
        CycleResult three = both(third, 3);
        assertEquals(1, three.evictions().size(), three.evictions().toString());
        assertTrue(three.evictions().get(0).toString().contains("low-2"), three.evictions().toString());
    }

    /**
     * As {@link #aNodeWhosePodsChangedIsLookedAtAgain}, but the waiting job leaves for the cycle in which node-2's pods
     * change, and comes back in the next: what the first cycle remembered was carried through a cycle that did not
     * use it, and node-2 must be looked at again all the same.
     */
    @Test
    void aNodeThatChangedWhileItsMemoryWasNotUsedIsLookedAtAgain() {
        ClusterSnapshot first = highOnNode2();
        both(first, 1);
        both(later(first, 1), 2);
        assertTrue(kept.victimRecalls() > 0, "the second cycle starts from the first one's victim nodes");
        ClusterSnapshot swapped = swapped(first, 2);
        both(without(swapped, "wait"), 3);
        CycleResult four = both(later(swapped, 2), 4);
        assertEquals(1, four.evictions().size(), four.evictions().toString());
        assertTrue(four.evictions().get(0).toString().contains("low-2"), four.evictions().toString());
    }

    private static ClusterSnapshot without(ClusterSnapshot s, String job) {
        List<PodSpec> pods = new ArrayList<>();
        for (PodSpec p : s.pods()) if (!p.name().startsWith(job + "-")) pods.add(p);
        List<PodGroupSpec> groups = new ArrayList<>();
        for (PodGroupSpec g : s.podGroups()) if (!g.name().equals(job)) groups.add(g);
        return with(s, 0, pods, groups);
    }

    /** The cluster of {@link #aNodeWhosePodsChangedIsLookedAtAgain}. */
    private static ClusterSnapshot highOnNode2() {
        return plus(ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).node("spare", "nvidia.com/gpu", 1)
                .priorityClass("low", 10).priorityClass("high", 1000).priorityClass("mid", 500)
                .queue("a").end()
                .job("ns/low-1").queue("a").priorityClass("low").minMember(1).pods(1, "nvidia.com/gpu", 1)
                .running("node-1").startedAt(0).end()
                .job("ns/high-1").queue("a").priorityClass("high").minMember(1).pods(1, "nvidia.com/gpu", 7)
                .running("node-1").startedAt(0).end()
                .job("ns/wait").queue("a").priorityClass("mid").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .phase("Inqueue").end()
                .job("ns/high-2").queue("a").priorityClass("high").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .running("node-2").startedAt(0).end()
                // small is of class "mid" too: the class stays in use while "wait" is away (its priority stands)
                .snapshot(10_000), 0, small("a", "mid"));
    }

    /** {@code s} later by {@code seconds}, with high-2 gone and low-2 running on node-2 instead. */
    private static ClusterSnapshot swapped(ClusterSnapshot s, long seconds) {
        ClusterSnapshot low2 = ClusterBuilder.cluster().priorityClass("low", 10)
                .job("ns/low-2").queue("a").priorityClass("low").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .running("node-2").startedAt(0).end().snapshot();
        ClusterSnapshot rest = without(s, "high-2");
        return plus(rest, seconds, low2);
    }
}
