package dev.arbiter.engine.victims;

import dev.arbiter.engine.state.QueueState;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What turned candidates down during one search, to say why it found no plan: the jobs whose gang could not go
 * whole, the queues at their floor, the queues hysteresis spared, and the nodes searched. Data only: the search
 * ({@link PlanSearch}) fills it in, {@link NoPlanRefusal} turns it into a refusal.
 */
final class Tally {
    final Set<String> unbreakable = new java.util.TreeSet<>();
    final Set<String> atFloor = new java.util.TreeSet<>();
    final Set<String> wouldReturn = new java.util.TreeSet<>();
    /** Queues whose every candidate victim would leave them below their floor. */
    final Set<String> wouldGoBelow = new java.util.TreeSet<>();
    /** Whole jobs larger than their queue's floor, which would leave it below that floor. */
    final Set<String> belowFloor = new java.util.TreeSet<>();
    java.util.BitSet candidates = new java.util.BitSet();
    /**
     * Per victim queue, whether it is at its floor in every dimension the task needs as each node's search starts
     * ({@link OneNodePlan#floorAllows}): the same for every node, since queue allocations do not change during a search.
     */
    final Map<QueueState, Boolean> floorReached = new java.util.IdentityHashMap<>();
    /**
     * Per victim queue, the queues whose floors its victims must pass: it and its ancestors below the one it
     * shares with the searching task's queue.
     */
    final Map<QueueState, List<QueueState>> floorPaths = new java.util.IdentityHashMap<>();
    /** Candidates that passed a bounded search's bound (and were searched). */
    final java.util.BitSet within = new java.util.BitSet();
}
