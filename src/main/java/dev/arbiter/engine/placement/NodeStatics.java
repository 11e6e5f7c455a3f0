package dev.arbiter.engine.placement;

import dev.arbiter.engine.placement.NodeFitter.Scoring;
import dev.arbiter.engine.state.FreeIndex;
import dev.arbiter.engine.state.NodeState;

import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the fitter works out from the nodes alone — their labels, cordons and taints, and the nodes each set of
 * static constraints admits — kept across cycles with the nodes ({@link WorkingCopy}) while the node list is the
 * same. Classes confined to a network domain (a cycle's own) are not kept. The other rooms hold it as
 * {@link NodeFitter.Statics}.
 */
class NodeStatics {
    /** Beyond this many kept classes or tolerations, the oldest are forgotten (a cluster churning pod shapes). */
    private static final int MOST = 4096;
    final List<NodeState> nodes;
    final LabelIndex labels;
    final BitSet unschedulable = new BitSet();
    private final BitSet untainted = new BitSet();
    /** Nodes with a {@code PreferNoSchedule} taint (which only scores: {@link StaticClass#points}). */
    final BitSet preferNoSchedule = new BitSet();
    private final Map<List<Toleration>, BitSet> toleratedBy = new HashMap<>();
    private final Map<Constraints, StaticClass> classes = new HashMap<>();

    NodeStatics(List<NodeState> nodes) {
        this.nodes = List.copyOf(nodes);
        this.labels = new LabelIndex(this.nodes);
        for (NodeState n : this.nodes) {
            if (n.spec.unschedulable()) unschedulable.set(n.index);
            boolean clean = true;
            for (Taint t : n.spec.taints()) {
                clean &= !StaticClass.blocks(t);
                if (!StaticClass.blocks(t)) preferNoSchedule.set(n.index);
            }
            if (clean) untainted.set(n.index);
        }
    }

    /** Whether these statics were worked out from {@code these} nodes (the same objects, in the same order). */
    boolean of(List<NodeState> these) {
        if (these.size() != nodes.size()) return false;
        for (int i = 0; i < these.size(); i++) if (these.get(i) != nodes.get(i)) return false;
        return true;
    }

    /** Sorted node indexes kept across cycles, and whether each was used since the last {@link #sweep}. */
    private final Map<KeptIndex, FreeIndex> kept = new HashMap<>();
    private final Set<KeptIndex> usedSinceSweep = new java.util.HashSet<>();

    private record KeptIndex(NodeScoring.IndexKey key, Scoring scoring) {}

    FreeIndex keptIndex(NodeScoring.IndexKey key, Scoring scoring) {
        KeptIndex k = new KeptIndex(key, scoring);
        FreeIndex set = kept.get(k);
        if (set != null) usedSinceSweep.add(k);
        return set;
    }

    void keepIndex(NodeScoring.IndexKey key, Scoring scoring, FreeIndex set) {
        KeptIndex k = new KeptIndex(key, scoring);
        kept.put(k, set);
        usedSinceSweep.add(k);
    }

    /**
     * Drops the kept indexes no cycle used since the last sweep (every change of free capacity re-files a node in
     * each index it is in, so an index nobody reads is not kept for nothing), and the shortfalls nobody asked for.
     * Called as a cycle begins.
     */
    public void sweep() {
        kept.entrySet().removeIf(e -> {
            if (usedSinceSweep.contains(e.getKey())) return false;
            for (NodeState n : e.getValue()) n.unindexed(e.getValue());
            return true;
        });
        usedSinceSweep.clear();
        shortfalls.keySet().retainAll(askedSinceSweep);
        askedSinceSweep.clear();
    }

    /**
     * Shortfalls kept across cycles, by request and class, and whether each was asked for since the last
     * {@link #sweep}: at most {@value #MOST_SHORTFALLS} (each holds three numbers per eligible node).
     */
    private final Map<NoFitReasons.BaseKey, Shortfalls> shortfalls = new HashMap<>();
    private final Set<NoFitReasons.BaseKey> askedSinceSweep = new java.util.HashSet<>();
    private static final int MOST_SHORTFALLS = 256;

    Shortfalls keptShortfalls(NoFitReasons.BaseKey key) {
        Shortfalls s = shortfalls.get(key);
        if (s != null) askedSinceSweep.add(key);
        return s;
    }

    void keepShortfalls(NoFitReasons.BaseKey key, Shortfalls s) {
        if (shortfalls.size() >= MOST_SHORTFALLS) return;
        shortfalls.put(key, s);
        askedSinceSweep.add(key);
    }

    /** How many sorted indexes and shortfalls it keeps (for tests). */
    int keptIndexes() {
        return kept.size();
    }

    int keptShortfalls() {
        return shortfalls.size();
    }

    StaticClass staticClass(Constraints c) {
        StaticClass sc = classes.get(c);
        if (sc == null) {
            sc = new StaticClass(this, c);
            if (c.within() == null) {
                if (classes.size() >= MOST) classes.clear();
                classes.put(c, sc);
            }
        }
        return sc;
    }

    /** The nodes whose NoSchedule and NoExecute taints the tolerations all tolerate. */
    BitSet tolerated(List<Toleration> tolerations) {
        if (toleratedBy.size() >= MOST && !toleratedBy.containsKey(tolerations)) toleratedBy.clear();
        return (BitSet) toleratedBy.computeIfAbsent(tolerations, k -> {
            BitSet b = (BitSet) untainted.clone();
            for (NodeState n : nodes) {
                if (b.get(n.index)) continue;
                boolean ok = true;
                for (Taint t : n.spec.taints()) if (StaticClass.blocks(t) && !StaticClass.tolerates(k, t)) ok = false;
                if (ok) b.set(n.index);
            }
            return b;
        }).clone();
    }
}
