package dev.arbiter.engine.victims;

import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The nodes hosting an allowed victim, and what those victims hold together per node: the part of a search that
 * depends only on the terms and on which tasks are evicted, worked out once for every search that shares them
 * ({@link VictimNodesCache}) and carried across cycles by a kept working copy
 * ({@link dev.arbiter.engine.kept.VictimMemory}, which only holds it). A copy is never changed: an update makes a new
 * one.
 */
public final class VictimNodes {
    final java.util.BitSet nodes;
    /**
     * What the allowed tasks on each node hold together (null: none), by node index, in chunks of
     * {@value #CHUNK} nodes: an update copies the chunks it changes, not a slot for every node of the cluster.
     */
    private final Resources[][] allowedSum;
    static final int CHUNK = 256;

    VictimNodes(java.util.BitSet nodes, Resources[][] allowedSum) {
        this.nodes = nodes;
        this.allowedSum = allowedSum;
    }

    /** Empty chunks for {@code nodeCount} nodes. */
    static Resources[][] chunks(int nodeCount) {
        return new Resources[(nodeCount + CHUNK - 1) / CHUNK][];
    }

    Resources allowedSum(int node) {
        Resources[] chunk = allowedSum[node / CHUNK];
        return chunk == null ? null : chunk[node % CHUNK];
    }

    /** Sets a node's sum in {@code sums}, whose chunks in {@code own} are this copy's own (the rest are shared). */
    static void setAllowedSum(Resources[][] sums, java.util.BitSet own, int node, Resources sum) {
        int c = node / CHUNK;
        if (!own.get(c)) {
            sums[c] = sums[c] == null ? new Resources[CHUNK] : sums[c].clone();
            own.set(c);
        }
        sums[c][node % CHUNK] = sum;
    }

    /**
     * A copy with the {@code touched} nodes worked out again for the tasks {@code allowed} (this one is left as it
     * is: searches may hold it).
     */
    VictimNodes updated(java.util.Collection<NodeState> touched, Predicate<Task> allowed) {
        java.util.BitSet n = (java.util.BitSet) nodes.clone();
        Resources[][] sums = allowedSum.clone();
        java.util.BitSet own = new java.util.BitSet(sums.length);
        for (NodeState node : touched) {
            Resources sum = allowedOn(node, allowed);
            setAllowedSum(sums, own, node.index, sum);
            n.set(node.index, sum != null);
        }
        return new VictimNodes(n, sums);
    }

    /** A copy with the nodes of {@code touched} (indexes into {@code all}) worked out again. */
    VictimNodes updated(java.util.BitSet touched, List<NodeState> all, Predicate<Task> allowed) {
        List<NodeState> these = new ArrayList<>(touched.cardinality());
        for (int i = touched.nextSetBit(0); i >= 0; i = touched.nextSetBit(i + 1)) these.add(all.get(i));
        return updated(these, allowed);
    }

    /** The nodes hosting an allowed victim that are among {@code eligible} (node indexes), as a new set. */
    java.util.BitSet among(java.util.BitSet eligible) {
        java.util.BitSet out = (java.util.BitSet) nodes.clone();
        out.and(eligible);
        return out;
    }

    /**
     * Whether the node would hold {@code request} were every allowed victim on it gone (as
     * {@link PlanSearch#roomWithAllVictims}).
     */
    boolean roomWithAll(NodeState n, Resources request) {
        Resources free = n.free();
        Resources victims = allowedSum(n.index);
        for (int i = 0; i < request.size(); i++) {
            long missing = request.milliAt(i) - free.milliInterned(request.name(i));
            if (missing > 0 && (victims == null || victims.milliInterned(request.name(i)) < missing)) return false;
        }
        return true;
    }

    /** What the tasks {@code allowed} on the node hold together, or null when there are none. */
    static Resources allowedOn(NodeState n, Predicate<Task> allowed) {
        Resources.Sum sum = null;
        for (Task t : n.tasks) {
            if (!allowed.test(t)) continue;
            if (sum == null) sum = new Resources.Sum();
            sum.add(t.request());
        }
        return sum == null ? null : sum.toResources();
    }
}
