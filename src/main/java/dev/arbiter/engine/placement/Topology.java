package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.LabelSelector;
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
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The rules of a placement that depend on other pods — pod affinity and anti-affinity, topology spread, host ports —
 * counted per topology domain and kept up to date as the cycle places and evicts pods (kube-scheduler's
 * InterPodAffinity, PodTopologySpread and NodePorts filters; no pod × node scan).
 *
 * <p>Counts. A {@link Scope} is a label selector over some namespaces, as a term reads it. A {@link View} counts the
 * pods matching a scope (or, for required affinity, matching every one of a pod's terms at once) per value of one node
 * label, over some nodes; it is created the first time a pod's rules need it, from an index of the pods present by
 * label, and from then on every placement and eviction updates it through an index of the views by the label they
 * select on. Example: a replica with required anti-affinity {@code app=web} per {@code kubernetes.io/hostname} reads
 * one view: matching pods per node; a node where it counts one or more fails.
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

    /** A pod on a node in this cycle. */
    private record Present(PodSpec pod, NodeState node) {}

    /**
     * A label selector over namespaces: those listed, those whose labels match {@code namespaceSelector}, or (neither
     * given) only {@code owner}, the namespace of the pod that states the term. A null selector matches nothing.
     */
    record Scope(String owner, List<String> namespaces, LabelSelector namespaceSelector, LabelSelector selector) {
        static Scope of(String owner, PodAffinityTerm t) {
            boolean own = t.namespaces().isEmpty() && t.namespaceSelector() == null;
            return new Scope(own ? owner : null, t.namespaces(), t.namespaceSelector(), t.labelSelector());
        }

        /** Topology spread counts pods of the pod's own namespace. */
        static Scope spread(String owner, SpreadConstraint c) {
            return new Scope(owner, List.of(), null, c.labelSelector());
        }
    }

    private final List<NodeState> nodes;
    private final LabelIndex labels;
    private final Function<String, Map<String, String>> namespaceLabels;
    /**
     * The pods present, by pod; null until something reads them (a view, or the label index), made then from
     * {@link #bound} and {@link #changes}. Most cycles of a large cluster never read them: no pod there has rules
     * that count other pods.
     */
    private Map<PodSpec, Present> present;
    /** The pods bound when the cycle began (the cycle's map, read only). */
    private final Map<PodSpec, NodeState> bound;
    /** Until {@link #present} is made: pods added since the cycle began, and bound ones gone ({@link #GONE}). */
    private final Map<PodSpec, Present> changes = new IdentityHashMap<>();
    private static final Present GONE = new Present(null, null);
    /** Present pods by "key\0value" and by "key"; built when the first view is made. */
    private Map<String, Set<Present>> podsByLabel;
    /** Views by the selector entry they are indexed under ("key\0value" or "key"), and those indexed under none. */
    private final Map<String, List<Matcher>> matchersByLabel = new HashMap<>();
    private final List<Matcher> unindexedMatchers = new ArrayList<>();
    private final Map<List<Scope>, Matcher> matchers = new HashMap<>();
    private final Map<ViewKey, View> views = new HashMap<>();
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
        this.nodes = nodes;
        this.labels = labels;
        this.namespaceLabels = namespaceLabels;
        this.bound = bound;
        for (PodSpec p : all) {
            // Most pods state no placement at all: no iterator for them.
            if (p.placement() == Placement.NONE) continue;
            for (PodAffinityTerm t : p.placement().podAntiAffinity().required()) carrier(Scope.of(p.namespace(), t), t.topologyKey());
        }
        // With no view yet, a bound pod counts only for its own anti-affinity terms and host ports.
        for (PodSpec p : all) {
            NodeState n = p.placement() == Placement.NONE ? null : bound.get(p);
            if (n != null) count(new Present(p, n), +1);
        }
    }

    /** {@link #present}, made on first use. */
    private Map<PodSpec, Present> present() {
        if (present == null) {
            Map<PodSpec, Present> all = new IdentityHashMap<>(bound.size() + changes.size());
            bound.forEach((pod, node) -> all.put(pod, new Present(pod, node)));
            changes.forEach((pod, p) -> {
                if (p == GONE) all.remove(pod);
                else all.put(pod, p);
            });
            changes.clear();
            present = all;
        }
        return present;
    }

    // ---- changes ----------------------------------------------------------------------------------------------

    /** {@code pod} is now on {@code node}: bound when the cycle began, placed, or an eviction undone. */
    void add(PodSpec pod, NodeState node) {
        Present p = new Present(pod, node);
        if (present != null) present.put(pod, p);
        else changes.put(pod, p);
        if (podsByLabel != null && notIndexed.remove(p) == null) unindexed.put(p, Boolean.TRUE);
        count(p, +1);
    }

    /** {@code pod} has left {@code node}: evicted, or its placement undone. */
    void remove(PodSpec pod, NodeState node) {
        Present p;
        if (present != null) {
            p = present.remove(pod);
        } else {
            p = changes.get(pod);
            if (p == GONE) return;
            if (p == null) {
                NodeState n = bound.get(pod);
                p = n == null ? null : new Present(pod, n);
            }
            if (p == null) return;
            if (bound.containsKey(pod)) changes.put(pod, GONE);
            else changes.remove(pod);
        }
        if (p == null) return;
        if (podsByLabel != null && unindexed.remove(p) == null) notIndexed.put(p, Boolean.TRUE);
        count(p, -1);
    }

    /**
     * Changes not yet made to {@link #podsByLabel}: pods added since (to index) and pods removed since (to take out).
     * A gang placed and undone again costs two set operations, not an index update per label; the index catches up
     * when a view next needs it.
     */
    private final Map<Present, Boolean> unindexed = new IdentityHashMap<>();
    private final Map<Present, Boolean> notIndexed = new IdentityHashMap<>();

    private void count(Present p, int delta) {
        PodSpec pod = p.pod();
        if (!views.isEmpty()) {
            for (Matcher m : unindexedMatchers) countIfMatches(m, p, delta);
            for (Map.Entry<String, String> l : pod.labels().entrySet()) {
                List<Matcher> byValue = matchersByLabel.get(l.getKey() + '\0' + l.getValue());
                if (byValue != null) for (Matcher m : byValue) countIfMatches(m, p, delta);
                List<Matcher> byKey = matchersByLabel.get(l.getKey());
                if (byKey != null) for (Matcher m : byKey) countIfMatches(m, p, delta);
            }
        }
        if (pod.placement() == Placement.NONE) return;
        for (PodAffinityTerm t : pod.placement().podAntiAffinity().required()) {
            CarrierTerm c = carrier(Scope.of(pod.namespace(), t), t.topologyKey());
            c.count(p.node(), delta);
        }
        if (!pod.placement().hostPorts().isEmpty()) {
            List<HostPort> used = ports.computeIfAbsent(p.node(), k -> new ArrayList<>());
            for (HostPort hp : pod.placement().hostPorts()) {
                if (delta > 0) used.add(hp);
                else used.remove(hp);
            }
        }
    }

    private static void countIfMatches(Matcher m, Present p, int delta) {
        if (!m.matches(p.pod())) return;
        for (View v : m.views) v.count(p, delta);
    }

    // ---- scopes and views -------------------------------------------------------------------------------------

    boolean matches(Scope s, PodSpec pod) {
        if (s.selector() == null) return false;
        boolean covered;
        if (s.owner() != null) covered = s.owner().equals(pod.namespace());
        else covered = s.namespaces().contains(pod.namespace())
                || (s.namespaceSelector() != null && s.namespaceSelector().matches(namespaceLabels.apply(pod.namespace())));
        return covered && s.selector().matches(pod.labels());
    }

    /** Pods matching every scope of {@code parts}, with the counts kept of them. */
    final class Matcher {
        final List<Scope> parts;
        final List<View> views = new ArrayList<>(2);

        Matcher(List<Scope> parts) {
            this.parts = parts;
        }

        boolean matches(PodSpec pod) {
            for (Scope s : parts) if (!Topology.this.matches(s, pod)) return false;
            return true;
        }
    }

    private Matcher matcher(List<Scope> parts) {
        return matchers.computeIfAbsent(parts, k -> {
            Matcher m = new Matcher(k);
            List<String> keys = indexKeys(k.get(0).selector());
            if (keys == null) unindexedMatchers.add(m);
            else for (String key : keys) matchersByLabel.computeIfAbsent(key, x -> new ArrayList<>()).add(m);
            return m;
        });
    }

    /**
     * The index entries a selector is filed under: the first of its matchLabels ("key\0value"), else the values of its
     * first In expression, else the key of its first Exists expression; null when it has none of these (such a
     * selector may match a pod without any particular label, so it is asked about every pod).
     */
    private static List<String> indexKeys(LabelSelector s) {
        if (s == null) return List.of();
        if (!s.matchLabels().isEmpty()) {
            String k = new TreeMap<>(s.matchLabels()).firstKey();
            return List.of(k + '\0' + s.matchLabels().get(k));
        }
        for (LabelSelector.Requirement r : s.matchExpressions()) {
            if (r.operator().equals("In")) {
                List<String> out = new ArrayList<>();
                for (String v : r.values()) out.add(r.key() + '\0' + v);
                return out;
            }
        }
        for (LabelSelector.Requirement r : s.matchExpressions()) if (r.operator().equals("Exists")) return List.of(r.key());
        return null;
    }

    private record ViewKey(Matcher matcher, String key, BitSet filter, boolean terminating) {}

    /**
     * Matching pods per value of node label {@code key}, over the nodes in {@code filter} (null: all); terminating pods
     * count only when {@code terminating}. Also the number of domains among the filter's nodes and the smallest count
     * over them (topology spread's global minimum).
     */
    final class View {
        final Matcher matcher;
        final String key;
        final BitSet filter;
        final boolean terminating;
        private final Map<String, Integer> counts = new HashMap<>();
        /** Matching pods counted in any domain. */
        int total;
        /** Incremented on every change of a count (remembered failures of non-monotone rules check it). */
        long changes;
        /** Domains of the filter's nodes by count (count → domains), for the minimum; null until asked. */
        private TreeMap<Integer, Integer> byCount;
        private int domains = -1;

        View(Matcher matcher, String key, BitSet filter, boolean terminating) {
            this.matcher = matcher;
            this.key = key;
            this.filter = filter;
            this.terminating = terminating;
        }

        int count(String domain) {
            Integer c = counts.get(domain);
            return c == null ? 0 : c;
        }

        /** The domain of {@code n} for this view, or null when the node does not carry the key. */
        String domainOf(NodeState n) {
            return n.spec.labels().get(key);
        }

        /** Whether a pod on {@code n} is counted (node in the filter and carrying the key, terminating rule). */
        boolean counts(PodSpec pod, NodeState n) {
            return (filter == null || filter.get(n.index)) && n.spec.labels().containsKey(key)
                    && (terminating || !pod.terminating());
        }

        void count(Present p, int delta) {
            if (!counts(p.pod(), p.node())) return;
            String d = domainOf(p.node());
            int before = count(d);
            int after = before + delta;
            if (after == 0) counts.remove(d);
            else counts.put(d, after);
            total += delta;
            changes++;
            if (byCount != null && inFilterDomains(d)) {
                byCount.merge(before, -1, Integer::sum);
                if (byCount.get(before) == 0) byCount.remove(before);
                byCount.merge(after, 1, Integer::sum);
            }
        }

        private Set<String> filterDomains;

        private boolean inFilterDomains(String d) {
            return filterDomains.contains(d);
        }

        /** The number of domains among the filter's nodes. */
        int domains() {
            prepareMinimum();
            return domains;
        }

        /** The smallest count over the filter's domains (0 when there are none). */
        int minimum() {
            prepareMinimum();
            return byCount.isEmpty() ? 0 : byCount.firstKey();
        }

        private void prepareMinimum() {
            if (byCount != null) return;
            filterDomains = domainsOf(filter, key);
            domains = filterDomains.size();
            byCount = new TreeMap<>();
            for (String d : filterDomains) byCount.merge(count(d), 1, Integer::sum);
        }
    }

    private record DomainsKey(BitSet filter, String key) {}

    private final Map<DomainsKey, Set<String>> domainsOf = new HashMap<>();

    /** The values of {@code key} among the nodes of {@code filter} (null: all), shared by every view over them. */
    private Set<String> domainsOf(BitSet filter, String key) {
        return domainsOf.computeIfAbsent(new DomainsKey(filter, key), k -> {
            Set<String> out = new java.util.HashSet<>();
            BitSet b = filter == null ? labels.withKey(key) : (BitSet) filter.clone();
            if (filter != null) b.and(labels.withKey(key));
            for (int i = b.nextSetBit(0); i >= 0; i = b.nextSetBit(i + 1)) out.add(nodes.get(i).spec.labels().get(key));
            return out;
        });
    }

    private View view(Matcher m, String key, BitSet filter, boolean terminating) {
        return views.computeIfAbsent(new ViewKey(m, key, filter, terminating), k -> {
            View v = new View(m, key, filter, terminating);
            m.views.add(v);
            for (Present p : candidatePods(m.parts.get(0).selector())) if (m.matches(p.pod())) v.count(p, +1);
            v.changes = 0;
            return v;
        });
    }

    /** Present pods a selector may match, from the index by label (built on first use). */
    private Collection<Present> candidatePods(LabelSelector s) {
        if (podsByLabel == null) {
            podsByLabel = new HashMap<>();
            for (Present p : present().values()) index(p);
        } else {
            for (Present p : notIndexed.keySet()) unindex(p);
            for (Present p : unindexed.keySet()) index(p);
            notIndexed.clear();
            unindexed.clear();
        }
        List<String> keys = indexKeys(s);
        if (keys == null) return present().values();
        Set<Present> out = new LinkedHashSet<>();
        for (String k : keys) out.addAll(podsByLabel.getOrDefault(k, Set.of()));
        return out;
    }

    private void index(Present p) {
        for (Map.Entry<String, String> l : p.pod().labels().entrySet()) {
            podsByLabel.computeIfAbsent(l.getKey() + '\0' + l.getValue(), k -> new LinkedHashSet<>()).add(p);
            podsByLabel.computeIfAbsent(l.getKey(), k -> new LinkedHashSet<>()).add(p);
        }
    }

    private void unindex(Present p) {
        for (Map.Entry<String, String> l : p.pod().labels().entrySet()) {
            Set<Present> a = podsByLabel.get(l.getKey() + '\0' + l.getValue());
            if (a != null) a.remove(p);
            Set<Present> b = podsByLabel.get(l.getKey());
            if (b != null) b.remove(p);
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
            List<String> keys = indexKeys(scope.selector());
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
        for (CarrierTerm c : unindexedCarriers) if (matches(c.scope, pod)) out.add(c);
        for (Map.Entry<String, String> l : pod.labels().entrySet()) {
            for (CarrierTerm c : carriersByLabel.getOrDefault(l.getKey() + '\0' + l.getValue(), List.of())) if (matches(c.scope, pod)) out.add(c);
            for (CarrierTerm c : carriersByLabel.getOrDefault(l.getKey(), List.of())) if (matches(c.scope, pod)) out.add(c);
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
                affinityMatcher = matcher(parts);
                for (PodAffinityTerm t : req) {
                    affinityKeys.add(t.topologyKey());
                    affinity.add(view(affinityMatcher, t.topologyKey(), null, true));
                }
            } else {
                affinityMatcher = null;
            }
            for (PodAffinityTerm t : pl.podAntiAffinity().required()) {
                anti.add(view(matcher(List.of(Scope.of(ns, t))), t.topologyKey(), null, true));
            }
            for (SpreadConstraint c : pl.spread()) if (c.doNotSchedule()) spreadKeys.add(c.topologyKey());
            for (SpreadConstraint c : pl.spread()) {
                Scope s = Scope.spread(ns, c);
                List<String> keys = c.doNotSchedule() ? spreadKeys : softKeys(pl);
                BitSet filter = labels.all();
                for (String k : keys) filter.and(labels.withKey(k));
                if (c.honorNodeAffinity()) filter.and(nodeAffinityNodes);
                if (c.honorNodeTaints()) filter.and(toleratedNodes);
                Spread sp = new Spread(c, view(matcher(List.of(s)), c.topologyKey(), filter, false), s);
                (c.doNotSchedule() ? spread : soft).add(sp);
            }
            for (WeightedPodAffinityTerm w : pl.podAffinity().preferred()) {
                preferences.add(new Preference(view(matcher(List.of(Scope.of(ns, w.term()))), w.term().topologyKey(), null, true), w.weight()));
            }
            for (WeightedPodAffinityTerm w : pl.podAntiAffinity().preferred()) {
                preferences.add(new Preference(view(matcher(List.of(Scope.of(ns, w.term()))), w.term().topologyKey(), null, true), -w.weight()));
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
            if (matches(s.scope(), pod)) bits |= 1L << i;
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
