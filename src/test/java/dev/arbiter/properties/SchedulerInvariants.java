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
        minimalPlans(before, r, out);
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
     * Reclaim takes only from reclaimable queues other than the reclaimer's, and never leaves a victim queue below its
     * floor (its deserved share, or guarantee if larger) in a resource a reclaimer of it asks for and that it held more
     * than its floor of before the cycle's reclaims — unless, as the shipped last resort, the queue gave a whole job
     * larger than that floor. The queue's allocation before is the cycle's final allocation plus every pod reclaimed
     * from it.
     */
    private static void reclaim(CycleFacts before, CycleResult r, List<String> out) {
        Map<String, Resources> reclaimedFrom = new HashMap<>();
        Map<String, Set<String>> reclaimers = new HashMap<>();
        Map<String, Integer> evictedPerJob = new HashMap<>();
        for (Eviction e : r.evictions()) {
            evictedPerJob.merge(before.jobOfPod.get(e.pod()), 1, Integer::sum);
            if (!e.action().equals("reclaim")) continue;
            String vj = before.jobOfPod.get(e.pod());
            String vq = before.jobs.get(vj).queue();
            QueueSpec spec = before.queues.get(vq);
            if (spec == null || !spec.reclaimable()) out.add(e.pod() + " reclaimed from queue " + vq + ", which is not reclaimable");
            if (vq.equals(before.jobs.get(e.forPodGroup()).queue())) out.add(e.pod() + " reclaimed within its own queue " + vq);
            reclaimedFrom.merge(vq, before.pods.get(e.pod()).requests(), Resources::add);
            reclaimers.computeIfAbsent(vq, k -> new HashSet<>()).add(e.forPodGroup());
        }
        reclaimedFrom.forEach((vq, taken) -> {
            QueueStatus s = CycleFacts.status(r.queues(), vq);
            QueueSpec spec = before.queues.get(vq);
            Resources floor = s.deserved().max(spec == null ? Resources.NONE : spec.guarantee());
            Resources after = s.allocated();
            Resources held = after.add(taken);
            Set<String> dims = new HashSet<>();
            for (String job : reclaimers.get(vq)) {
                for (PodSpec p : before.jobs.get(job).pods()) {
                    Resources q = p.requests();
                    for (int i = 0; i < q.size(); i++) if (q.milliAt(i) > 0 && !q.name(i).equals("pods")) dims.add(q.name(i));
                }
            }
            if (wholeJobLargerThan(before, vq, evictedPerJob, dims, floor)) return;
            for (String d : dims) {
                long f = floor.milli(d);
                if (held.milli(d) <= f || after.milli(d) >= f) continue;
                out.add("reclaim left queue " + vq + " with " + d + " " + after.milli(d) + "m of its floor " + f + "m (it held "
                        + held.milli(d) + "m) after cycle " + r.cycle());
            }
        });
    }

    /**
     * Whether every running pod of some job of the queue was evicted (reclaimed, or some preempted first), and that job
     * asks more than the queue's floor in one of {@code dims}: it could never run within the queue's share.
     */
    private static boolean wholeJobLargerThan(CycleFacts before, String queue, Map<String, Integer> evictedPerJob,
                                              Set<String> dims, Resources floor) {
        for (Map.Entry<String, Integer> e : evictedPerJob.entrySet()) {
            CycleFacts.JobView j = before.jobs.get(e.getKey());
            if (!j.queue().equals(queue) || e.getValue() != before.running(e.getKey())) continue;
            Resources asks = Resources.NONE;
            for (PodSpec p : j.pods()) if (p.isBound()) asks = asks.add(p.requests());
            for (String d : dims) if (asks.milli(d) > floor.milli(d)) return true;
        }
        return false;
    }

    /**
     * No eviction was for nothing: of each victim job, neither all the pods it lost nor one of them (where the job then
     * keeps minMember) could have stayed with every pod whose
     * room the cycle made still fitting its node, and the queue it was taken from still within its capability with
     * the unit (a preemption may be for room under the capability). Judged on resources alone, so only where no pod
     * named for that room, and no victim, has pod affinity, anti-affinity, spread or host ports (an eviction may be for
     * those).
     */
    static void minimalPlans(CycleFacts before, CycleResult r, List<String> out) {
        if (r.evictions().isEmpty()) return;
        Map<String, Resources> free = before.freeByNode();
        for (dev.arbiter.decision.Binding b : r.bindings()) free.merge(b.node(), before.pods.get(b.pod()).requests(), Resources::subtract);
        for (Eviction e : r.evictions()) free.merge(e.node(), before.pods.get(e.pod()).requests(), Resources::add);
        Map<String, Resources> nominated = new HashMap<>();
        for (dev.arbiter.decision.Nomination n : r.nominations()) {
            PodSpec p = before.pods.get(n.pod());
            if (p == null || podRules(p)) return;
            nominated.merge(n.node(), p.requests(), Resources::add);
        }
        Map<String, List<Eviction>> byJob = new HashMap<>();
        for (Eviction e : r.evictions()) {
            if (podRules(before.pods.get(e.pod()))) return;
            byJob.computeIfAbsent(before.jobOfPod.get(e.pod()), k -> new ArrayList<>()).add(e);
        }
        byJob.forEach((job, evs) -> {
            CycleFacts.JobView j = before.jobs.get(job);
            int running = before.running(job);
            // What could have stayed: every pod the job lost, or one of them if the job then keeps minMember.
            List<List<Eviction>> units = new ArrayList<>();
            units.add(evs);
            if (evs.size() > 1 && running - evs.size() + 1 >= Math.max(1, j.minMember())) for (Eviction e : evs) units.add(List.of(e));
            for (List<Eviction> unit : units) {
                Map<String, Resources> without = new HashMap<>(free);
                for (Eviction e : unit) without.merge(e.node(), before.pods.get(e.pod()).requests(), Resources::subtract);
                String vq = j.queue();
                QueueSpec spec = before.queues.get(vq);
                Resources unitShare = Resources.NONE;
                for (Eviction e : unit) unitShare = unitShare.add(before.pods.get(e.pod()).requests());
                boolean fits = spec == null || spec.capability() == null || spec.capability().admits(CycleFacts.status(r.queues(), vq).allocated(), unitShare);
                for (Eviction e : unit) {
                    Resources need = nominated.getOrDefault(e.node(), Resources.NONE);
                    if (!need.fitsIn(without.get(e.node()))) fits = false;
                }
                if (fits) {
                    out.add("cycle " + r.cycle() + " evicted " + unit.stream().map(Eviction::pod).toList() + " (" + unit.get(0).action()
                            + " for " + unit.get(0).forPodGroup() + ") although every pod it made room for fits without");
                    return;
                }
            }
        });
    }

    private static boolean podRules(PodSpec p) {
        dev.arbiter.model.Placement pl = p.placement();
        return !pl.podAffinity().required().isEmpty() || !pl.podAntiAffinity().required().isEmpty()
                || !pl.spread().isEmpty() || !pl.hostPorts().isEmpty();
    }
}
