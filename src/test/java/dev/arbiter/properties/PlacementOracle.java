package dev.arbiter.properties;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes' placement rules, written from kube-scheduler's documented semantics for the properties alone: which pod
 * may go to which node given the pods already there. It keeps the pods on nodes as a plain list and answers by
 * scanning it, so it shares no code and no shortcut with the engine or the reference.
 */
final class PlacementOracle {
    private final ClusterSnapshot snap;
    private final Map<String, NodeSpec> nodes = new HashMap<>();
    /** Pods on nodes, with the node's name. */
    private final List<Map.Entry<PodSpec, String>> present = new ArrayList<>();

    /** The pods bound in {@code snap} (every scheduler, terminating ones too). */
    PlacementOracle(ClusterSnapshot snap) {
        this.snap = snap;
        for (NodeSpec n : snap.nodes()) nodes.put(n.name(), n);
        for (PodSpec p : snap.pods()) {
            if (p.isBound() && nodes.containsKey(p.nodeName()) && !"Succeeded".equals(p.phase()) && !"Failed".equals(p.phase())) {
                present.add(Map.entry(p, p.nodeName()));
            }
        }
    }

    /** {@code pod} is now on {@code node} (a binding of the cycle, in order). */
    void bind(PodSpec pod, String node) {
        present.add(Map.entry(pod, node));
    }

    /** Why {@code pod} may not go to {@code node} given the pods present, or null when it may. */
    String violation(PodSpec pod, String node) {
        NodeSpec n = nodes.get(node);
        if (!CycleFacts.allowedOn(pod, n)) return "its nodeSelector, node affinity, taints or the cordon";
        Placement pl = pod.placement();
        for (HostPort want : pl.hostPorts()) {
            for (Map.Entry<PodSpec, String> e : present) {
                if (!e.getValue().equals(node)) continue;
                for (HostPort have : e.getKey().placement().hostPorts()) if (want.conflicts(have)) return "host port " + want;
            }
        }
        List<SpreadConstraint> hard = pl.spread().stream().filter(SpreadConstraint::doNotSchedule).toList();
        for (SpreadConstraint c : hard) {
            if (!n.labels().containsKey(c.topologyKey())) return "spread: no " + c.topologyKey() + " label";
        }
        for (SpreadConstraint c : hard) {
            Map<String, Integer> counts = new HashMap<>();
            for (NodeSpec m : snap.nodes()) if (spreadCounts(pod, c, hard, m)) counts.putIfAbsent(m.labels().get(c.topologyKey()), 0);
            for (Map.Entry<PodSpec, String> e : present) {
                NodeSpec m = nodes.get(e.getValue());
                PodSpec q = e.getKey();
                if (!spreadCounts(pod, c, hard, m) || q.terminating() || !q.namespace().equals(pod.namespace())) continue;
                if (c.labelSelector() != null && c.labelSelector().matches(q.labels())) counts.merge(m.labels().get(c.topologyKey()), 1, Integer::sum);
            }
            int min = counts.size() < c.minDomains() ? 0 : counts.values().stream().min(Integer::compare).orElse(0);
            int self = c.labelSelector() != null && c.labelSelector().matches(pod.labels()) ? 1 : 0;
            int skew = counts.getOrDefault(n.labels().get(c.topologyKey()), 0) + self - min;
            if (skew > c.maxSkew()) return "spread " + c + ": skew " + skew;
        }
        List<PodAffinityTerm> affinity = pl.podAffinity().required();
        if (!affinity.isEmpty()) {
            boolean anywhere = false, everyTermHere = true;
            for (PodAffinityTerm t : affinity) {
                if (!n.labels().containsKey(t.topologyKey())) return "affinity: no " + t.topologyKey() + " label";
                boolean here = false;
                for (Map.Entry<PodSpec, String> e : present) {
                    if (!matchesAll(pod, affinity, e.getKey())) continue;
                    NodeSpec m = nodes.get(e.getValue());
                    for (PodAffinityTerm u : affinity) anywhere |= m.labels().containsKey(u.topologyKey());
                    here |= n.labels().get(t.topologyKey()).equals(m.labels().get(t.topologyKey()));
                }
                everyTermHere &= here;
            }
            if (!everyTermHere && (anywhere || !matchesAll(pod, affinity, pod))) return "pod affinity " + affinity;
        }
        for (PodAffinityTerm t : pl.podAntiAffinity().required()) {
            String v = n.labels().get(t.topologyKey());
            if (v == null) continue;
            for (Map.Entry<PodSpec, String> e : present) {
                if (v.equals(nodes.get(e.getValue()).labels().get(t.topologyKey())) && matches(pod.namespace(), t, e.getKey())) {
                    return "pod anti-affinity " + t + " with " + e.getKey().key();
                }
            }
        }
        for (Map.Entry<PodSpec, String> e : present) {
            PodSpec q = e.getKey();
            for (PodAffinityTerm t : q.placement().podAntiAffinity().required()) {
                String v = n.labels().get(t.topologyKey());
                if (v != null && v.equals(nodes.get(e.getValue()).labels().get(t.topologyKey())) && matches(q.namespace(), t, pod)) {
                    return "the anti-affinity of " + q.key() + " (" + t + ")";
                }
            }
        }
        return null;
    }

    private boolean spreadCounts(PodSpec pod, SpreadConstraint c, List<SpreadConstraint> all, NodeSpec m) {
        for (SpreadConstraint k : all) if (!m.labels().containsKey(k.topologyKey())) return false;
        if (c.honorNodeAffinity() && !CycleFacts.matchesNodeAffinity(pod, m)) return false;
        return !c.honorNodeTaints() || CycleFacts.taintsTolerated(pod, m);
    }

    private boolean matchesAll(PodSpec owner, List<PodAffinityTerm> terms, PodSpec q) {
        for (PodAffinityTerm t : terms) if (!matches(owner.namespace(), t, q)) return false;
        return true;
    }

    private boolean matches(String owner, PodAffinityTerm t, PodSpec q) {
        return t.matches(owner, q, snap.labelsOfNamespace(q.namespace()));
    }
}
