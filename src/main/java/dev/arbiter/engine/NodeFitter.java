package dev.arbiter.engine;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Node fitting and scoring, in Java and indexed (never a pod × node rule join).
 *
 * <p>Static predicates (cordon, nodeSelector, taints) depend only on the pod's constraints, so the eligible nodes
 * are computed once per distinct (nodeSelector, tolerations) per cycle. For each such class and each <em>primary
 * dimension</em> (the pod's scarcest kind of resource: an accelerator if it asks for one, else another extended
 * resource, else cpu, else memory) the eligible nodes are kept sorted by free amount of that dimension, and the sort
 * is maintained as placements and evictions change free capacity. A query walks that order from the first node with
 * enough of the primary dimension and returns the first node where every dimension fits.
 *
 * <p>Scoring: {@code binpack} (default) takes the node with the <em>least</em> free primary dimension that still
 * fits — filling GPU nodes one by one and keeping whole nodes free for large gangs; {@code spread} takes the node
 * with the <em>most</em>. Ties go to the earlier node. With per-resource weights (the policy's
 * {@code scoring.weights}, Volcano's binpack arguments), the first {@value #WEIGHED_CANDIDATES} nodes that fit in that
 * order are scored instead — {@code sum(weight × (used + request) / allocatable) / sum(weight)}, highest first for
 * binpack, lowest for spread — and the best wins. A pod shape that fitted nowhere is remembered until capacity is
 * released, so the thousandth identical task of a gang that cannot start costs a map lookup.
 */
final class NodeFitter {
    enum Scoring { BINPACK, SPREAD }

    private record Constraints(Map<String, String> selector, List<Toleration> tolerations) {}

    private record Shape(Resources request, Constraints constraints) {}

    private record IndexKey(Constraints constraints, String dimension) {}

    /** How many fitting nodes weighted scoring compares (the fullest, or emptiest, in the primary dimension). */
    static final int WEIGHED_CANDIDATES = 16;

    private final List<NodeState> nodes;
    private final Scoring scoring;
    private final Map<String, Integer> weights;
    private final Map<Constraints, List<NodeState>> eligible = new HashMap<>();
    private final Map<Constraints, java.util.Set<NodeState>> eligibleSets = new HashMap<>();
    private final Map<IndexKey, TreeSet<NodeState>> indexes = new HashMap<>();
    private final List<NodeState> releasing = new ArrayList<>();
    private final Map<Shape, Stamp> failedAt = new HashMap<>();
    /** Why a shape fits nowhere, counted once per cycle: the counts describe the first time it failed. */
    private final Map<Shape, String> why = new HashMap<>();
    /** Names the capacity state failures were seen in: a new name whenever capacity is given back. */
    private long epoch;
    private long lastEpoch;
    /** Names the exact state (node capacity, queue allocations, evictions): a new name on every change. */
    private long version;
    private long lastVersion;
    /** Ranges of versions issued inside undone transactions (first → last): states that no longer exist. */
    private final TreeMap<Long, Long> undone = new TreeMap<>();

    /** When a remembered outcome was seen: its epoch and exact state. */
    record Stamp(long epoch, long version) {}

    /** Where a transaction started, to {@link #undo} to. */
    record Mark(long epoch, long version, long lastVersion) {}

    /**
     * Every node where a search for victims may have become easier, in order: room given back (an eviction, an
     * undone placement, released nominated room), or victims back or changed (an eviction or its undo touches the
     * victim's gang's nodes, where the gang rule may now take members differently). Never shortened.
     */
    private final List<NodeState> touched = new ArrayList<>();

    NodeFitter(List<NodeState> nodes, Scoring scoring) {
        this(nodes, scoring, Map.of());
    }

    NodeFitter(List<NodeState> nodes, Scoring scoring, Map<String, Integer> weights) {
        this.nodes = nodes;
        this.scoring = scoring;
        this.weights = weights;
        for (NodeState n : nodes) if (n.hasReleasing()) releasing.add(n);
    }

    /** Call whenever capacity is given back (a discarded gang, an eviction), so remembered failures are retried. */
    void capacityReleased(java.util.Collection<NodeState> where) {
        epoch = ++lastEpoch;
        changed();
        touched.addAll(where);
    }

    /** Searches on these nodes may have become easier (see {@link #touched}); capacity was not given back. */
    void touched(java.util.Collection<NodeState> where) {
        touched.addAll(where);
    }

    /** A position in the log of touched nodes, to ask later what was touched since. */
    int touchMark() {
        return touched.size();
    }

    /** The nodes touched since {@code mark}, without repeats, or null if there are more than {@code max}. */
    java.util.Set<NodeState> touchedSince(int mark, int max) {
        java.util.Set<NodeState> out = new java.util.LinkedHashSet<>();
        for (int i = mark; i < touched.size(); i++) {
            if (out.add(touched.get(i)) && out.size() > max) return null;
        }
        return out;
    }

    /** Call on every other change to node capacity, queue allocations or evictions (a placement, held room). */
    void changed() {
        version = ++lastVersion;
    }

    Stamp stamp() {
        return new Stamp(epoch, version);
    }

    /**
     * A failure seen at {@code s} still holds: no capacity was given back since, and its state was not undone (a
     * state inside an undone transaction may have had less room than now).
     */
    boolean stillFails(Stamp s) {
        if (s.epoch() != epoch) return false;
        if (s.version() == version || undone.isEmpty()) return true;
        Map.Entry<Long, Long> range = undone.floorEntry(s.version());
        return range == null || s.version() > range.getValue();
    }

    Mark mark() {
        return new Mark(epoch, version, lastVersion);
    }

    /**
     * The state is again exactly what it was at {@code m} (a transaction was undone step by step): what was
     * remembered before it holds again, and nothing seen inside it does. Names are never reissued.
     */
    void undo(Mark m) {
        if (lastVersion > m.lastVersion()) undone.put(m.lastVersion() + 1, lastVersion);
        epoch = m.epoch();
        version = m.version();
    }

    /** A key equal for pods with the same static constraints (nodeSelector, tolerations). */
    Object constraintsKey(PodSpec pod) {
        return constraints(pod);
    }

    /** Whether the node passes the pod's static predicates (cordon, nodeSelector, taints). */
    boolean isEligible(PodSpec pod, NodeState node) {
        return eligibleSet(pod).contains(node);
    }

    /** The nodes that pass the static predicates for this pod, as a set. */
    java.util.Set<NodeState> eligibleSet(PodSpec pod) {
        return eligibleSets.computeIfAbsent(constraints(pod), c -> new java.util.HashSet<>(eligibleNodes(pod)));
    }

    /** Nodes that pass the static predicates for this pod. */
    List<NodeState> eligibleNodes(PodSpec pod) {
        return eligible.computeIfAbsent(constraints(pod), c -> {
            List<NodeState> out = new ArrayList<>();
            for (NodeState n : nodes) if (staticReason(n.spec, c) == null) out.add(n);
            return out;
        });
    }

    /** The best node whose free capacity holds the pod, or null. */
    NodeState best(PodSpec pod) {
        Shape shape = new Shape(pod.requests(), constraints(pod));
        Stamp failed = failedAt.get(shape);
        if (failed != null && stillFails(failed)) return null;
        Resources req = pod.requests();
        String dim = primaryDimension(req);
        TreeSet<NodeState> index = index(pod, dim);
        Iterable<NodeState> candidates = scoring == Scoring.BINPACK
                ? index.tailSet(NodeState.probe(dim, req.milli(dim)), true)
                : index;
        NodeState best = null;
        double bestScore = 0;
        int compared = 0;
        for (NodeState n : candidates) {
            if (n.free().milli(dim) < req.milli(dim)) break;
            if (!req.fitsIn(n.free())) continue;
            if (weights.isEmpty()) return n;
            double score = weightedScore(n, req);
            if (best == null || (scoring == Scoring.BINPACK ? score > bestScore : score < bestScore)) {
                best = n;
                bestScore = score;
            }
            if (++compared == WEIGHED_CANDIDATES) break;
        }
        if (best != null) return best;
        failedAt.put(shape, stamp());
        return null;
    }

    /** Volcano's binpack score of the node with the pod on it: the weighted mean of each resource's use after it. */
    private double weightedScore(NodeState n, Resources req) {
        double sum = 0;
        long total = 0;
        for (Map.Entry<String, Integer> w : weights.entrySet()) {
            long alloc = n.spec.allocatable().milli(w.getKey());
            if (alloc <= 0 || w.getValue() <= 0) continue;
            double used = (double) (n.used().milli(w.getKey()) + req.milli(w.getKey())) / alloc;
            sum += w.getValue() * used;
            total += w.getValue();
        }
        return total == 0 ? 0 : sum / total;
    }

    /** The best node that will hold the pod once its terminating pods are gone (for pipelining), or null. */
    NodeState bestOnceReleased(PodSpec pod) {
        Resources req = pod.requests();
        String dim = primaryDimension(req);
        NodeState best = null;
        for (NodeState n : releasing) {
            if (!isEligible(pod, n) || !req.fitsIn(n.futureFree())) continue;
            long free = n.futureFree().milli(dim);
            if (best == null || (scoring == Scoring.BINPACK ? free < best.futureFree().milli(dim)
                    : free > best.futureFree().milli(dim))) best = n;
        }
        return best;
    }

    private TreeSet<NodeState> index(PodSpec pod, String dim) {
        return indexes.computeIfAbsent(new IndexKey(constraints(pod), dim), k -> {
            Comparator<NodeState> byFree = Comparator.comparingLong(n -> n.free().milli(dim));
            if (scoring == Scoring.SPREAD) byFree = byFree.reversed();
            TreeSet<NodeState> set = new TreeSet<>(byFree.thenComparingInt(n -> n.index));
            for (NodeState n : eligibleNodes(pod)) {
                set.add(n);
                n.indexedIn(set);
            }
            return set;
        });
    }

    /**
     * The dimension nodes are sorted by for this request: an accelerator (a name with "gpu", "npu", "tpu" or
     * "neuron") if requested, else another extended resource (a name with "/"), else cpu, else memory, else pods.
     */
    static String primaryDimension(Resources req) {
        String best = "pods";
        int bestRank = 9;
        for (int i = 0; i < req.size(); i++) {
            if (req.milliAt(i) <= 0) continue;
            String n = req.name(i);
            int rank = n.contains("gpu") || n.contains("npu") || n.contains("tpu") || n.contains("neuron") ? 0
                    : n.contains("/") ? 1 : n.equals("cpu") ? 2 : n.equals("memory") ? 3 : n.equals("pods") ? 5 : 4;
            if (rank < bestRank) {
                best = n;
                bestRank = rank;
            }
        }
        return best;
    }

    /**
     * Why no node holds the pod, kube-scheduler style: {@code 0/4 nodes available: 4 insufficient nvidia.com/gpu}.
     */
    String whyNoFit(PodSpec pod) {
        return why.computeIfAbsent(new Shape(pod.requests(), constraints(pod)), k -> countReasons(pod));
    }

    private String countReasons(PodSpec pod) {
        Constraints c = constraints(pod);
        Map<String, Integer> counts = new TreeMap<>();
        for (NodeState n : nodes) {
            String r = staticReason(n.spec, c);
            if (r != null) {
                counts.merge(r, 1, Integer::sum);
                continue;
            }
            Resources missing = pod.requests().shortfall(n.free());
            for (int i = 0; i < missing.size(); i++) counts.merge("insufficient " + missing.name(i), 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder("0/" + nodes.size() + " nodes available");
        String sep = ": ";
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            sb.append(sep).append(e.getValue()).append(' ').append(e.getKey());
            sep = ", ";
        }
        return sb.toString();
    }

    /** Most pods select nothing and tolerate nothing: they share one key, compared by identity. */
    private static final Constraints NONE = new Constraints(Map.of(), List.of());

    private static Constraints constraints(PodSpec pod) {
        if (pod.nodeSelector().isEmpty() && pod.tolerations().isEmpty()) return NONE;
        return new Constraints(pod.nodeSelector(), pod.tolerations());
    }

    private static String staticReason(NodeSpec node, Constraints c) {
        if (node.unschedulable()) return "node(s) cordoned";
        for (Map.Entry<String, String> e : c.selector().entrySet()) {
            if (!e.getValue().equals(node.labels().get(e.getKey()))) return "node(s) didn't match nodeSelector";
        }
        for (Taint t : node.taints()) {
            if ("PreferNoSchedule".equals(t.effect())) continue;
            boolean tolerated = false;
            for (Toleration tol : c.tolerations()) {
                if (tol.tolerates(t)) {
                    tolerated = true;
                    break;
                }
            }
            if (!tolerated) return "node(s) had untolerated taint " + t.key() + (t.value() == null || t.value().isEmpty() ? "" : "=" + t.value()) + ":" + t.effect();
        }
        return null;
    }
}
