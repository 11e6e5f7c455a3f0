package dev.arbiter.engine;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Node fitting and scoring, in Java and indexed (never a pod × node rule join).
 *
 * <p>Static predicates (cordon, nodeSelector, taints) depend only on the pod's constraints, so the eligible node
 * list is computed once per distinct (nodeSelector, tolerations) per cycle. Resource fit is then checked against
 * each eligible node's free capacity. A pod shape that fitted nowhere is remembered until capacity is released, so
 * the thousandth identical task of a gang that cannot start costs a map lookup.
 *
 * <p>Scoring: {@code binpack} (default) prefers the node that would be fullest in the requested dimensions, keeping
 * whole GPU nodes free for large gangs; {@code spread} prefers the emptiest. Ties go to the earlier node.
 */
final class NodeFitter {
    enum Scoring { BINPACK, SPREAD }

    private record Constraints(Map<String, String> selector, List<Toleration> tolerations) {}

    private record Shape(Resources request, Constraints constraints) {}

    private final List<NodeState> nodes;
    private final Scoring scoring;
    private final Map<Constraints, List<NodeState>> eligible = new HashMap<>();
    private final Map<Shape, Long> failedAtEpoch = new HashMap<>();
    private long epoch;

    NodeFitter(List<NodeState> nodes, Scoring scoring) {
        this.nodes = nodes;
        this.scoring = scoring;
    }

    /** Call whenever capacity is given back (a discarded gang, an eviction), so remembered failures are retried. */
    void capacityReleased() {
        epoch++;
    }

    /** Nodes that pass the static predicates for this pod. */
    List<NodeState> eligibleNodes(PodSpec pod) {
        return eligible.computeIfAbsent(constraints(pod), c -> {
            List<NodeState> out = new ArrayList<>();
            for (NodeState n : nodes) if (staticReason(n.spec, c) == null) out.add(n);
            return out;
        });
    }

    boolean passes(PodSpec pod, NodeState node) {
        return staticReason(node.spec, constraints(pod)) == null;
    }

    /** The best node whose free capacity holds the pod, or null. */
    NodeState best(PodSpec pod) {
        Shape shape = new Shape(pod.requests(), constraints(pod));
        Long failed = failedAtEpoch.get(shape);
        if (failed != null && failed == epoch) return null;
        NodeState best = bestWhere(pod, n -> pod.requests().fitsIn(n.free()));
        if (best == null) failedAtEpoch.put(shape, epoch);
        return best;
    }

    /** The best node that will hold the pod once its terminating pods are gone (for pipelining), or null. */
    NodeState bestOnceReleased(PodSpec pod) {
        return bestWhere(pod, n -> pod.requests().fitsIn(n.futureFree()));
    }

    private NodeState bestWhere(PodSpec pod, java.util.function.Predicate<NodeState> fits) {
        NodeState best = null;
        double bestScore = 0;
        for (NodeState n : eligibleNodes(pod)) {
            if (!fits.test(n)) continue;
            double s = score(pod.requests(), n);
            if (best == null || s > bestScore) {
                best = n;
                bestScore = s;
            }
        }
        return best;
    }

    private double score(Resources req, NodeState n) {
        double sum = 0;
        int dims = 0;
        Resources alloc = n.spec.allocatable();
        for (int i = 0; i < req.size(); i++) {
            long cap = alloc.milli(req.name(i));
            if (cap <= 0 || req.name(i).equals("pods")) continue;
            long usedAfter = cap - n.free().milli(req.name(i)) + req.milliAt(i);
            sum += (double) usedAfter / cap;
            dims++;
        }
        double fullness = dims == 0 ? 0 : sum / dims;
        return scoring == Scoring.BINPACK ? fullness : -fullness;
    }

    /**
     * Why no node holds the pod, kube-scheduler style: {@code 0/4 nodes available: 4 insufficient nvidia.com/gpu}.
     */
    String whyNoFit(PodSpec pod) {
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

    private static Constraints constraints(PodSpec pod) {
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
