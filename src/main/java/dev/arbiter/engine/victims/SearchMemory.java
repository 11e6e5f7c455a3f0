package dev.arbiter.engine.victims;

import dev.arbiter.decision.Refusal;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.VictimSelector.Plan;
import dev.arbiter.engine.victims.VictimSelector.Terms;

import dev.arbiter.model.Resources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the victim search remembers within a cycle, so that a question asked again is not searched again: the last
 * failure per question (held while the fitter says no capacity came back, or confirmed from the nodes touched since),
 * every plan by the exact state it was found in, which candidates came within a bound, and the queues' floors. The
 * {@link VictimSelector} consults it before it searches and records in it what the search found; nothing here
 * changes a decision, only whether it is worked out again.
 */
final class SearchMemory {
    /**
     * What a search depends on besides the cycle's state: the task's shape and constraints, the terms, and the
     * preemptor's own job when it has running members (they are never its victims).
     */
    record SearchKey(Resources request, Object constraints, Object terms, Job ownJob) {}

    /**
     * A search that found no plan: the state it was made in, the position in the fitter's log of touched nodes then,
     * and whether the preemptor queue's capability could bind then.
     */
    record Failure(NodeFitter.Stamp at, int touchMark, boolean capBinds, Refusal.NoPlan why, long podRuleCounts) {}

    private record PlanAt(SearchKey key, long version) {}

    /**
     * A bounded search: its bound, the position in the fitter's log of touched nodes when it began, and the
     * candidates that came within {@code most} victims ({@link VictimNodes#roomWithAll} and
     * {@link PlanSearch#roomWithLargestVictims} let them through; empty when none did). Jobs refused by a nearly spent
     * eviction budget ask the same few questions again and again in a cycle, with the same or a smaller bound: see
     * {@link #withinReach}.
     */
    record Reach(int most, int touchMark, java.util.BitSet within) {}

    /** At most this many touched nodes are added to a remembered {@link Reach}; more, and every candidate is searched. */
    private static final int REACH_RECHECK = 256;

    /** At most this many nodes given back room are searched again to confirm a failure; more, and all are. */
    private static final int RECHECK_LIMIT = 32;

    private final NodeFitter fitter;
    /** The last failed search per question, while no plan has been found for it since. */
    private final Map<SearchKey, Failure> failures = new HashMap<>();
    /**
     * Every plan found, by the exact state it was found in: an undone gang returns the cycle to an earlier state,
     * and the next job asking the same question there gets the same plan.
     */
    private final Map<PlanAt, Plan> plans = new HashMap<>();
    private final Map<SearchKey, Reach> reaches = new HashMap<>();
    private final Map<QueueState, Resources> ancestorFloors = new java.util.IdentityHashMap<>();

    SearchMemory(NodeFitter fitter) {
        this.fitter = fitter;
    }

    /** The question {@code task} asks under {@code terms}. */
    SearchKey keyOf(Task task, Terms terms) {
        return new SearchKey(task.request(), fitter.constraintsKey(task.pod), terms.key(),
                task.job.running.isEmpty() ? null : task.job);
    }

    /** The plan found for the question in the state named {@code version}, or null. */
    Plan planIn(SearchKey key, long version) {
        return plans.get(new PlanAt(key, version));
    }

    /** A plan was found for the question in the state named {@code version}: its failure is forgotten. */
    void planned(SearchKey key, long version, Plan plan) {
        failures.remove(key);
        plans.put(new PlanAt(key, version), plan);
    }

    /** The last failure of the question, or null. */
    Failure failure(SearchKey key) {
        return failures.get(key);
    }

    /** The question found no plan now, for the reason {@code why}. */
    void failed(SearchKey key, boolean capBinds, Refusal.NoPlan why, long podRuleCounts) {
        failures.put(key, new Failure(fitter.stamp(), fitter.touchMark(), capBinds, why, podRuleCounts));
    }

    /** The failure {@code failed} was confirmed from the nodes touched since ({@link #failsOnTouchedNodes}). */
    void failedAgain(SearchKey key, Failure failed, long podRuleCounts) {
        failures.put(key, new Failure(fitter.stamp(), fitter.touchMark(), false, failed.why(), podRuleCounts));
    }

    /** The last bounded search of the question, or null. */
    Reach reach(SearchKey key) {
        return reaches.get(key);
    }

    void reached(SearchKey key, Reach reach) {
        reaches.put(key, reach);
    }

    /**
     * The only candidates that can come within {@code most} victims, from an earlier bounded search of the same
     * question with a bound at least as large: those that came within its bound, and the nodes touched since. Null
     * when every candidate must be looked at. The bound's tests read a node's free room, which victims the terms allow
     * there (fewer as the cycle evicts and queues spend their budgets) and how many members taking each costs (which
     * only an eviction from its gang changes), and a smaller bound only lets fewer through: everything that could
     * let a node through that was turned down touches that node (a placement only takes room). The nodes are then
     * searched in node order as before, so the plan is the one a search of every candidate finds.
     */
    java.util.BitSet withinReach(Reach known, int most) {
        if (most > known.most()) return null;
        java.util.Set<NodeState> touched = fitter.touchedSince(known.touchMark(), REACH_RECHECK);
        if (touched == null) return null;
        java.util.BitSet visit = (java.util.BitSet) known.within().clone();
        for (NodeState n : touched) visit.set(n.index);
        return visit;
    }

    /**
     * Whether a search that failed still fails, judged from the nodes touched since (see {@link NodeFitter}). For
     * preemption (no floors, no hysteresis) while the queue's capability binds neither then nor now, a node's plan
     * depends only on that node and its victims' gangs: elsewhere placements only took room and victims only became
     * fewer. So if no plan fits on the touched nodes, none fits at all ({@code search} looks at them).
     */
    boolean failsOnTouchedNodes(Task task, Terms terms, Failure failed, PlanSearch search) {
        if (!terms.floors().isEmpty() || terms.hysteresis() || failed.capBinds() || PlanSearch.capBinds(task, terms)) {
            return false;
        }
        java.util.Set<NodeState> touched = fitter.touchedSince(failed.touchMark(), RECHECK_LIMIT);
        if (touched == null) return false;
        for (NodeState n : touched) {
            if (!fitter.isEligible(task.pod, n) || !PlanSearch.hostsAllowedVictim(n, terms)) continue;
            if (PlanSearch.roomWithAllVictims(n, task, terms)
                    && search.planOn(n, task, terms, List.of(), new Tally()) != null) {
                return false;
            }
        }
        return true;
    }

    /** An ancestor's floor: its deserved share, or its guarantee if larger (fixed for the cycle's eviction steps). */
    Resources floorOf(QueueState q) {
        return ancestorFloors.computeIfAbsent(q, k -> k.deserved().max(k.effectiveGuarantee));
    }
}
