package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.engine.placement.DomainCounts.Matcher;
import dev.arbiter.engine.placement.DomainCounts.Scope;
import dev.arbiter.engine.placement.DomainCounts.View;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.model.Placement.WeightedPodAffinityTerm;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The rules of a placement that depend on other pods — pod affinity and anti-affinity, topology spread, host ports —
 * counted per topology domain and kept up to date as the cycle places and evicts pods (kube-scheduler's
 * InterPodAffinity, PodTopologySpread and NodePorts filters; no pod × node scan).
 *
 * <p>Counts ({@link DomainCounts}). A {@link Scope} is a label selector over some namespaces, as a term reads it. A
 * {@link View} counts the pods matching a scope (or, for required affinity, matching every one of a pod's terms at
 * once) per value of one node label, over some nodes. Example: a replica with required anti-affinity {@code app=web}
 * per {@code kubernetes.io/hostname} reads one view: matching pods per node; a node where it counts one or more fails.
 *
 * <p>Existing pods' anti-affinity ({@link CarrierTerm}): every required anti-affinity term of every pod in the
 * snapshot is registered when the cycle begins, with the domains where pods carrying it run; a pod that a term matches
 * may not go to those domains, whether or not it states any rule itself.
 *
 * <p>What counts, as kube-scheduler counts it: pods bound when the cycle began (of every scheduler, terminating ones
 * too for affinity and ports, not for spread), pods placed earlier in the cycle (members of the same gang included), less
 * pods evicted. Spread counts only pods of the pod's own namespace, on nodes that carry every topology key of its
 * constraints and pass its node affinity and nodeSelector ({@code nodeAffinityPolicy: Honor}) and, with
 * {@code nodeTaintsPolicy: Honor}, its tolerations.
 */
final class Topology {
    static final String PORTS = "node(s) didn't have free ports for the requested pod ports";
    static final String SPREAD = "node(s) didn't match pod topology spread constraints";
    static final String SPREAD_LABEL = SPREAD + " (missing required label)";
    static final String AFFINITY = "node(s) didn't match pod affinity rules";
    static final String ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
    static final String EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";

    private final LabelIndex labels;
    /** The pods present, and the views that count them per domain. */
    private final DomainCounts domainCounts;
    /** Existing pods' required anti-affinity terms, indexed like the views. */
    private final Map<CarrierKey, CarrierTerm> carriers = new HashMap<>();
    private final Map<String, List<CarrierTerm>> carriersByLabel = new HashMap<>();
    private final List<CarrierTerm> unindexedCarriers = new ArrayList<>();
    /** Host ports in use per node. */
    private final Map<NodeState, List<HostPort>> ports = new HashMap<>();
    private final Map<Object, Rules> rules = new HashMap<>();

    /**
     * @param all every pod of the snapshot, or those that state placement rules (the others carry no anti-affinity
     *            terms); bound ones count now, pending ones may carry anti-affinity terms later
     * @param bound the pods bound when the cycle begins, with their nodes
     */
    Topology(List<NodeState> nodes, LabelIndex labels, Function<String, Map<String, String>> namespaceLabels,
             Collection<PodSpec> all, Map<PodSpec, NodeState> bound) {
        this.labels = labels;
        this.domainCounts = new DomainCounts(nodes, labels, namespaceLabels, bound);
        for (PodSpec p : all) {
            // Most pods state no placement at all: no iterator for them.
            if (p.placement() == Placement.NONE) continue;
            for (PodAffinityTerm t : p.placement().podAntiAffinity().required()) carrier(Scope.of(p.namespace(), t), t.topologyKey());
        }
        // With no view yet, a bound pod counts only for its own anti-affinity terms and host ports.
        for (PodSpec p : all) {
            NodeState n = p.placement() == Placement.NONE ? null : bound.get(p);
            if (n != null) countOwnTerms(p, n, +1);
        }
    }

    // ---- changes ----------------------------------------------------------------------------------------------

    /** {@code pod} is now on {@code node}: bound when the cycle began, placed, or an eviction undone. */
    void add(PodSpec pod, NodeState node) {
        domainCounts.add(pod, node);
        countOwnTerms(pod, node, +1);
    }

    /** {@code pod} has left {@code node}: evicted, or its placement undone. */
    void remove(PodSpec pod, NodeState node) {
        NodeState on = domainCounts.remove(pod, node);
        if (on != null) countOwnTerms(pod, on, -1);
    }

    /** Counts the pod's own required anti-affinity terms and host ports on {@code node}. */
    private void countOwnTerms(PodSpec pod, NodeState node, int delta) {
        if (pod.placement() == Placement.NONE) return;
        for (PodAffinityTerm t : pod.placement().podAntiAffinity().required()) {
            CarrierTerm c = carrier(Scope.of(pod.namespace(), t), t.topologyKey());
            c.count(node, delta);
        }
        if (!pod.placement().hostPorts().isEmpty()) {
            List<HostPort> used = ports.computeIfAbsent(node, k -> new ArrayList<>());
            for (HostPort hp : pod.placement().hostPorts()) {
                if (delta > 0) used.add(hp);
                else used.remove(hp);
            }
        }
    }

    // ---- existing pods' anti-affinity -------------------------------------------------------------------------

    private record CarrierKey(Scope scope, String key) {}

    /** A required anti-affinity term, and the domains where pods carrying it run (count per domain). */
    final class CarrierTerm {
        final Scope scope;
        final String key;
        private final Map<String, Integer> counts = new HashMap<>();

        CarrierTerm(Scope scope, String key) {
            this.scope = scope;
            this.key = key;
        }

        void count(NodeState n, int delta) {
            String d = n.spec.labels().get(key);
            if (d == null) return;
            int after = counts.getOrDefault(d, 0) + delta;
            if (after == 0) counts.remove(d);
            else counts.put(d, after);
        }

        int count(String domain) {
            Integer c = counts.get(domain);
            return c == null ? 0 : c;
        }
    }

    private CarrierTerm carrier(Scope scope, String key) {
        return carriers.computeIfAbsent(new CarrierKey(scope, key), k -> {
            CarrierTerm c = new CarrierTerm(scope, key);
            List<String> keys = DomainCounts.indexKeys(scope.selector());
            if (keys == null) unindexedCarriers.add(c);
            else for (String x : keys) carriersByLabel.computeIfAbsent(x, y -> new ArrayList<>()).add(c);
            return c;
        });
    }

    /** Whether any pod of the snapshot carries a required anti-affinity term (else none can keep a pod out). */
    boolean hasCarriers() {
        return !carriers.isEmpty();
    }

    /** The registered anti-affinity terms that match {@code pod}: where their carriers run, it may not go. */
    List<CarrierTerm> carriersMatching(PodSpec pod) {
        if (carriers.isEmpty()) return List.of();
        List<CarrierTerm> out = new ArrayList<>();
        for (CarrierTerm c : unindexedCarriers) if (domainCounts.matches(c.scope, pod)) out.add(c);
        for (Map.Entry<String, String> l : pod.labels().entrySet()) {
            for (CarrierTerm c : carriersByLabel.getOrDefault(l.getKey() + '\0' + l.getValue(), List.of())) if (domainCounts.matches(c.scope, pod)) out.add(c);
            for (CarrierTerm c : carriersByLabel.getOrDefault(l.getKey(), List.of())) if (domainCounts.matches(c.scope, pod)) out.add(c);
        }
        return out;
    }

    // ---- a pod's rules ------------------------------------------------------------------------------------------

    /** A DoNotSchedule or ScheduleAnyway constraint as counted: its view, the scope for the pod's self-match. */
    record Spread(SpreadConstraint constraint, View view, Scope scope) {}

    /** A preferred term: its view, its scope (the pod's own labels do not count), and its signed weight. */
    record Preference(View view, int weight) {}

    /**
     * What the rules of pods with one namespace, placement and static node constraints read: the views, and the
     * scopes the pod's own labels are matched against ({@link #selfMatch}).
     */
    final class Rules {
        final List<String> affinityKeys = new ArrayList<>();
        final List<View> affinity = new ArrayList<>();
        final Matcher affinityMatcher;
        final List<View> anti = new ArrayList<>();
        final List<Spread> spread = new ArrayList<>();
        final List<Spread> soft = new ArrayList<>();
        final List<Preference> preferences = new ArrayList<>();
        final List<HostPort> hostPorts;
        final List<String> spreadKeys = new ArrayList<>();

        Rules(PodSpec pod, BitSet nodeAffinityNodes, BitSet toleratedNodes) {
            Placement pl = pod.placement();
            String ns = pod.namespace();
            List<PodAffinityTerm> req = pl.podAffinity().required();
            if (!req.isEmpty()) {
                List<Scope> parts = new ArrayList<>();
                for (PodAffinityTerm t : req) parts.add(Scope.of(ns, t));
                affinityMatcher = domainCounts.matcher(parts);
                for (PodAffinityTerm t : req) {
                    affinityKeys.add(t.topologyKey());
                    affinity.add(domainCounts.view(affinityMatcher, t.topologyKey(), null, true));
                }
            } else {
                affinityMatcher = null;
            }
            for (PodAffinityTerm t : pl.podAntiAffinity().required()) {
                anti.add(domainCounts.view(domainCounts.matcher(List.of(Scope.of(ns, t))), t.topologyKey(), null, true));
            }
            for (SpreadConstraint c : pl.spread()) if (c.doNotSchedule()) spreadKeys.add(c.topologyKey());
            for (SpreadConstraint c : pl.spread()) {
                Scope s = Scope.spread(ns, c);
                List<String> keys = c.doNotSchedule() ? spreadKeys : softKeys(pl);
                BitSet filter = labels.all();
                for (String k : keys) filter.and(labels.withKey(k));
                if (c.honorNodeAffinity()) filter.and(nodeAffinityNodes);
                if (c.honorNodeTaints()) filter.and(toleratedNodes);
                View counted = domainCounts.view(domainCounts.matcher(List.of(s)), c.topologyKey(), filter, false);
                Spread sp = new Spread(c, counted, s);
                (c.doNotSchedule() ? spread : soft).add(sp);
            }
            for (WeightedPodAffinityTerm w : pl.podAffinity().preferred()) {
                preferences.add(new Preference(domainCounts.view(domainCounts.matcher(List.of(Scope.of(ns, w.term()))),
                        w.term().topologyKey(), null, true), w.weight()));
            }
            for (WeightedPodAffinityTerm w : pl.podAntiAffinity().preferred()) {
                preferences.add(new Preference(domainCounts.view(domainCounts.matcher(List.of(Scope.of(ns, w.term()))),
                        w.term().topologyKey(), null, true), -w.weight()));
            }
            hostPorts = pl.hostPorts();
        }

        private static List<String> softKeys(Placement pl) {
            List<String> out = new ArrayList<>();
            for (SpreadConstraint c : pl.spread()) if (!c.doNotSchedule()) out.add(c.topologyKey());
            return out;
        }

        /** Placements elsewhere can make these rules pass (required affinity, spread): not monotone. */
        boolean monotone() {
            return affinity.isEmpty() && spread.isEmpty();
        }

        boolean hasPreferences() {
            return !preferences.isEmpty() || !soft.isEmpty();
        }

        /** A number that changes whenever a count the non-monotone rules read changes. */
        long stamp() {
            long s = 0;
            for (View v : affinity) s += v.changes;
            for (Spread sp : spread) s += sp.view().changes;
            return s;
        }
    }

    /**
     * The rules of {@code pod}, compiled once per (namespace, placement, static node constraints); null when it has
     * no rule that depends on other pods.
     *
     * @param nodeAffinityNodes the nodes passing its nodeSelector and required node affinity
     * @param toleratedNodes the nodes whose NoSchedule and NoExecute taints it tolerates
     */
    Rules rules(PodSpec pod, Object staticKey, BitSet nodeAffinityNodes, BitSet toleratedNodes) {
        if (!pod.placement().dependsOnPods()) return null;
        return rules.computeIfAbsent(List.of(pod.namespace(), pod.placement(), staticKey),
                k -> new Rules(pod, nodeAffinityNodes, toleratedNodes));
    }

    /**
     * Which of the rules' scopes the pod itself matches, as bits: bit 0 all its required affinity terms (kube-scheduler
     * lets the first of a set of pods with affinity to each other start anywhere), then one bit per spread constraint
     * in order (a pod that matches its own constraint counts itself).
     */
    long selfMatch(Rules r, PodSpec pod) {
        long bits = 0;
        if (r.affinityMatcher != null && r.affinityMatcher.matches(pod)) bits |= 1;
        int i = 1;
        for (Spread s : r.spread) {
            if (domainCounts.matches(s.scope(), pod)) bits |= 1L << i;
            i++;
        }
        return bits;
    }

    // ---- checks -------------------------------------------------------------------------------------------------

    /** Whether the pod's host ports are free on {@code n} with {@code gone} evicted; null when they are. */
    String portsViolation(Rules r, NodeState n, Collection<Task> gone) {
        if (r == null || r.hostPorts.isEmpty()) return null;
        List<HostPort> used = ports.get(n);
        if (used == null || used.isEmpty()) return null;
        List<HostPort> left = used;
        if (!gone.isEmpty()) {
            left = new ArrayList<>(used);
            for (Task t : gone) if (t.node == n) for (HostPort hp : t.pod.placement().hostPorts()) left.remove(hp);
        }
        for (HostPort want : r.hostPorts) for (HostPort u : left) if (want.conflicts(u)) return PORTS;
        return null;
    }

    /**
     * Why {@code n} fails the pod's spread constraints, affinity or anti-affinity, or an existing pod's anti-affinity,
     * in kube-scheduler's order and words; null when it passes. {@code gone}: pods to count as evicted.
     */
    String podRulesViolation(Rules r, long self, List<CarrierTerm> carriers, NodeState n, Collection<Task> gone) {
        Map<String, String> nodeLabels = n.spec.labels();
        if (r != null) {
            int i = 1;
            for (Spread s : r.spread) {
                for (String k : r.spreadKeys) if (!nodeLabels.containsKey(k)) return SPREAD_LABEL;
                View v = s.view();
                String d = nodeLabels.get(s.constraint().topologyKey());
                int min = v.domains() < s.constraint().minDomains() ? 0 : minimumWithout(v, gone);
                int skew = countWithout(v, d, gone) + ((self >> i & 1) == 1 ? 1 : 0) - min;
                if (skew > s.constraint().maxSkew()) return SPREAD;
                i++;
            }
            if (!r.affinity.isEmpty()) {
                boolean exist = true;
                for (int t = 0; t < r.affinity.size(); t++) {
                    String d = nodeLabels.get(r.affinityKeys.get(t));
                    if (d == null) return AFFINITY;
                    if (countWithout(r.affinity.get(t), d, gone) <= 0) exist = false;
                }
                if (!exist && !((self & 1) == 1 && noneAnywhere(r.affinity, gone))) return AFFINITY;
            }
            for (View v : r.anti) {
                String d = nodeLabels.get(v.key);
                if (d != null && countWithout(v, d, gone) > 0) return ANTI_AFFINITY;
            }
        }
        for (CarrierTerm c : carriers) {
            String d = nodeLabels.get(c.key);
            if (d != null && carriedWithout(c, d, gone) > 0) return EXISTING_ANTI_AFFINITY;
        }
        return null;
    }

    /** No pod matching the affinity terms runs on any node carrying one of their keys (with {@code gone} evicted). */
    private boolean noneAnywhere(List<View> affinity, Collection<Task> gone) {
        for (View v : affinity) {
            int total = v.total;
            for (Task t : gone) if (v.counts(t.pod, t.node) && v.matcher.matches(t.pod)) total--;
            if (total > 0) return false;
        }
        return true;
    }

    private int countWithout(View v, String domain, Collection<Task> gone) {
        int c = v.count(domain);
        if (c == 0 || gone.isEmpty()) return c;
        for (Task t : gone) {
            if (domain.equals(v.domainOf(t.node)) && v.counts(t.pod, t.node) && v.matcher.matches(t.pod)) c--;
        }
        return c;
    }

    private int minimumWithout(View v, Collection<Task> gone) {
        int min = v.minimum();
        if (gone.isEmpty()) return min;
        for (Task t : gone) {
            String d = v.domainOf(t.node);
            if (d != null && v.counts(t.pod, t.node) && v.matcher.matches(t.pod)) min = Math.min(min, countWithout(v, d, gone));
        }
        return min;
    }

    private int carriedWithout(CarrierTerm c, String domain, Collection<Task> gone) {
        int n = c.count(domain);
        if (n == 0 || gone.isEmpty()) return n;
        for (Task t : gone) {
            if (!domain.equals(t.node.spec.labels().get(c.key))) continue;
            for (PodAffinityTerm term : t.pod.placement().podAntiAffinity().required()) {
                if (term.topologyKey().equals(c.key) && Scope.of(t.pod.namespace(), term).equals(c.scope)) n--;
            }
        }
        return n;
    }

    /**
     * For the first pod of a set with required affinity to itself — no pod matching its terms runs anywhere, and it
     * matches them itself, so kube-scheduler lets it go to any node with the topology keys — the free amount of
     * {@code dim} per domain of its first term's key, summed over {@code eligible}: the rest of the set must follow it
     * there, so the domain with the most room is the better start. Null for any other pod.
     */
    Map<String, Long> firstOfSetRoom(Rules r, long self, List<NodeState> eligible, String dim) {
        if (r.affinity.isEmpty() || (self & 1) == 0 || !noneAnywhere(r.affinity, List.of())) return null;
        String key = r.affinityKeys.get(0);
        Map<String, Long> room = new HashMap<>();
        for (NodeState n : eligible) {
            String d = n.spec.labels().get(key);
            if (d != null) room.merge(d, Math.max(0, n.free().milli(dim)), Long::sum);
        }
        return room;
    }

    /** The node's value of the first required affinity term's key. */
    String firstAffinityDomain(Rules r, NodeState n) {
        return r.affinityKeys.isEmpty() ? null : n.spec.labels().get(r.affinityKeys.get(0));
    }

    // ---- scores -------------------------------------------------------------------------------------------------

    /** Preferred pod (anti-)affinity: the weight of each term times the matching pods in the node's domain. */
    long preferencePoints(Rules r, NodeState n) {
        long points = 0;
        for (Preference p : r.preferences) {
            String d = p.view().domainOf(n);
            if (d != null) points += (long) p.weight() * p.view().count(d);
        }
        return points;
    }

    /**
     * ScheduleAnyway spread: the matching pods in the node's domain, summed over the constraints (fewer is better); a
     * node without a constraint's key counts as {@link #NO_DOMAIN}.
     */
    long spreadPenalty(Rules r, NodeState n) {
        long penalty = 0;
        for (Spread s : r.soft) {
            String d = s.view().domainOf(n);
            penalty += d == null ? NO_DOMAIN : s.view().count(d);
        }
        return penalty;
    }

    static final long NO_DOMAIN = 1L << 40;
}
