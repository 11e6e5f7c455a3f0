package dev.arbiter.properties;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.synth.ClusterWorld;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The scheduler's promises, checked on one cycle: the snapshot it saw ({@code before}), what it decided, and the
 * world after its decisions were executed. Each check returns a one-line violation or nothing.
 */
final class SchedulerInvariants {
    private SchedulerInvariants() {}

    static List<String> check(CycleFacts before, CycleResult r, ClusterWorld after) {
        List<String> out = new ArrayList<>();
        capacity(r, after, out);
        placementsRespectConstraints(before, r, out);
        gangs(before, r, after, out);
        preemption(before, r, out);
        reclaim(before, r, out);
        return out;
    }

    /** No node holds more than its allocatable in any dimension. */
    private static void capacity(CycleResult r, ClusterWorld after, List<String> out) {
        for (String n : after.overCapacityNodes()) out.add("node " + n + " is over capacity after cycle " + r.cycle());
    }

    /**
     * A pod binds only to a node its placement allows, given the pods there when it was placed (those bound before the
     * cycle and the cycle's earlier bindings, in order): nodeSelector, node affinity, tolerations and the cordon; host
     * ports; DoNotSchedule topology spread; pod affinity and anti-affinity, its own and that of the pods present.
     */
    private static void placementsRespectConstraints(CycleFacts before, CycleResult r, List<String> out) {
        PlacementOracle oracle = new PlacementOracle(before.snap);
        for (Binding b : r.bindings()) {
            NodeSpec n = before.nodes.get(b.node());
            PodSpec p = before.pods.get(b.pod());
            if (n == null || p == null) {
                out.add(b.pod() + " bound to " + b.node() + ", which does not exist");
                continue;
            }
            String why = oracle.violation(p, b.node());
            if (why != null) out.add(b.pod() + " bound to " + b.node() + ", which it may not use: " + why);
            oracle.bind(p, b.node());
        }
    }

    /**
     * A gang that binds has at least minMember members running (and minTaskMember of each role) once its bindings are
     * executed; an eviction never leaves a gang that was whole running with fewer than minMember members.
     */
    private static void gangs(CycleFacts before, CycleResult r, ClusterWorld after, List<String> out) {
        Set<String> touched = new HashSet<>();
        for (Binding b : r.bindings()) touched.add(before.jobOfPod.get(b.pod()));
        Set<String> hit = new HashSet<>();
        for (Eviction e : r.evictions()) hit.add(before.jobOfPod.get(e.pod()));
        for (String job : touched) {
            CycleFacts.JobView j = before.jobs.get(job);
            Map<String, Integer> byRole = new HashMap<>();
            int running = 0;
            for (PodSpec p : j.pods()) {
                PodSpec now = after.pod(p.key());
                if (now != null && now.isBound()) {
                    running++;
                    byRole.merge(p.taskRole(), 1, Integer::sum);
                }
            }
            if (running < j.minMember()) out.add("gang " + job + " bound with " + running + " running, minMember " + j.minMember());
            j.minTaskMember().forEach((role, min) -> {
                if (byRole.getOrDefault(role, 0) < min) out.add("gang " + job + " bound with " + byRole.getOrDefault(role, 0)
                        + " running " + role + ", minTaskMember " + min);
            });
        }
        for (String job : hit) {
            CycleFacts.JobView j = before.jobs.get(job);
            int was = before.running(job);
            int now = 0;
            for (PodSpec p : j.pods()) {
                PodSpec a = after.pod(p.key());
                if (a != null && a.isBound()) now++;
            }
            if (was >= j.minMember() && now > 0 && now < j.minMember()) {
                out.add("evictions broke gang " + job + ": " + was + " running before, " + now + " after, minMember " + j.minMember());
            }
        }
    }

    /**
     * Every eviction: the pod is not marked {@code volcano.sh/preemptable: "false"}; the job it makes room for may
     * preempt (neither its PriorityClass nor one of its pending pods says {@code preemptionPolicy: Never}). A
     * preemption takes only pods of the preemptor's own queue whose job has a strictly lower priority.
     */
    private static void preemption(CycleFacts before, CycleResult r, List<String> out) {
        for (Eviction e : r.evictions()) {
            PodSpec victim = before.pods.get(e.pod());
            if (!victim.preemptableMarker()) out.add(e.pod() + " is marked not preemptable but was evicted (" + e.action() + ")");
            if (before.neverPreempts(e.forPodGroup())) out.add(e.forPodGroup() + " has preemptionPolicy Never but evicted " + e.pod());
            if (!e.action().equals("preempt")) continue;
            String vj = before.jobOfPod.get(e.pod());
            int vp = before.jobPriority(vj);
            int pp = before.jobPriority(e.forPodGroup());
            if (vp >= pp) out.add(e.pod() + " (priority " + vp + ") preempted for " + e.forPodGroup() + " (priority " + pp + ")");
            String vq = before.jobs.get(vj).queue();
            String pq = before.jobs.get(e.forPodGroup()).queue();
            if (!vq.equals(pq)) out.add(e.pod() + " of queue " + vq + " preempted for " + e.forPodGroup() + " of queue " + pq);
        }
    }

    /**
     * Reclaim takes only from reclaimable queues other than the reclaimer's, and only while the victim's queue is above
     * its deserved share: checked before the first eviction of each victim job, with the queue's allocation then
     * reconstructed from the cycle's final allocation plus that eviction and every later one from the same queue.
     */
    private static void reclaim(CycleFacts before, CycleResult r, List<String> out) {
        List<Eviction> ev = r.evictions();
        Set<String> firstSeen = new HashSet<>();
        for (int k = 0; k < ev.size(); k++) {
            Eviction e = ev.get(k);
            if (!e.action().equals("reclaim")) continue;
            String vj = before.jobOfPod.get(e.pod());
            String vq = before.jobs.get(vj).queue();
            QueueSpec spec = before.queues.get(vq);
            if (spec == null || !spec.reclaimable()) out.add(e.pod() + " reclaimed from queue " + vq + ", which is not reclaimable");
            if (vq.equals(before.jobs.get(e.forPodGroup()).queue())) out.add(e.pod() + " reclaimed within its own queue " + vq);
            if (!firstSeen.add(vj)) continue;
            QueueStatus s = CycleFacts.status(r.queues(), vq);
            Resources allocatedBefore = s.allocated();
            for (int j = k; j < ev.size(); j++) {
                Eviction later = ev.get(j);
                if (later.action().equals("reclaim") && before.jobs.get(before.jobOfPod.get(later.pod())).queue().equals(vq)) {
                    allocatedBefore = allocatedBefore.add(before.pods.get(later.pod()).requests());
                }
            }
            if (allocatedBefore.fitsIn(s.deserved())) {
                out.add(e.pod() + " reclaimed from queue " + vq + " at " + allocatedBefore + ", not above its deserved " + s.deserved());
            }
        }
    }
}
