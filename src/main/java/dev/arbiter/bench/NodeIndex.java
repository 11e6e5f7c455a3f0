package dev.arbiter.bench;

import dev.arbiter.bench.RefState.Node;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Node fitting for the reference scheduler, bucketed instead of scanned. Nodes with the same static identity (labels,
 * taints, cordon, allocatable) and the same free capacity are interchangeable for both the fit and the score, so the
 * index keeps one bucket per (static class, free vector) holding its node indices in order; a search scores each
 * eligible bucket once and takes the lowest index of the best. On a fleet of a few node types filled by a few pod
 * shapes there are far fewer buckets than nodes. The result is exactly the linear scan's: the node with the highest
 * score whose free capacity holds the pod, ties to the earlier node.
 *
 * <p>Score: the pod's <em>primary dimension</em> is its scarcest kind of resource (an accelerator — a name with
 * "gpu", "npu", "tpu" or "neuron" — else another extended resource, a name with "/", else cpu, else memory, else any
 * other, else pods). {@code binpack} takes the fitting node with the least free of it (fill nodes one by one, keep
 * whole nodes for large gangs); {@code spread} the one with the most. This is the engine's mechanism since commit
 * a10d9aa (before it, binpack meant the highest mean fullness over the requested dimensions); the docs leave the
 * formula open.
 */
final class NodeIndex {
    private record StaticKey(Map<String, String> labels, String name, List<Taint> taints, boolean unschedulable,
                             Resources allocatable) {}

    /** What static eligibility depends on: nodeSelector, tolerations, node affinity, gates and needs not evaluated. */
    private record Constraints(Map<String, String> selector, List<Toleration> tolerations,
                               dev.arbiter.model.Placement.NodeAffinity affinity, boolean blocked) {}

    private record Shape(Resources request, Constraints constraints) {}

    private static final class Klass {
        final int id;
        final NodeSpec sample;
        final Map<Resources, TreeSet<Integer>> byFree = new HashMap<>();

        Klass(int id, NodeSpec sample) {
            this.id = id;
            this.sample = sample;
        }
    }

    private final List<Node> nodes;
    private final boolean spread;
    private final List<Klass> klasses = new ArrayList<>();
    private final Klass[] klassOf;
    private final Map<Constraints, List<Klass>> eligible = new HashMap<>();
    private final Map<Shape, Long> failedAt = new HashMap<>();
    private final Map<Constraints, List<Node>> eligibleNodes = new HashMap<>();
    private final List<Node> releasing = new ArrayList<>();
    private final RefRules rules;
    private long epoch;

    /**
     * @param labelKeys the node label keys some pod's nodeSelector or node affinity reads: nodes are told apart by those
     *                  only (every node has its own hostname label, which would otherwise make every node a class)
     * @param byName whether some pod's node affinity names nodes ({@code matchFields}): then every node is its own class
     */
    NodeIndex(List<Node> nodes, boolean spread, RefRules rules, Set<String> labelKeys, boolean byName) {
        this.nodes = nodes;
        this.spread = spread;
        this.rules = rules;
        this.klassOf = new Klass[nodes.size()];
        Map<StaticKey, Klass> byKey = new HashMap<>();
        for (Node n : nodes) {
            Map<String, String> labels = new java.util.TreeMap<>(n.spec.labels());
            labels.keySet().retainAll(labelKeys);
            StaticKey k = new StaticKey(labels, byName ? n.spec.name() : "", n.spec.taints(), n.spec.unschedulable(),
                    n.spec.allocatable());
            Klass c = byKey.computeIfAbsent(k, x -> {
                Klass nk = new Klass(klasses.size(), n.spec);
                klasses.add(nk);
                return nk;
            });
            klassOf[n.index] = c;
            if (!n.releasing.isEmpty()) releasing.add(n);
            c.byFree.computeIfAbsent(n.free, f -> new TreeSet<>()).add(n.index);
        }
    }

    /** Takes {@code r} from node {@code n}. */
    void take(Node n, Resources r) {
        move(n, n.free.subtract(r));
    }

    /** Gives {@code r} back to node {@code n}; remembered misfits are forgotten. */
    void give(Node n, Resources r) {
        move(n, n.free.add(r));
        epoch++;
    }

    private void move(Node n, Resources newFree) {
        Klass k = klassOf[n.index];
        TreeSet<Integer> from = k.byFree.get(n.free);
        from.remove(n.index);
        if (from.isEmpty()) k.byFree.remove(n.free);
        n.free = newFree;
        k.byFree.computeIfAbsent(newFree, f -> new TreeSet<>()).add(n.index);
    }

    boolean passes(PodSpec pod, Node n) {
        return RefRules.staticallyAllowed(pod, n.spec);
    }

    /** Nodes that pass the static predicates for {@code pod}, in node order (computed once per constraints). */
    List<Node> eligibleNodes(PodSpec pod) {
        return eligibleNodes.computeIfAbsent(constraints(pod), c -> {
            List<Node> out = new ArrayList<>();
            boolean[] ok = new boolean[klasses.size()];
            for (Klass k : eligibleKlasses(pod, c)) ok[k.id] = true;
            for (Node n : nodes) if (ok[klassOf[n.index].id]) out.add(n);
            return out;
        });
    }

    /**
     * The best node whose free capacity holds the pod and whose rules pass, or null: the highest preference points,
     * then the lowest ScheduleAnyway penalty, then the packing score, then the earlier node.
     */
    Node best(PodSpec pod) {
        if (rules.dependsOnPods(pod)) return scan(pod);
        Constraints c = constraints(pod);
        Shape shape = new Shape(pod.requests(), c);
        Long failed = failedAt.get(shape);
        if (failed != null && failed == epoch) return null;
        Resources req = pod.requests();
        int bestIndex = -1;
        double bestScore = 0;
        long bestPoints = 0;
        for (Klass k : eligibleKlasses(pod, c)) {
            Resources alloc = k.sample.allocatable();
            long points = staticPoints(pod, c, k.sample);
            for (Map.Entry<Resources, TreeSet<Integer>> e : k.byFree.entrySet()) {
                if (!req.fitsIn(e.getKey())) continue;
                double s = score(req, alloc, e.getKey());
                int idx = e.getValue().first();
                if (bestIndex < 0 || points > bestPoints || (points == bestPoints && (s > bestScore
                        || (s == bestScore && idx < bestIndex)))) {
                    bestIndex = idx;
                    bestScore = s;
                    bestPoints = points;
                }
            }
        }
        if (bestIndex < 0) {
            failedAt.put(shape, epoch);
            return null;
        }
        return nodes.get(bestIndex);
    }

    /** A pod whose fit depends on other pods: every eligible node, one by one. */
    private Node scan(PodSpec pod) {
        Resources req = pod.requests();
        Map<String, Long> room = rules.firstOfSetRoom(pod, eligibleNodes(pod), primaryDimension(req));
        Node best = null;
        long bestRoom = 0, bestPoints = 0, bestPenalty = 0;
        double bestScore = 0;
        for (Node n : eligibleNodes(pod)) {
            if (!req.fitsIn(n.free) || !rules.passes(pod, n, List.of())) continue;
            long r = room == null ? 0 : room.getOrDefault(n.spec.labels().get(
                    pod.placement().podAffinity().required().get(0).topologyKey()), 0L);
            long points = rules.points(pod, n, staticPoints(pod, constraints(pod), n.spec));
            long penalty = rules.penalty(pod, n);
            double s = score(req, n.spec.allocatable(), n.free);
            if (best == null || r > bestRoom || (r == bestRoom && (points > bestPoints || (points == bestPoints
                    && (penalty < bestPenalty || (penalty == bestPenalty && s > bestScore)))))) {
                best = n;
                bestRoom = r;
                bestPoints = points;
                bestPenalty = penalty;
                bestScore = s;
            }
        }
        return best;
    }

    /** The best node that holds the pod once its terminating pods are gone (a scan of the nodes with terminating pods). */
    Node bestOnceReleased(PodSpec pod) {
        Node best = null;
        double bestScore = 0;
        long bestPoints = 0, bestPenalty = 0;
        for (Node n : releasing) {
            if (!passes(pod, n)) continue;
            Resources future = n.free.add(n.releasing);
            if (!pod.requests().fitsIn(future)) continue;
            if (rules.dependsOnPods(pod) && !rules.passes(pod, n, List.of())) continue;
            double s = score(pod.requests(), n.spec.allocatable(), future);
            long points = rules.points(pod, n, staticPoints(pod, constraints(pod), n.spec));
            long penalty = rules.penalty(pod, n);
            if (best == null || points > bestPoints || (points == bestPoints && (penalty < bestPenalty
                    || (penalty == bestPenalty && s > bestScore)))) {
                best = n;
                bestScore = s;
                bestPoints = points;
                bestPenalty = penalty;
            }
        }
        return best;
    }

    /** The most preferred node-affinity weight and the most intolerable PreferNoSchedule taints of eligible nodes. */
    private record Most(long weight, int taints) {}

    private final Map<Constraints, Most> most = new HashMap<>();

    /**
     * What node {@code s} alone earns from the pod: its preferred node-affinity weight; or, when some eligible node has
     * a PreferNoSchedule taint the pod does not tolerate, kube-scheduler's weighted sum of NodeAffinity (2 × the
     * weight scaled to 0..100 by the most of any eligible node) and TaintToleration (3 × (100 less the intolerable
     * taints scaled to 0..100 by the most of any eligible node)), in integer arithmetic.
     */
    private long staticPoints(PodSpec pod, Constraints c, NodeSpec s) {
        long weight = pod.placement().nodeAffinity().preferredWeight(s);
        Most m = most.computeIfAbsent(c, k -> {
            long w = 0;
            int t = 0;
            for (Klass kl : eligibleKlasses(pod, k)) {
                w = Math.max(w, pod.placement().nodeAffinity().preferredWeight(kl.sample));
                t = Math.max(t, RefRules.intolerablePreferNoSchedule(pod.tolerations(), kl.sample));
            }
            return new Most(w, t);
        });
        if (m.taints() == 0) return weight;
        long affinity = m.weight() == 0 ? 0 : 100 * weight / m.weight();
        long taints = 100 - 100L * RefRules.intolerablePreferNoSchedule(pod.tolerations(), s) / m.taints();
        return 2 * affinity + 3 * taints;
    }

    /** Higher is better: less free primary dimension for binpack, more for spread. */
    private double score(Resources req, Resources alloc, Resources free) {
        long left = free.milli(primaryDimension(req));
        return spread ? left : -left;
    }

    static String primaryDimension(Resources req) {
        String best = "pods";
        int bestRank = Integer.MAX_VALUE;
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

    /** The classes whose nodes pass the pod's static predicates ({@link RefRules#staticallyAllowed}). */
    private List<Klass> eligibleKlasses(PodSpec pod, Constraints c) {
        return eligible.computeIfAbsent(c, x -> {
            List<Klass> out = new ArrayList<>();
            for (Klass k : klasses) if (RefRules.staticallyAllowed(pod, k.sample)) out.add(k);
            return out;
        });
    }

    private static Constraints constraints(PodSpec pod) {
        dev.arbiter.model.Placement pl = pod.placement();
        return new Constraints(pod.nodeSelector(), pod.tolerations(), pl.nodeAffinity(),
                !pl.schedulingGates().isEmpty() || !pl.notEvaluated().isEmpty());
    }
}
