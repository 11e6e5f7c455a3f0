package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;

import static dev.arbiter.engine.cycle.EvictionReasons.waitingFor;

import dev.arbiter.decision.Eviction;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Giving back victims that are not needed, once for each gang that starts with victims ({@link #giveBackUnneeded}) and
 * once for the whole cycle after every eviction action ({@link #giveBackAcrossJobs}). It keeps what the eviction steps
 * committed this cycle ({@link #evicted}) and the placements they hold ({@link #held}).
 */
final class AddBack {
    /** A victim this cycle evicted, for whom, and whether its job's reason was set by that eviction. */
    private record Committed(Task victim, Job forJob, String action, String rule, boolean setReason) {}

    private final List<Committed> committed = new ArrayList<>();
    /** The tasks held (pipelined) for preemptors this cycle, and their nodes (same index). */
    private final List<Task> pipelinedTasks = new ArrayList<>();
    private final List<NodeState> pipelinedOn = new ArrayList<>();

    private final WorkingCluster state;
    private final NodeFitter fitter;
    private final List<Eviction> evictions;
    private final EvictionBudget budget;

    AddBack(CycleWork w, EvictionBudget budget) {
        this.state = w.state;
        this.fitter = w.fitter;
        this.evictions = w.evictions;
        this.budget = budget;
    }

    /** A placement held (pipelined) on {@code on} for a job that starts with victims. */
    void held(Task t, NodeState on) {
        pipelinedTasks.add(t);
        pipelinedOn.add(on);
    }

    /** An eviction committed for {@code forJob}; {@code setReason}: it set the victim's job's reason. */
    void evicted(Task victim, Job forJob, String action, String rule, boolean setReason) {
        committed.add(new Committed(victim, forJob, action, rule, setReason));
    }

    /**
     * The gang's add-back (Kueue's: remove candidates until the workload fits, then add back, in reverse order, what
     * is not needed): each member's plan was minimal when it was found, but a later member's victims (a whole gang
     * taken on another member's node, room freed under the capability) can make an earlier member's unneeded. Victim
     * jobs are looked at newest choice first: all the pods the job lost stay if every placement still has its room
     * and its queue's capabilities still hold; else each pod on its own, if the job keeps its minimum. Giving back only
     * raises the victim queues, so their floors hold. A victim back where it ran changes the placements' fit by its
     * resources, its share under a capability, and through pod rules: a victim that could ({@link #couldBind}) stays
     * gone.
     */
    void giveBackUnneeded(QueueState q, GangTransaction tx) {
        List<Task> placed = tx.placements();
        List<NodeState> placedOn = new ArrayList<>();
        for (Task t : placed) placedOn.add(tx.nodeOf(t));
        addBack(tx.evictions(), v -> v.job, lost -> tryRestore(q, tx, placed, placedOn, lost));
    }

    /** Restores {@code victims} if every placement keeps its room and capability; else evicts them again. */
    private boolean tryRestore(QueueState q, GangTransaction tx, List<Task> placed, List<NodeState> placedOn,
                               List<Task> victims) {
        for (Task v : victims) if (couldBind(v, placed, placedOn)) return false;
        for (Task v : victims) tx.restore(v);
        boolean holds = true;
        for (Task v : victims) if (v.node.free().anyNegative()) holds = false;
        if (holds) {
            Resources share = Resources.NONE;
            for (Task t : placed) share = share.add(t.share());
            for (QueueState a = q; a != null && holds; a = a.parent) {
                if (!a.hardCap().admits(a.allocated.subtract(share), share)) holds = false;
            }
        }
        if (holds) return true;
        for (Task v : victims) tx.evict(v);
        return false;
    }

    /**
     * The cycle's add-back, after every eviction action: each job's plan was minimal when it was made, but a later
     * job's victims on the same nodes (or under the same capability) can make an earlier job's unneeded. Victim jobs
     * are looked at newest first, as in {@link #giveBackUnneeded}: all the pods the job lost this cycle stay if every
     * held placement keeps its room and every capability still holds, else each pod on its own where the job keeps
     * its minimum. Never a victim that could change whether a held pod fits ({@link #couldBind}).
     */
    void giveBackAcrossJobs() {
        if (committed.size() < 2) return;
        addBack(new ArrayList<>(committed), c -> c.victim().job, this::restoreCommitted);
    }

    /**
     * The add-back's order, for a gang's victims and for the cycle's: victim jobs in {@code evicted} (eviction order)
     * newest first; all the pods a job lost are offered to {@code restore} together, and if they cannot all stay, each
     * of them, the last first, while the job would keep its minimum with one more back (never for a job disrupted whole,
     * {@link Job#disruptAll}).
     */
    private static <T> void addBack(List<T> evicted, java.util.function.Function<T, Job> jobOf,
                                    java.util.function.Predicate<List<T>> restore) {
        Map<Job, List<T>> byJob = new java.util.LinkedHashMap<>();
        for (T e : evicted) byJob.computeIfAbsent(jobOf.apply(e), k -> new ArrayList<>()).add(e);
        List<Job> jobs = new ArrayList<>(byJob.keySet());
        for (int k = jobs.size() - 1; k >= 0; k--) {
            List<T> lost = byJob.get(jobs.get(k));
            if (restore.test(lost) || lost.size() < 2) continue;
            Job v = jobs.get(k);
            for (int i = lost.size() - 1; i >= 0; i--) {
                // One pod back: the job must keep its minimum (no broken gang) with the others still gone; a job
                // disrupted whole (disruptionMode all) comes back whole or not at all.
                if (v.disruptAll || v.liveMembers() + 1 < Math.max(1, v.minMember)) break;
                restore.test(List.of(lost.get(i)));
            }
        }
    }

    /** Takes back these committed evictions if every held placement keeps its room and every capability holds. */
    private boolean restoreCommitted(List<Committed> these) {
        Resources share = Resources.NONE;
        for (Committed c : these) {
            if (couldBind(c.victim(), pipelinedTasks, pipelinedOn)) return false;
            share = share.add(c.victim().share());
        }
        for (Committed c : these) {
            GangTransaction.putBack(state, fitter, c.victim(), c.victim().node);
            state.touch(c.victim());
        }
        boolean holds = true;
        for (Committed c : these) if (c.victim().node.free().anyNegative()) holds = false;
        QueueState vq = these.get(0).victim().job.queueState;
        for (QueueState a = vq; a != null && holds; a = a.parent) {
            if (!a.hardCap().admits(a.allocated.subtract(share), share)) holds = false;
        }
        if (!holds) {
            for (Committed c : these) GangTransaction.takeOut(state, fitter, c.victim());
            return false;
        }
        for (Committed c : these) {
            Task v = c.victim();
            committed.remove(c);
            evictions.removeIf(e -> e.pod().equals(v.id()));
            budget.refund(v);
            if (c.setReason() && v.job.liveMembers() > 0 && !hasCommitted(v.job)) v.job.setReason(null, null);
            int left = 0;
            for (Committed o : committed) if (o.forJob() == c.forJob()) left++;
            c.forJob().setReason(waitingFor(left, c.action()), c.rule());
        }
        return true;
    }

    private boolean hasCommitted(Job j) {
        for (Committed c : committed) if (c.victim().job == j) return true;
        return false;
    }

    /**
     * Whether a victim back on its node could change whether a held pod fits: as the holder of a required
     * anti-affinity, or as a pod a held pod's anti-affinity or spread counts, in its domain
     * ({@code Placement.indifferentTo}).
     */
    private static boolean couldBind(Task victim, List<Task> held, List<NodeState> heldOn) {
        if (!victim.pod.placement().podAntiAffinity().required().isEmpty()) return true;
        for (int i = 0; i < held.size(); i++) {
            if (!held.get(i).pod.placement().indifferentTo(heldOn.get(i).spec, victim.node.spec, victim.pod)) return true;
        }
        return false;
    }
}
