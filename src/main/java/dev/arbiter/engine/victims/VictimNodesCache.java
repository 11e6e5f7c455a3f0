package dev.arbiter.engine.victims;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.victims.VictimSelector.Terms;

import dev.arbiter.model.Resources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the victims are: per terms key, the {@link VictimNodes} the searches under it share, kept up to date within a
 * cycle from the nodes touched since and, for a kept working copy, taken up from the last cycle ({@link VictimMemory},
 * issue 17). It only narrows where a search looks; a search of every node finds the same plan.
 */
final class VictimNodesCache {
    private final WorkingCluster state;
    private final NodeFitter fitter;

    VictimNodesCache(WorkingCluster state, NodeFitter fitter) {
        this.state = state;
        this.fitter = fitter;
    }

    /**
     * Which tasks the terms allow changes only with evictions and their undoing (each touches the victim's node and its
     * gang's nodes, see {@link NodeFitter#touchMark}), when a queue spends its eviction budget (it then offers no
     * victims anywhere: {@link #queueBudgetSpent}) and, for a preemptor's own running members, with the job. So the
     * answer is kept per terms key, for every job that shares it ({@link Terms#allowsAnyJob}), and brought up to date
     * from the nodes touched since it was worked out: a new cycle's first evictions no longer make every later search
     * walk the whole victim pool again. A preemptor with running members of its own takes that answer with the nodes
     * they run on worked out again without them. It only narrows where {@link PlanSearch#planOn} looks.
     */
    private record VictimNodesFor(Object termsKey) {}

    /**
     * {@link VictimNodes} as of a position in the log of touched nodes and a {@link #spentBudgets} count; for a
     * preemptor's own, the shared answer it was made from ({@code from}).
     */
    private record KnownVictimNodes(VictimNodes nodes, int touchMark, int spentBudgets, VictimNodes from) {}

    /** At most this many touched nodes are brought up to date; more, and the victim nodes are worked out afresh. */
    private static final int VICTIM_NODES_UPDATE_LIMIT = 1024;

    private final Map<VictimNodesFor, KnownVictimNodes> victimNodes = new HashMap<>();
    /** How many times a queue has spent its eviction budget this cycle. */
    private int spentBudgets;

    /** A queue has spent its eviction budget for the cycle: the terms allow none of its tasks from now on. */
    void queueBudgetSpent() {
        spentBudgets++;
    }

    /** {@link VictimNodes} for the search of {@code task} under {@code terms}. */
    VictimNodes victimNodes(Task task, Terms terms) {
        VictimNodes shared = sharedVictimNodes(terms);
        Job own = terms.own();
        if (own == null || own.running.isEmpty()) return shared;
        // A gang's members ask one after another: the last job's answer is kept.
        if (ownNodes != null && ownNodes.from() == shared && ownNodesOf == own) return ownNodes.nodes();
        java.util.Set<NodeState> where = new java.util.LinkedHashSet<>();
        for (Task t : own.running) where.add(t.node);
        ownNodes = new KnownVictimNodes(shared.updated(where, terms::allows), -1, spentBudgets, shared);
        ownNodesOf = own;
        return ownNodes.nodes();
    }

    /** The last preemptor's {@link VictimNodes} without its own running members, and its job. */
    private KnownVictimNodes ownNodes;
    private Job ownNodesOf;

    /** {@link VictimNodes} for every job of the terms key. */
    private VictimNodes sharedVictimNodes(Terms terms) {
        VictimNodesFor key = new VictimNodesFor(terms.key());
        KnownVictimNodes known = victimNodes.get(key);
        int mark = fitter.touchMark();
        if (known != null && known.touchMark() == mark && known.spentBudgets() == spentBudgets) return known.nodes();
        java.util.Set<NodeState> touched = known == null || known.spentBudgets() != spentBudgets ? null
                : fitter.touchedSince(known.touchMark(), VICTIM_NODES_UPDATE_LIMIT);
        VictimNodes computed = touched != null ? known.nodes().updated(touched, terms::allowsAnyJob)
                : known == null && spentBudgets == 0 ? recalled(terms) : null;
        if (computed == null) computed = allVictimNodes(terms);
        if (known == null && victimNodes.size() >= 64) victimNodes.clear();
        victimNodes.put(key, new KnownVictimNodes(computed, mark, spentBudgets, null));
        // While no queue has spent its budget: exact as the cycle began except on the nodes it touched, for the next.
        if (protections != null && spentBudgets == 0
                && (made.size() < VictimMemory.MAX_ENTRIES || made.containsKey(terms.key()))) {
            made.put(terms.key(), computed);
        }
        return computed;
    }

    // ---- Across cycles (issue 17): see VictimMemory ---------------------------------------------------------------

    /** What the last cycle of the kept working copy left, and the nodes that may have changed since (null: none). */
    private VictimMemory carried;
    private java.util.BitSet stale;
    /** The protections of this cycle's running tasks, as {@link VictimMemory} compares them. */
    private java.util.IdentityHashMap<Task, Byte> protections;
    /** This cycle's victim nodes per terms key, for the next. */
    private final Map<Object, VictimNodes> made = new HashMap<>();
    /** The nodes touched this cycle, as of {@link #touchedUpTo} in the fitter's log. */
    private final java.util.BitSet touchedThisCycle = new java.util.BitSet();
    private int touchedUpTo;
    /** How many searches' victim nodes came from the last cycle's (for tests and benchmarks). */
    private int recalls;

    /**
     * Takes up what the last cycle of a kept working copy left ({@code memory}, or null), as the cycle begins with the
     * rules' protections set on its running tasks ({@code protectedRunning}).
     */
    void recall(VictimMemory memory, List<Task> protectedRunning) {
        protections = VictimMemory.protections(protectedRunning);
        carried = memory;
        stale = memory == null ? null : memory.stale(state, protections);
    }

    /** What this cycle leaves the next one; call once its searches are over. */
    VictimMemory remember() {
        return VictimMemory.next(state, protections, made, touchedThisCycle(), carried, stale);
    }

    /** How many searches' victim nodes came from the last cycle's. */
    int recalls() {
        return recalls;
    }

    private java.util.BitSet touchedThisCycle() {
        touchedUpTo = fitter.touchedInto(touchedUpTo, touchedThisCycle);
        return touchedThisCycle;
    }

    /**
     * The last cycle's victim nodes for the terms, brought up to date from the nodes that may have changed since, or
     * null when there are none or when working them out afresh costs less (more nodes to look at again than hold a
     * victim).
     */
    private VictimNodes recalled(Terms terms) {
        if (stale == null) return null;
        VictimMemory.Entry e = carried.entry(terms.key());
        if (e == null) return null;
        java.util.BitSet again = (java.util.BitSet) e.dirty().clone();
        again.or(stale);
        again.or(touchedThisCycle());
        if (again.cardinality() > e.nodes().nodes.cardinality()) return null;
        recalls++;
        return e.nodes().updated(again, state.nodes, terms::allowsAnyJob);
    }

    /** The nodes hosting a task the terms allow any of their jobs, from the whole pool. */
    private VictimNodes allVictimNodes(Terms terms) {
        java.util.BitSet nodes = new java.util.BitSet(state.nodes.size());
        for (Task t : terms.pool()) if (!nodes.get(t.node.index) && terms.allowsAnyJob(t)) nodes.set(t.node.index);
        Resources[][] allowedSum = VictimNodes.chunks(state.nodes.size());
        java.util.BitSet own = new java.util.BitSet();
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            VictimNodes.setAllowedSum(allowedSum, own, i, VictimNodes.allowedOn(state.nodes.get(i), terms::allowsAnyJob));
        }
        return new VictimNodes(nodes, allowedSum);
    }
}
