package dev.arbiter.bench;

import dev.arbiter.bench.RefState.Node;
import dev.arbiter.bench.RefState.Task;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.model.Placement.WeightedPodAffinityTerm;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Placement constraints for the reference scheduler, counted the plain way: every question scans the pods on the
 * nodes (kube-scheduler's PreFilter/Filter, read from its source: NodeUnschedulable, TaintToleration, NodeAffinity,
 * NodePorts, PodTopologySpread, InterPodAffinity). No indexes, no incremental counts — the engine keeps those; this
 * recomputes, so that the two disagree when either is wrong.
 *
 * <p>Which pods count: the pods bound when the cycle began, of every scheduler (terminating ones for affinity and
 * ports, not for spread), plus those placed this cycle, less those evicted or to be evicted ({@code gone}).
 *
 * <p>Score (the engine's, docs/architecture.md): preferred node-affinity weights, plus preferred pod affinity (weight ×
 * matching pods in the node's domain), less preferred pod anti-affinity (likewise), highest first; then the matching
 * pods of ScheduleAnyway spread constraints in the node's domains, fewest first; then binpack/spread.
 */
final class RefRules {
    static final String UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable";
    static final long NO_DOMAIN = 1L << 40;

    private final List<Node> nodes;
    private final Function<String, Map<String, String>> namespaceLabels;
    /** The node each counted pod is on, in the order they came. */
    private final Map<PodSpec, Node> present = new IdentityHashMap<>();
    private final List<PodSpec> order = new ArrayList<>();
    /** Whether some pod present or pending carries a required anti-affinity term (else no pod is blocked by one). */
    private boolean anyAntiAffinity;

    RefRules(List<Node> nodes, Function<String, Map<String, String>> namespaceLabels, Collection<PodSpec> allPods) {
        this.nodes = nodes;
        this.namespaceLabels = namespaceLabels;
        for (PodSpec p : allPods) anyAntiAffinity |= !p.placement().podAntiAffinity().required().isEmpty();
    }

    void add(PodSpec p, Node n) {
        if (present.put(p, n) == null) order.add(p);
    }

    void remove(PodSpec p) {
        if (present.remove(p) == null) return;
        for (int i = order.size() - 1; i >= 0; i--) {
            if (order.get(i) == p) {
                order.remove(i);
                return;
            }
        }
    }

    // ---- static ------------------------------------------------------------------------------------------------

    /** Cordon, taints, nodeSelector, required node affinity; never for a gated pod or one with needs not evaluated. */
    static boolean staticallyAllowed(PodSpec pod, NodeSpec n) {
        Placement pl = pod.placement();
        if (!pl.schedulingGates().isEmpty() || !pl.notEvaluated().isEmpty()) return false;
        if (n.unschedulable() && !tolerated(pod.tolerations(), new Taint(UNSCHEDULABLE_TAINT_KEY, "", "NoSchedule"))) return false;
        if (!taintsTolerated(pod.tolerations(), n)) return false;
        return matchesNodeAffinity(pod, n);
    }

    /** nodeSelector and required node affinity. */
    static boolean matchesNodeAffinity(PodSpec pod, NodeSpec n) {
        for (Map.Entry<String, String> e : pod.nodeSelector().entrySet()) if (!e.getValue().equals(n.labels().get(e.getKey()))) return false;
        return pod.placement().nodeAffinity().requiredMatches(n);
    }

    /** Every NoSchedule or NoExecute (or unknown-effect) taint is tolerated. */
    static boolean taintsTolerated(List<Toleration> tolerations, NodeSpec n) {
        for (Taint t : n.taints()) {
            if ("PreferNoSchedule".equals(t.effect())) continue;
            if (!tolerated(tolerations, t)) return false;
        }
        return true;
    }

    /** How many of the node's PreferNoSchedule taints the tolerations do not tolerate. */
    static int intolerablePreferNoSchedule(List<Toleration> tolerations, NodeSpec n) {
        int count = 0;
        for (Taint t : n.taints()) if ("PreferNoSchedule".equals(t.effect()) && !tolerated(tolerations, t)) count++;
        return count;
    }

    private static boolean tolerated(List<Toleration> tolerations, Taint t) {
        for (Toleration tol : tolerations) if (tol.tolerates(t)) return true;
        return false;
    }

    // ---- rules that depend on other pods -------------------------------------------------------------------------

    /** Whether the pod's fit depends on other pods: its own rules, or some anti-affinity term could match it. */
    boolean dependsOnPods(PodSpec pod) {
        return pod.placement().dependsOnPods() || anyAntiAffinity;
    }

    /** Host ports, spread, affinity, anti-affinity and existing pods' anti-affinity on {@code n}, with {@code gone} out. */
    boolean passes(PodSpec pod, Node n, Collection<Task> gone) {
        Set<PodSpec> out = goneSet(gone);
        Placement pl = pod.placement();
        for (HostPort want : pl.hostPorts()) {
            for (PodSpec q : order) {
                if (present.get(q) != n || out.contains(q)) continue;
                for (HostPort have : q.placement().hostPorts()) if (want.conflicts(have)) return false;
            }
        }
        if (!spreadPasses(pod, n, out)) return false;
        if (!affinityPasses(pod, n, out)) return false;
        for (PodAffinityTerm t : pl.podAntiAffinity().required()) {
            String v = n.spec.labels().get(t.topologyKey());
            if (v != null && countInDomain(pod.namespace(), t, t.topologyKey(), v, out, true) > 0) return false;
        }
        for (PodSpec q : order) {
            if (out.contains(q)) continue;
            Node at = present.get(q);
            for (PodAffinityTerm t : q.placement().podAntiAffinity().required()) {
                String v = n.spec.labels().get(t.topologyKey());
                if (v != null && v.equals(at.spec.labels().get(t.topologyKey())) && termMatches(q.namespace(), t, pod)) return false;
            }
        }
        return true;
    }

    private boolean spreadPasses(PodSpec pod, Node n, Set<PodSpec> out) {
        List<SpreadConstraint> hard = new ArrayList<>();
        for (SpreadConstraint c : pod.placement().spread()) if (c.doNotSchedule()) hard.add(c);
        if (hard.isEmpty()) return true;
        for (SpreadConstraint c : hard) if (!n.spec.labels().containsKey(c.topologyKey())) return false;
        for (SpreadConstraint c : hard) {
            Map<String, Integer> counts = spreadCounts(pod, c, hard, out);
            int min;
            if (counts.size() < c.minDomains()) {
                min = 0;
            } else {
                min = Integer.MAX_VALUE;
                for (int v : counts.values()) min = Math.min(min, v);
            }
            int self = c.labelSelector() != null && c.labelSelector().matches(pod.labels()) ? 1 : 0;
            int here = counts.getOrDefault(n.spec.labels().get(c.topologyKey()), 0);
            if (here + self - min > c.maxSkew()) return false;
        }
        return true;
    }

    /**
     * Matching pods of the pod's namespace (not terminating) per domain of {@code c}, over the nodes that carry every
     * key of {@code all} and pass the inclusion policies; every such node's domain is present, with 0 if empty.
     */
    private Map<String, Integer> spreadCounts(PodSpec pod, SpreadConstraint c, List<SpreadConstraint> all, Set<PodSpec> out) {
        Map<String, Integer> counts = new HashMap<>();
        Set<Node> counted = new HashSet<>();
        for (Node m : nodes) {
            if (!counts(pod, c, all, m)) continue;
            counts.putIfAbsent(m.spec.labels().get(c.topologyKey()), 0);
            counted.add(m);
        }
        for (PodSpec q : order) {
            Node m = present.get(q);
            if (!counted.contains(m) || out.contains(q) || q.terminating() || !q.namespace().equals(pod.namespace())) continue;
            if (c.labelSelector() == null || !c.labelSelector().matches(q.labels())) continue;
            counts.merge(m.spec.labels().get(c.topologyKey()), 1, Integer::sum);
        }
        return counts;
    }

    private static boolean counts(PodSpec pod, SpreadConstraint c, List<SpreadConstraint> all, Node m) {
        for (SpreadConstraint k : all) if (!m.spec.labels().containsKey(k.topologyKey())) return false;
        if (c.honorNodeAffinity() && !matchesNodeAffinity(pod, m.spec)) return false;
        return !c.honorNodeTaints() || taintsTolerated(pod.tolerations(), m.spec);
    }

    private boolean affinityPasses(PodSpec pod, Node n, Set<PodSpec> out) {
        List<PodAffinityTerm> terms = pod.placement().podAffinity().required();
        if (terms.isEmpty()) return true;
        for (PodAffinityTerm t : terms) if (!n.spec.labels().containsKey(t.topologyKey())) return false;
        // Pods matching every term, and the (key, value) pairs of their nodes over the terms' keys.
        Set<String> pairs = new HashSet<>();
        for (PodSpec q : order) {
            if (out.contains(q)) continue;
            boolean all = true;
            for (PodAffinityTerm t : terms) all &= termMatches(pod.namespace(), t, q);
            if (!all) continue;
            Node m = present.get(q);
            for (PodAffinityTerm t : terms) {
                String v = m.spec.labels().get(t.topologyKey());
                if (v != null) pairs.add(t.topologyKey() + "\0" + v);
            }
        }
        boolean exist = true;
        for (PodAffinityTerm t : terms) exist &= pairs.contains(t.topologyKey() + "\0" + n.spec.labels().get(t.topologyKey()));
        if (exist) return true;
        if (!pairs.isEmpty()) return false;
        for (PodAffinityTerm t : terms) if (!termMatches(pod.namespace(), t, pod)) return false;
        return true;
    }

    /**
     * The first pod of a set with required affinity to itself (nothing matching all its terms runs on a node carrying
     * one of their keys, and it matches them) starts in the domain, of its first term's key, whose eligible nodes have
     * the most free {@code dim}: the free amount per domain, or null for any other pod.
     */
    Map<String, Long> firstOfSetRoom(PodSpec pod, List<Node> eligible, String dim) {
        List<PodAffinityTerm> terms = pod.placement().podAffinity().required();
        if (terms.isEmpty()) return null;
        for (PodAffinityTerm t : terms) if (!termMatches(pod.namespace(), t, pod)) return null;
        for (PodSpec q : order) {
            boolean all = true;
            for (PodAffinityTerm t : terms) all &= termMatches(pod.namespace(), t, q);
            if (!all) continue;
            for (PodAffinityTerm t : terms) if (present.get(q).spec.labels().containsKey(t.topologyKey())) return null;
        }
        Map<String, Long> room = new HashMap<>();
        String key = terms.get(0).topologyKey();
        for (Node n : eligible) {
            String v = n.spec.labels().get(key);
            if (v != null) room.merge(v, Math.max(0, n.free.milli(dim)), Long::sum);
        }
        return room;
    }

    /** Pods matching {@code t} (stated in namespace {@code owner}) on nodes whose {@code key} is {@code value}. */
    private int countInDomain(String owner, PodAffinityTerm t, String key, String value, Set<PodSpec> out, boolean terminating) {
        int c = 0;
        for (PodSpec q : order) {
            if (out.contains(q) || (!terminating && q.terminating())) continue;
            if (value.equals(present.get(q).spec.labels().get(key)) && termMatches(owner, t, q)) c++;
        }
        return c;
    }

    private boolean termMatches(String owner, PodAffinityTerm t, PodSpec q) {
        return t.matches(owner, q, namespaceLabels.apply(q.namespace()));
    }

    private static Set<PodSpec> goneSet(Collection<Task> gone) {
        if (gone.isEmpty()) return Set.of();
        Set<PodSpec> s = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Task t : gone) s.add(t.pod);
        return s;
    }

    // ---- score --------------------------------------------------------------------------------------------------

    /**
     * Preference points of the node for the pod (higher is better): {@code staticPoints} (what the node alone earns:
     * preferred node affinity and PreferNoSchedule taints, worked out by {@code NodeIndex}) plus preferred pod affinity, less preferred pod anti-affinity.
     */
    long points(PodSpec pod, Node n, long staticPoints) {
        long points = staticPoints;
        for (WeightedPodAffinityTerm w : pod.placement().podAffinity().preferred()) {
            String v = n.spec.labels().get(w.term().topologyKey());
            if (v != null) points += (long) w.weight() * countInDomain(pod.namespace(), w.term(), w.term().topologyKey(), v, Set.of(), true);
        }
        for (WeightedPodAffinityTerm w : pod.placement().podAntiAffinity().preferred()) {
            String v = n.spec.labels().get(w.term().topologyKey());
            if (v != null) points -= (long) w.weight() * countInDomain(pod.namespace(), w.term(), w.term().topologyKey(), v, Set.of(), true);
        }
        return points;
    }

    /** ScheduleAnyway spread: matching pods in the node's domains (lower is better); no domain counts as many. */
    long penalty(PodSpec pod, Node n) {
        List<SpreadConstraint> soft = new ArrayList<>();
        for (SpreadConstraint c : pod.placement().spread()) if (!c.doNotSchedule()) soft.add(c);
        long penalty = 0;
        for (SpreadConstraint c : soft) {
            String v = n.spec.labels().get(c.topologyKey());
            if (v == null) {
                penalty += NO_DOMAIN;
                continue;
            }
            penalty += spreadCounts(pod, c, soft, Set.of()).getOrDefault(v, 0);
        }
        return penalty;
    }
}
