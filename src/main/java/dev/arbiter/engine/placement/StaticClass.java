package dev.arbiter.engine.placement;

import dev.arbiter.decision.ReasonWords;

import dev.arbiter.engine.state.NodeState;

import dev.arbiter.model.Placement;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The nodes a static class admits, and how much the pod prefers each: the filters that depend on a node alone —
 * kube-scheduler's NodeUnschedulable, TaintToleration and NodeAffinity (with nodeSelector), in that order — and, while
 * a gang tries a network domain, the domain; the scores that depend on a node alone — NodeAffinity's preferred terms
 * and TaintToleration's {@code PreferNoSchedule} taints ({@link #points}). One per distinct {@link Constraints}, kept
 * with the {@link NodeStatics}.
 */
final class StaticClass {
    static final String UNSCHEDULABLE = "node(s) were unschedulable";
    static final String NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
    /** The taint a cordoned node carries; a pod tolerating it may still go there (kube-scheduler's NodeUnschedulable). */
    static final Taint UNSCHEDULABLE_TAINT = new Taint("node.kubernetes.io/unschedulable", "", "NoSchedule");

    final NodeStatics statics;
    final Constraints c;
    /** Passing nodeSelector and required node affinity (what topology spread honors by default). */
    final BitSet affinityNodes;
    /** Whose NoSchedule and NoExecute taints the pod tolerates. */
    final BitSet tolerated;
    /** Passing every static predicate. */
    final BitSet eligible;
    /**
     * How much the pod prefers each node, by node index, or null when it prefers none over another. Its preferred
     * node-affinity weight; when some eligible node has a {@code PreferNoSchedule} taint the pod does not tolerate,
     * kube-scheduler's sum of the two scores instead: NodeAffinity's (the weight, scaled to 0..100 over the eligible
     * nodes) times {@link #NODE_AFFINITY_WEIGHT}, plus TaintToleration's (100 less the intolerable taints scaled to
     * 0..100, the most of any eligible node scoring 0) times {@link #TAINT_TOLERATION_WEIGHT}.
     */
    final long[] points;
    /** The distinct {@link #points} among eligible nodes, highest first ({@code [0]} without preferences). */
    final long[] tiers;
    /** kube-scheduler's default weights of its NodeAffinity and TaintToleration scores (Volcano's nodeorder's too). */
    static final int NODE_AFFINITY_WEIGHT = 2, TAINT_TOLERATION_WEIGHT = 3;
    private List<NodeState> list;
    /** Why a blocked pod fits no node, in words, as every node counts it ({@link #reason}); null when not blocked. */
    private final String blockedWords;

    StaticClass(NodeStatics statics, Constraints c) {
        this.statics = statics;
        this.c = c;
        LabelIndex labels = statics.labels;
        List<NodeState> nodes = statics.nodes;
        affinityNodes = labels.matchingLabels(c.selector());
        if (c.affinity().required() != null) affinityNodes.and(labels.matchingAny(c.affinity().required()));
        tolerated = statics.tolerated(c.tolerations());
        eligible = (BitSet) affinityNodes.clone();
        eligible.and(tolerated);
        if (!tolerates(c.tolerations(), UNSCHEDULABLE_TAINT)) eligible.andNot(statics.unschedulable);
        if (c.blocked() != null) eligible.clear();
        blockedWords = c.blocked() == null ? null : ReasonWords.words(c.blocked());
        if (c.within() != null) eligible.and(c.within().nodes);
        int[] intolerable = intolerablePreferNoSchedule(statics, c.tolerations(), eligible);
        if (c.affinity().preferred().isEmpty() && intolerable == null) {
            points = null;
            tiers = new long[] {0};
        } else {
            long[] weights = new long[nodes.size()];
            for (Placement.WeightedNodeTerm t : c.affinity().preferred()) {
                BitSet b = labels.matching(t.term());
                for (int i = b.nextSetBit(0); i >= 0; i = b.nextSetBit(i + 1)) weights[i] += t.weight();
            }
            points = intolerable == null ? weights : withTaints(weights, intolerable, eligible);
            TreeSet<Long> distinct = new TreeSet<>(Comparator.reverseOrder());
            for (int i = eligible.nextSetBit(0); i >= 0; i = eligible.nextSetBit(i + 1)) distinct.add(points[i]);
            tiers = distinct.stream().mapToLong(Long::longValue).toArray();
        }
    }

    /**
     * Per node, how many of its {@code PreferNoSchedule} taints the tolerations do not tolerate (a toleration of
     * another effect does not); null when no eligible node has one.
     */
    private static int[] intolerablePreferNoSchedule(NodeStatics statics, List<Toleration> tolerations, BitSet eligible) {
        int[] counts = null;
        for (int i = statics.preferNoSchedule.nextSetBit(0); i >= 0; i = statics.preferNoSchedule.nextSetBit(i + 1)) {
            if (!eligible.get(i)) continue;
            int n = 0;
            for (Taint t : statics.nodes.get(i).spec.taints()) if (!blocks(t) && !tolerates(tolerations, t)) n++;
            if (n == 0) continue;
            if (counts == null) counts = new int[statics.nodes.size()];
            counts[i] = n;
        }
        return counts;
    }

    /**
     * kube-scheduler's NodeAffinity and TaintToleration scores, each normalized over the eligible nodes as its
     * {@code DefaultNormalizeScore} does (integer arithmetic; the taints' reversed), weighted and summed.
     */
    private static long[] withTaints(long[] weights, int[] intolerable, BitSet eligible) {
        long mostWeight = 0, mostTaints = 0;
        for (int i = eligible.nextSetBit(0); i >= 0; i = eligible.nextSetBit(i + 1)) {
            mostWeight = Math.max(mostWeight, weights[i]);
            mostTaints = Math.max(mostTaints, intolerable[i]);
        }
        long[] out = new long[weights.length];
        for (int i = eligible.nextSetBit(0); i >= 0; i = eligible.nextSetBit(i + 1)) {
            long affinity = mostWeight == 0 ? 0 : 100 * weights[i] / mostWeight;
            long taints = 100 - 100L * intolerable[i] / mostTaints;
            out[i] = NODE_AFFINITY_WEIGHT * affinity + TAINT_TOLERATION_WEIGHT * taints;
        }
        return out;
    }

    long points(NodeState n) {
        return points == null ? 0 : points[n.index];
    }

    List<NodeState> list() {
        if (list == null) {
            list = new ArrayList<>();
            for (int i = eligible.nextSetBit(0); i >= 0; i = eligible.nextSetBit(i + 1)) list.add(statics.nodes.get(i));
        }
        return list;
    }

    private Map<String, Integer> staticCounts;

    /** How many nodes fail each static predicate (the first each fails); counted once per cycle. */
    Map<String, Integer> staticCounts() {
        if (staticCounts == null) {
            staticCounts = new HashMap<>();
            for (NodeState n : statics.nodes) {
                String r = reason(n);
                if (r != null) staticCounts.merge(r, 1, Integer::sum);
            }
        }
        return staticCounts;
    }

    /** Why {@code n} fails a static predicate, kube-scheduler's filters in their order; null when it passes. */
    String reason(NodeState n) {
        if (blockedWords != null) return blockedWords;
        if (n.spec.unschedulable() && !tolerates(c.tolerations(), UNSCHEDULABLE_TAINT)) return UNSCHEDULABLE;
        if (!tolerated.get(n.index)) {
            for (Taint t : n.spec.taints()) {
                if (blocks(t) && !tolerates(c.tolerations(), t)) {
                    return "node(s) had untolerated taint {" + t.key() + ": " + (t.value() == null ? "" : t.value()) + "}";
                }
            }
        }
        if (!affinityNodes.get(n.index)) return NODE_AFFINITY;
        if (c.within() != null && !c.within().nodes.get(n.index)) {
            return c.within().own ? c.within().name : "node(s) outside domain " + c.within().name;
        }
        return null;
    }

    /** A taint that keeps pods out (NoSchedule, NoExecute, or an unknown effect); PreferNoSchedule only scores. */
    static boolean blocks(Taint t) {
        return !"PreferNoSchedule".equals(t.effect());
    }

    static boolean tolerates(List<Toleration> tolerations, Taint t) {
        for (Toleration tol : tolerations) if (tol.tolerates(t)) return true;
        return false;
    }
}

