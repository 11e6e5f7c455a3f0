package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.victims.OverDeserved;
import dev.arbiter.policy.ReclaimFit;
import dev.arbiter.engine.cycle.EvictionReasons.Outcome;
import dev.arbiter.engine.cycle.VictimPools.Reach;
import dev.arbiter.engine.cycle.VictimPools.Usable;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.VictimSelector;

import static dev.arbiter.engine.cycle.EvictionReasons.PER_CYCLE_SETTING;
import static dev.arbiter.engine.cycle.EvictionReasons.PER_QUEUE_SETTING;

import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Steps 5 and 6 of a cycle: preemption (within a queue, as {@code PreemptGrant}s allow) and reclaim (across queues, as
 * {@code ReclaimGrant}s allow, down to each victim queue's floor), for starving jobs in queue and job order. A job is
 * starving while its gang cannot start (Volcano's job-starving rule): it evicts only until {@code minMember} of its
 * tasks can run, and the rest of an elastic job's tasks wait for free capacity. A job's evictions are committed only
 * if its gang requirement then holds and they fit this cycle's eviction budgets; its placements are held as
 * nominations for the next cycle.
 *
 * <p>A starving job that stays pending learns why: each action that could have helped adds "{@code preempt: ...}" or
 * "{@code reclaim: ...}" to its reason — no lower-priority work, every candidate protected (by which rule, and for how
 * long), a capability, the victim queues' floors, hysteresis, the eviction budget, a gang too large for the queue's
 * deserved share, or no set of victims that makes room (with the closest node's shortfall).
 *
 * <p>The steps walk the queues and their starving jobs here; the rest is in its own file: the candidates each step
 * offers the victim search ({@link VictimPools}), one job's attempt as a transaction ({@link GangEviction}), giving
 * back victims not needed ({@link AddBack}), the budgets ({@link EvictionBudget}) and the words ({@link
 * EvictionReasons}).
 */
public final class EvictionPhase {
    private final CycleWork w;
    private final Policy policy;
    private final EvictionReasons reasons;
    private final EvictionBudget budget;
    private final VictimPools pools;
    private final AddBack addBack;
    private final GangEviction eviction;

    EvictionPhase(CycleWork w) {
        this.w = w;
        this.policy = w.policy;
        this.reasons = new EvictionReasons(w);
        this.budget = new EvictionBudget(w);
        this.pools = new VictimPools(w.state);
        this.addBack = new AddBack(w, budget);
        this.eviction = new GangEviction(w, reasons, budget, addBack);
    }

    void preempt() {
        for (QueueState q : w.sortedQueues()) {
            PreemptGrant grant = policy.preemptGrants().get(q.name());
            if (grant == null) continue;
            // The queue's running tasks and its possible victims, lowest job priority first: a preemptor may take a
            // prefix of the candidates.
            List<Task> running = pools.runningByJobPriority(q);
            List<Task> candidates = new ArrayList<>();
            for (Task t : running) if (t.protection == null || !t.protection.coversPreemption()) candidates.add(t);
            // Why a job without running members finds no candidate depends only on its priority: worded once each.
            Map<Integer, Outcome> noCandidatesAt = new HashMap<>();
            ShareGap gap = grant.shareGapOnly() ? new ShareGap(w.state.clusterTotal) : null;
            Map<Integer, TermsKey> keys = new HashMap<>();
            for (Job j : q.jobs) {
                if (!starving(j)) continue;
                if (budget.spent()) {
                    reasons.refuse(j, "preempt", reasons.budgetSpent(), PER_CYCLE_SETTING);
                    continue;
                }
                int below = grant.lowerPriorityOnly() ? VictimPools.countBelow(candidates, j.priority)
                        : gap != null && j.priority < Integer.MAX_VALUE ? VictimPools.countBelow(candidates, j.priority + 1)
                        : candidates.size();
                List<Task> pool = candidates.subList(0, below);
                double share = gap == null ? 0 : gap.preemptorShare(j);
                if (gap != null) {
                    List<Task> narrowing = new ArrayList<>();
                    for (Task t : pool) {
                        if (t.job != j && (t.job.priority < j.priority || gap.allows(share, t))) narrowing.add(t);
                    }
                    pool = narrowing;
                }
                Outcome o;
                if (pool.isEmpty() && gap != null) {
                    o = Outcome.refused(new Refusal.NoShareGap(q.name()), grant.rule());
                } else if (pool.isEmpty()) {
                    o = j.running.isEmpty()
                            ? noCandidatesAt.computeIfAbsent(j.priority, p -> reasons.noCandidates(q, j, grant, running))
                            : reasons.noCandidates(q, j, grant, running);
                } else if (budget.queueSpent(q.name())) {
                    o = Outcome.refused(reasons.queueBudgetSpent(q.name()), PER_QUEUE_SETTING);
                } else {
                    TermsKey key = gap != null ? new TermsKey(List.of("preempt", q.name(), "share gap", j.id))
                            : keys.computeIfAbsent(grant.lowerPriorityOnly() ? j.priority : 0,
                            p -> new TermsKey(List.of("preempt", q.name(), grant.lowerPriorityOnly() ? p : "any")));
                    // The same test as the pool, for tasks the search meets on a node: only this queue's unshielded
                    // tasks of strictly lower priority (when the grant says so), never the preemptor's own (the terms'
                    // own job).
                    java.util.function.Predicate<Task> eligible = t -> t.job.queueState == q
                            && (!grant.lowerPriorityOnly() || t.job.priority < j.priority)
                            && (gap == null || t.job.priority < j.priority
                                    || (t.job.priority == j.priority && gap.allows(share, t)))
                            && (t.protection == null || !t.protection.coversPreemption())
                            && !budget.queueSpent(t.job);
                    o = eviction.startInOneDomain(q, j, new VictimSelector.Terms(pool, eligible, Map.of(), q, q, false, key, j),
                            null, ReclaimFit.EVERY_NEEDED, "preempt", grant.rule());
                    o = reasons.noteRefused(j, o, t -> t.job != j && t.job.queueState == q
                            && (!grant.lowerPriorityOnly() || t.job.priority < j.priority));
                }
                if (o.started()) continue;
                reasons.refuse(j, "preempt", o);
                if (policy.fifo(q.name())) break;
            }
        }
    }

    // ---- 6. reclaim ---------------------------------------------------------------------------------------

    void reclaim() {
        pools.newReclaimStep();
        for (QueueState q : w.sortedQueues()) {
            List<ReclaimGrant> grants = policy.reclaimGrants().getOrDefault(q.name(), List.of());
            Map<String, Resources> floors = new HashMap<>();
            Map<String, Resources> ceilings = new HashMap<>();
            Map<String, ReclaimFit> fits = new HashMap<>();
            ReclaimFit fit = ReclaimFit.EVERY_NEEDED;
            Resources ceiling = grants.isEmpty() ? q.deserved() : Resources.NONE;
            java.util.Set<String> overDeservedQueues = new java.util.HashSet<>();
            int levels = 0;
            for (ReclaimGrant g : grants) {
                if (g.victims() == dev.arbiter.policy.VictimTest.OVER_DESERVED) overDeservedQueues.add(g.victimQueue());
                levels = Math.max(levels, g.ancestorLevels());
                floors.put(g.victimQueue(), g.victimFloor());
                ceilings.put(g.victimQueue(), g.reclaimerCeiling());
                fits.put(g.victimQueue(), g.fit());
                if (g.fit() == ReclaimFit.SOME_NEEDED) fit = ReclaimFit.SOME_NEEDED;
                ceiling = ceiling.max(g.reclaimerCeiling());
            }
            OverDeserved overDeserved = overDeservedQueues.isEmpty() && levels == 0 ? OverDeserved.NONE
                    : new OverDeserved(overDeservedQueues, levels);
            String rule = grants.isEmpty() ? null : grants.get(0).rule();
            boolean hysteresis = policy.settings.churn().hysteresis();
            Map<java.util.Set<String>, List<Task>> poolOf = new HashMap<>();
            Map<java.util.Set<String>, Usable> usables = new HashMap<>();
            String[] victimQueues = floors.keySet().toArray(new String[0]);
            Map<Long, Reach> reaches = new HashMap<>();
            Outcome queueRefusal = null;
            for (Job j : q.jobs) {
                if (!starving(j)) continue;
                Outcome o;
                Resources need = null;
                if (grants.isEmpty()) {
                    if (queueRefusal == null) queueRefusal = Outcome.refused(reasons.noGrantReason(q), null);
                    o = reasons.tooLarge(q, need = j.startNeed(), ceiling, fit, 0, rule);
                    if (o == null) o = queueRefusal;
                } else if (AncestorShares.reached(q, ceiling, levels)) {
                    o = EvictionReasons.holdsDeserved(q, ceiling, rule);
                } else if ((o = reasons.tooLarge(q, need = j.startNeed(), ceiling, fit, levels, rule)) != null) {
                    // the gang could never start under the deserved share, whatever is reclaimed
                } else if (!pools.anyAboveFloor(floors, overDeserved.queues())) {
                    o = EvictionReasons.downToFloors(floors.keySet(), rule);
                } else if (budget.spent()) {
                    o = Outcome.refused(reasons.budgetSpent(), PER_CYCLE_SETTING);
                } else {
                    // Each grant has its own ceiling: a victim queue gives back only to a job that starts under the
                    // ceiling of the grant that names it (the loosest grant's ceiling bounds the job as a whole).
                    Reach reach = VictimPools.reach(q, need, victimQueues, floors, ceilings, fits, levels, reaches);
                    Map<String, Resources> usable = reach.usable;
                    java.util.TreeSet<String> usableNames = reach.names;
                    if (reach.pool == null) reach.pool = poolOf.computeIfAbsent(usableNames, pools::runningUnprotected);
                    List<Task> pool = reach.pool;
                    if (pool.isEmpty()) {
                        o = reasons.nothingToReclaim(pools.runningIn(floors.keySet()), floors.keySet(), rule);
                    } else {
                        if (reach.terms == null) reach.terms = usables.computeIfAbsent(usableNames,
                                n -> new Usable(new TermsKey(List.of("reclaim", q.name(), n)), pools.existing(n)));
                        Usable u = reach.terms;
                        java.util.function.Predicate<Task> eligible = t -> t.protection == null
                                && VictimPools.usableQueue(t.job, usable, u.queues()) && !budget.queueSpent(t.job);
                        o = eviction.startInOneDomain(q, j, new VictimSelector.Terms(pool, eligible, usable, null, q, hysteresis,
                                u.key(), null, overDeserved), ceiling, fit, "reclaim", rule);
                        o = reasons.noteRefused(j, o, t -> usable.containsKey(t.job.queue));
                    }
                }
                if (o.started()) continue;
                reasons.refuse(j, "reclaim", o);
                if (policy.fifo(q.name())) break;
            }
        }
    }

    /**
     * Volcano's starving job: admitted, its gang cannot start with what runs (fewer than {@code minMember} members,
     * or a role short of its minimum), not already waiting on victims, and allowed to preempt. A job that may not
     * preempt is told so once.
     */
    private boolean starving(Job j) {
        if (!CycleWork.admitted(j) || !j.hasPending() || j.pipelined || w.staysParked(j)) return false;
        GangRequirement gang = policy.gangFor(j);
        if (gang == null || CycleWork.gangSatisfied(j, gang, null)) return false;
        Map<String, NoPreemption> nevers = policy.noPreemption();
        NoPreemption never = nevers.isEmpty() ? null : nevers.get(j.id); // (most cycles have none: no hash read)
        if (never != null) {
            Refusal saidNever = new Refusal.Never(never.reason());
            if (j.reason == null || !j.reason.holds(saidNever)) {
                reasons.refuse(j, "preempt and reclaim", saidNever, never.rule());
            }
            return false;
        }
        return true;
    }

    /** The cycle's add-back, after every eviction action ({@link AddBack#giveBackAcrossJobs}). */
    void giveBackAcrossJobs() {
        addBack.giveBackAcrossJobs();
    }
}
