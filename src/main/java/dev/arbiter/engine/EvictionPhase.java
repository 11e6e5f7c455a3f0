package dev.arbiter.engine;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.facts.ChurnSettings;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Steps 5 and 6 of a cycle: preemption (within a queue, as {@code PreemptGrant}s allow) and reclaim (across queues, as
 * {@code ReclaimGrant}s allow, down to each victim queue's floor), for starving jobs in queue and job order. A job's
 * evictions are committed only if its gang requirement then holds and they fit this cycle's eviction budgets; its
 * placements are held as nominations for the next cycle.
 */
final class EvictionPhase {
    private final CycleWork w;
    private final CycleState state;
    private final Policy policy;
    private final NodeFitter fitter;
    private final VictimSelector victims;
    private final List<Eviction> evictions;
    private final List<Nomination> nominations;
    private final Map<String, Integer> evictedPerQueue;

    EvictionPhase(CycleWork w) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
        this.fitter = w.fitter;
        this.victims = w.victims;
        this.evictions = w.evictions;
        this.nominations = w.nominations;
        this.evictedPerQueue = w.evictedPerQueue;
    }

    void preempt() {
        for (QueueState q : w.sortedQueues()) {
            PreemptGrant grant = policy.preemptGrants().get(q.name());
            if (grant == null) continue;
            // The queue's possible victims, lowest job priority first: a preemptor may take a prefix of them.
            List<Task> candidates = runningUnprotected(List.of(q.name()), true);
            candidates.sort(Comparator.comparingInt(t -> t.job.priority));
            if (candidates.isEmpty()) continue;
            for (Job j : q.jobs) {
                // Nothing more can be committed this cycle (see startWithVictims).
                if (budgetSpent()) return;
                if (!starving(j)) continue;
                List<Task> pool = grant.lowerPriorityOnly()
                        ? candidates.subList(0, countBelow(candidates, j.priority)) : candidates;
                Object key = List.of("preempt", q.name(), grant.lowerPriorityOnly() ? j.priority : 0);
                // The same test as the pool, for tasks the search meets on a node: only this queue's unshielded
                // tasks of strictly lower priority (when the grant says so), never the preemptor's own.
                java.util.function.Predicate<Task> eligible = t -> t.job != j && t.job.queue.equals(q.name())
                        && (!grant.lowerPriorityOnly() || t.job.priority < j.priority)
                        && (t.protection == null || !t.protection.coversPreemption())
                        && !queueBudgetSpent(t.job.queue);
                boolean started = !pool.isEmpty() && startWithVictims(q, j, new VictimSelector.Terms(pool,
                        eligible, Map.of(), q.hardCap(), Resources.NONE, q, false, key), null,
                        "preempt", grant.rule());
                if (!started && policy.fifo(q.name())) break;
            }
        }
    }

    /** How many of {@code byPriority} (sorted by job priority) have a job priority strictly below {@code p}. */
    private static int countBelow(List<Task> byPriority, int p) {
        int lo = 0, hi = byPriority.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (byPriority.get(mid).job.priority < p) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** Running tasks of the queues that no rule protects from this kind of eviction. */
    private List<Task> runningUnprotected(java.util.Collection<String> queueNames, boolean forPreemption) {
        List<Task> out = new ArrayList<>();
        for (String name : queueNames) {
            QueueState vq = state.queues.get(name);
            if (vq == null) continue;
            for (Job vj : vq.jobs) {
                for (Task t : vj.running) {
                    boolean shielded = t.protection != null && (!forPreemption || t.protection.coversPreemption());
                    if (!shielded) out.add(t);
                }
            }
        }
        return out;
    }

    // ---- 6. reclaim ---------------------------------------------------------------------------------------

    void reclaim() {
        for (QueueState q : w.sortedQueues()) {
            List<ReclaimGrant> grants = policy.reclaimGrants().get(q.name());
            if (grants == null || grants.isEmpty()) continue;
            Map<String, Resources> floors = new HashMap<>();
            for (ReclaimGrant g : grants) floors.put(g.victimQueue(), g.victimFloor());
            List<Task> pool = runningUnprotected(floors.keySet(), false);
            if (pool.isEmpty()) continue;
            Resources ceiling = grants.get(0).reclaimerCeiling();
            boolean hysteresis = policy.churn() != null && policy.churn().hysteresis();
            Object key = List.of("reclaim", q.name());
            for (Job j : q.jobs) {
                if (q.reached(ceiling) || !anyAboveFloor(floors)) break;
                if (!starving(j)) continue;
                if (budgetSpent()) return;
                java.util.function.Predicate<Task> eligible = t -> t.protection == null
                        && floors.containsKey(t.job.queue) && !queueBudgetSpent(t.job.queue);
                boolean started = startWithVictims(q, j, new VictimSelector.Terms(pool, eligible, floors,
                        Caps.UNLIMITED, Resources.NONE, q, hysteresis, key), ceiling, "reclaim", grants.get(0).rule());
                if (!started && policy.fifo(q.name())) break;
            }
        }
    }

    private boolean anyAboveFloor(Map<String, Resources> floors) {
        for (Map.Entry<String, Resources> f : floors.entrySet()) {
            QueueState vq = state.queues.get(f.getKey());
            if (vq != null && !vq.allocated.fitsIn(f.getValue())) return true;
        }
        return false;
    }

    /**
     * Volcano's starving job: admitted, with pending tasks (a started elastic job may still want more), not already
     * waiting on victims, and allowed to preempt.
     */
    private boolean starving(Job j) {
        return CycleWork.admitted(j) && j.hasPending() && !j.pipelined && !policy.noPreemption().containsKey(j.id);
    }

    /**
     * Places the job's pending tasks in task order, evicting victims where idle capacity is not enough, until a
     * task finds no room (Volcano's starving job asks for all its tasks). Commits the evictions and holds the
     * placements (pipelined: they bind next cycle, once the victims are gone) only if the gang requirement then
     * holds; otherwise nothing changes.
     *
     * <p>Preemption ({@code ceiling} null) evicts within the queue, so it may also make room under the queue's
     * capability. Reclaim takes from other queues, so the queue may grow only up to {@code ceiling} (its
     * deserved share) in the dimensions each task needs, and never past its capability.
     */
    private boolean startWithVictims(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling,
                                     String action, String rule) {
        boolean capBinds = ceiling == null;
        if (budgetSpent()) return false;
        GangRequirement gang = policy.gangFor(j);
        if (gang == null) return false;
        w.releaseNominatedRoom(j);
        GangTransaction tx = new GangTransaction(state.queues, fitter);
        int waitsOnTerminating = 0;
        int victimCount = 0;
        Map<String, Integer> victimsPerQueue = new HashMap<>();
        for (Task t : j.pending) {
            if (t.placed) continue;
            Resources after = q.allocated.add(t.share());
            boolean capOk = q.capabilityAdmits(t.share());
            if (!capBinds && (!capOk || !after.withinIn(ceiling, t.share()))) break;
            NodeState n = capOk ? fitter.best(t.pod) : null;
            if (n == null && capOk) {
                // Pods already on their way out count before anyone else is evicted.
                n = fitter.bestOnceReleased(t.pod);
                if (n != null) waitsOnTerminating++;
            }
            if (n == null) {
                VictimSelector.Plan plan = victims.find(t, terms.withAllocated(q.allocated));
                if (plan == null) break;
                for (Task v : plan.victims()) {
                    tx.evict(v);
                    victimsPerQueue.merge(v.job.queue, 1, Integer::sum);
                }
                victimCount += plan.victims().size();
                n = plan.node();
                // More victims only overspend more: once over budget, the rest of the search is wasted.
                String overBudget = overspends(victimCount, victimsPerQueue);
                if (overBudget != null) {
                    tx.discard();
                    w.holdNominatedRoom(j);
                    j.setReason(overBudget, policy.churn().rule());
                    return false;
                }
            }
            tx.place(t, n);
        }
        if (!CycleWork.gangSatisfied(j, gang, tx) || (tx.evictions().isEmpty() && waitsOnTerminating == 0)) {
            tx.discard();
            w.holdNominatedRoom(j);
            return false;
        }
        j.pipelined = true;
        for (Task t : tx.placements()) {
            t.placed = true;
            nominations.add(new Nomination(t.id(), tx.nodeOf(t).name()));
        }
        if (tx.evictions().isEmpty()) {
            j.setReason("waiting for terminating pods to leave " + waitsOnTerminating + " node(s)", rule);
            return true;
        }
        for (Task v : tx.evictions()) {
            evictedPerQueue.merge(v.job.queue, 1, Integer::sum);
            evictions.add(new Eviction(v.id(), v.node.name(), action, j.id, rule,
                    action + " by " + j.id + " (priority " + j.priority + ") from queue \"" + v.job.queue + "\""));
        }
        j.setReason("waiting for " + tx.evictions().size() + " evicted pod(s) to leave (" + action + ")", rule);
        return true;
    }

    /**
     * The queue has used its per-queue eviction budget this cycle: it offers no more victims, and the search looks
     * elsewhere (a victim from it could only overspend).
     */
    private boolean queueBudgetSpent(String queue) {
        ChurnSettings churn = policy.churn();
        int maxQ = churn == null ? 0 : churn.maxEvictionsPerQueuePerCycle();
        return maxQ > 0 && evictedPerQueue.getOrDefault(queue, 0) >= maxQ;
    }

    /** The cycle's cluster-wide eviction budget is used up: no search could be committed. */
    private boolean budgetSpent() {
        ChurnSettings churn = policy.churn();
        return churn != null && churn.maxEvictionsPerCycle() > 0 && evictions.size() >= churn.maxEvictionsPerCycle();
    }

    /**
     * Why these evictions would overspend this cycle's eviction budget (churn control), or null. A budget limits what
     * is added to the cycle's evictions: the first gang to evict in a cycle (cluster-wide, or from a queue) may exceed
     * it, so a gang that needs more victims than one cycle's budget still starts — alone in its cycle.
     */
    private String overspends(int victimCount, Map<String, Integer> victimsPerQueue) {
        ChurnSettings churn = policy.churn();
        if (churn == null) return null;
        int max = churn.maxEvictionsPerCycle();
        if (max > 0 && !evictions.isEmpty() && evictions.size() + victimCount > max) {
            return "eviction budget of " + max + " pods per cycle would be exceeded (" + evictions.size()
                    + " already, at least " + victimCount + " needed)";
        }
        int maxQ = churn.maxEvictionsPerQueuePerCycle();
        for (Map.Entry<String, Integer> e : victimsPerQueue.entrySet()) {
            int already = evictedPerQueue.getOrDefault(e.getKey(), 0);
            if (maxQ > 0 && already > 0 && already + e.getValue() > maxQ) {
                return "eviction budget of " + maxQ + " pods per queue per cycle would be exceeded in queue \""
                        + e.getKey() + "\"";
            }
        }
        return null;
    }
}
