package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.NodeState;

import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
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
 * The pods present in a cycle, counted per topology domain for the rules of {@link Topology}, and kept up to date as
 * the cycle places and evicts pods.
 *
 * <p>A {@link Scope} is a label selector over some namespaces, as a term reads it. A {@link View} counts the
 * pods matching a scope (or, for required affinity, matching every one of a pod's terms at once) per value of one node
 * label, over some nodes; it is created the first time a pod's rules need it, from an index of the pods present by
 * label, and from then on every placement and eviction updates it through an index of the views by the label they
 * select on. Example: a replica with required anti-affinity {@code app=web} per {@code kubernetes.io/hostname} reads
 * one view: matching pods per node; a node where it counts one or more fails.
 */
final class DomainCounts {
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

    DomainCounts(List<NodeState> nodes, LabelIndex labels, Function<String, Map<String, String>> namespaceLabels,
                 Map<PodSpec, NodeState> bound) {
        this.nodes = nodes;
        this.labels = labels;
        this.namespaceLabels = namespaceLabels;
        this.bound = bound;
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

    /** {@code pod} is now on {@code node}: bound when the cycle began, placed, or an eviction undone. */
    void add(PodSpec pod, NodeState node) {
        Present p = new Present(pod, node);
        if (present != null) present.put(pod, p);
        else changes.put(pod, p);
        if (podsByLabel != null && notIndexed.remove(p) == null) unindexed.put(p, Boolean.TRUE);
        countInViews(p, +1);
    }

    /**
     * {@code pod} has left {@code node}: evicted, or its placement undone. Returns the node it was counted on, or null
     * when it was not present.
     */
    NodeState remove(PodSpec pod, NodeState node) {
        Present p;
        if (present != null) {
            p = present.remove(pod);
        } else {
            p = changes.get(pod);
            if (p == GONE) return null;
            if (p == null) {
                NodeState n = bound.get(pod);
                p = n == null ? null : new Present(pod, n);
            }
            if (p == null) return null;
            if (bound.containsKey(pod)) changes.put(pod, GONE);
            else changes.remove(pod);
        }
        if (p == null) return null;
        if (podsByLabel != null && unindexed.remove(p) == null) notIndexed.put(p, Boolean.TRUE);
        countInViews(p, -1);
        return p.node();
    }

    /**
     * Changes not yet made to {@link #podsByLabel}: pods added since (to index) and pods removed since (to take out).
     * A gang placed and undone again costs two set operations, not an index update per label; the index catches up
     * when a view next needs it.
     */
    private final Map<Present, Boolean> unindexed = new IdentityHashMap<>();
    private final Map<Present, Boolean> notIndexed = new IdentityHashMap<>();

    /** Counts {@code p} in every view whose pods it matches ({@code delta}: +1 added, -1 removed). */
    private void countInViews(Present p, int delta) {
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
    }

    private static void countIfMatches(Matcher m, Present p, int delta) {
        if (!m.matches(p.pod())) return;
        for (View v : m.views) v.count(p, delta);
    }

    /** Whether {@code pod} is in scope {@code s}: one of its namespaces, and matching its selector. */
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
            for (Scope s : parts) if (!DomainCounts.this.matches(s, pod)) return false;
            return true;
        }
    }

    Matcher matcher(List<Scope> parts) {
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
    static List<String> indexKeys(LabelSelector s) {
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

    View view(Matcher m, String key, BitSet filter, boolean terminating) {
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
}
