package dev.arbiter.engine.placement;

import dev.arbiter.decision.Refusal;

import dev.arbiter.engine.state.NodeState;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Why no node holds a pod, in kube-scheduler's words ({@link NodeFitter#whyNoFit}): every filter run over every node,
 * each node counted under the first it fails — the static filters ({@link StaticClass}), host ports, resources
 * ({@link Shortfalls}), then the rules that depend on other pods ({@link Topology}).
 */
final class NoFitReasons {
    private final List<NodeState> nodes;
    private final NodeStatics statics;
    private final Topology topology;
    /** Why a shape fits nowhere, counted once per cycle: the counts describe the first time it failed. */
    private final Map<Demand.Shape, Refusal> why = new HashMap<>();

    NoFitReasons(List<NodeState> nodes, NodeStatics statics, Topology topology) {
        this.nodes = nodes;
        this.statics = statics;
        this.topology = topology;
    }

    /** Why the pod of demand {@code d} (not blocked) fits nowhere: counted once per cycle per shape. */
    Refusal of(PodSpec pod, Demand d) {
        return why.computeIfAbsent(d.shape, k -> countReasons(pod, d));
    }

    private Refusal countReasons(PodSpec pod, Demand d) {
        StaticClass sc = statics.staticClass(d.constraints);
        Map<String, Integer> counts;
        if (d.rules != null && !d.rules.hostPorts.isEmpty()) {
            // Host ports come before resources in kube-scheduler's order: count every eligible node afresh.
            counts = new HashMap<>(sc.staticCounts());
            for (int i = sc.eligible.nextSetBit(0); i >= 0; i = sc.eligible.nextSetBit(i + 1)) {
                NodeState n = nodes.get(i);
                String r = topology.portsViolation(d.rules, n, List.of());
                if (r != null) counts.merge(r, 1, Integer::sum);
                else if (!countShortfall(pod.requests(), n, counts)) countPodRules(d, n, counts);
            }
        } else {
            Base base = base(pod.requests(), sc);
            counts = new HashMap<>(base.counts());
            if (d.dependsOnPods()) for (int i : base.withRoom()) countPodRules(d, nodes.get(i), counts);
        }
        return new Refusal.NoNodeFits(nodes.size(), java.util.Collections.unmodifiableMap(counts));
    }

    private void countPodRules(Demand d, NodeState n, Map<String, Integer> counts) {
        String r = topology.podRulesViolation(d.rules, d.self, d.carriers, n, List.of());
        if (r != null) counts.merge(r, 1, Integer::sum);
    }

    /** Adds the node's missing resources to {@code counts}; false when it has room for {@code req}. */
    private boolean countShortfall(Resources req, NodeState n, Map<String, Integer> counts) {
        boolean missing = false;
        for (int i = 0; i < req.size(); i++) {
            String dim = req.name(i);
            if (req.milliAt(i) > 0 && req.milliAt(i) > n.free().milli(dim)) {
                counts.merge(insufficient(dim), 1, Integer::sum);
                missing = true;
            }
        }
        return missing;
    }

    /** Per dimension, kube-scheduler's words for a node short of it: made once, counted for thousands of nodes. */
    private final Map<String, String> insufficient = new HashMap<>();

    private String insufficient(String dim) {
        return insufficient.computeIfAbsent(dim, d -> d.equals("pods") ? "Too many pods" : "Insufficient " + d);
    }

    /**
     * What every node says to a request of a static class: the counts of static and resource reasons, and the nodes with
     * room (where the rules that depend on other pods decide, in the state they are asked in). Like the reasons of a
     * pod shape, they describe the first time the request and class failed in the cycle: pods of many jobs with rules
     * of their own share them (during allocation room only shrinks, so a node without room then has none later).
     */
    private record Base(Map<String, Integer> counts, int[] withRoom) {}

    record BaseKey(Resources request, Constraints constraints) {}

    private final Map<BaseKey, Base> bases = new HashMap<>();

    private Base base(Resources req, StaticClass sc) {
        return bases.computeIfAbsent(new BaseKey(req, sc.c), k -> {
            Map<String, Integer> counts = new HashMap<>(sc.staticCounts());
            if (req.size() > Shortfalls.MOST_DIMENSIONS) {
                // More dimensions than a mask holds: counted afresh, node by node.
                int[] room = new int[sc.eligible.cardinality()];
                int rooms = 0;
                for (int i = sc.eligible.nextSetBit(0); i >= 0; i = sc.eligible.nextSetBit(i + 1)) {
                    if (!countShortfall(req, nodes.get(i), counts)) room[rooms++] = i;
                }
                return new Base(counts, java.util.Arrays.copyOf(room, rooms));
            }
            Shortfalls kept = sc.c.within() == null ? statics.keptShortfalls(k) : null;
            Shortfalls s = kept != null ? kept.refresh(nodes) : new Shortfalls(req, sc.eligible, nodes);
            if (kept == null && sc.c.within() == null) statics.keepShortfalls(k, s);
            for (int d = 0; d < req.size(); d++) {
                if (s.lacking[d] > 0) counts.merge(insufficient(req.name(d)), s.lacking[d], Integer::sum);
            }
            return new Base(counts, s.withRoom());
        });
    }
}
