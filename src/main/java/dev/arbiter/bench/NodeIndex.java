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
    private record StaticKey(Map<String, String> labels, List<Taint> taints, boolean unschedulable, Resources allocatable) {}

    private record Constraints(Map<String, String> selector, List<Toleration> tolerations) {}

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
    private long epoch;

    NodeIndex(List<Node> nodes, boolean spread) {
        this.nodes = nodes;
        this.spread = spread;
        this.klassOf = new Klass[nodes.size()];
        Map<StaticKey, Klass> byKey = new HashMap<>();
        for (Node n : nodes) {
            StaticKey k = new StaticKey(n.spec.labels(), n.spec.taints(), n.spec.unschedulable(), n.spec.allocatable());
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
        return staticallyAllowed(n.spec, constraints(pod));
    }

    /** Nodes that pass the static predicates for {@code pod}, in node order (computed once per constraints). */
    List<Node> eligibleNodes(PodSpec pod) {
        return eligibleNodes.computeIfAbsent(constraints(pod), c -> {
            List<Node> out = new ArrayList<>();
            boolean[] ok = new boolean[klasses.size()];
            for (Klass k : eligibleKlasses(c)) ok[k.id] = true;
            for (Node n : nodes) if (ok[klassOf[n.index].id]) out.add(n);
            return out;
        });
    }

    /** The best node whose free capacity holds the pod, or null. */
    Node best(PodSpec pod) {
        Constraints c = constraints(pod);
        Shape shape = new Shape(pod.requests(), c);
        Long failed = failedAt.get(shape);
        if (failed != null && failed == epoch) return null;
        Resources req = pod.requests();
        int bestIndex = -1;
        double bestScore = 0;
        for (Klass k : eligibleKlasses(c)) {
            Resources alloc = k.sample.allocatable();
            for (Map.Entry<Resources, TreeSet<Integer>> e : k.byFree.entrySet()) {
                if (!req.fitsIn(e.getKey())) continue;
                double s = score(req, alloc, e.getKey());
                int idx = e.getValue().first();
                if (bestIndex < 0 || s > bestScore || (s == bestScore && idx < bestIndex)) {
                    bestIndex = idx;
                    bestScore = s;
                }
            }
        }
        if (bestIndex < 0) {
            failedAt.put(shape, epoch);
            return null;
        }
        return nodes.get(bestIndex);
    }

    /** The best node that holds the pod once its terminating pods are gone (a scan of the nodes with terminating pods). */
    Node bestOnceReleased(PodSpec pod) {
        Node best = null;
        double bestScore = 0;
        for (Node n : releasing) {
            if (!passes(pod, n)) continue;
            Resources future = n.free.add(n.releasing);
            if (!pod.requests().fitsIn(future)) continue;
            double s = score(pod.requests(), n.spec.allocatable(), future);
            if (best == null || s > bestScore) {
                best = n;
                bestScore = s;
            }
        }
        return best;
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

    private List<Klass> eligibleKlasses(Constraints c) {
        return eligible.computeIfAbsent(c, x -> {
            List<Klass> out = new ArrayList<>();
            for (Klass k : klasses) if (staticallyAllowed(k.sample, x)) out.add(k);
            return out;
        });
    }

    private static Constraints constraints(PodSpec pod) {
        return new Constraints(pod.nodeSelector(), pod.tolerations());
    }

    /** Not cordoned, every selector label matches, every taint but PreferNoSchedule is tolerated. */
    private static boolean staticallyAllowed(NodeSpec n, Constraints c) {
        if (n.unschedulable()) return false;
        for (Map.Entry<String, String> e : c.selector().entrySet()) {
            if (!e.getValue().equals(n.labels().get(e.getKey()))) return false;
        }
        for (Taint t : n.taints()) {
            if ("PreferNoSchedule".equals(t.effect())) continue;
            if (c.tolerations().stream().noneMatch(tol -> tol.tolerates(t))) return false;
        }
        return true;
    }
}
