package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.FreeIndex;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Node fitting and scoring, in Java and indexed (never a pod × node rule join).
 *
 * <p>Static predicates — cordon, taints, nodeSelector and required node affinity — depend only on the pod's
 * constraints, so the eligible nodes are computed once per distinct (nodeSelector, tolerations, node affinity) per
 * cycle, from a {@link LabelIndex} of the nodes by label. For each such class and each <em>primary dimension</em> (the
 * pod's scarcest kind of resource: an accelerator if it asks for one, else another extended resource, else cpu, else
 * memory) the eligible nodes are kept sorted by free amount of that dimension, and the sort is maintained as placements
 * and evictions change free capacity. A query walks that order from the first node with enough of the primary
 * dimension and returns the first node where every dimension fits and the rules that depend on other pods — host
 * ports, topology spread, pod affinity and anti-affinity, existing pods' anti-affinity — pass ({@link Topology} counts
 * those per domain).
 *
 * <p>Scoring: preferences first, then packing. A node matching more preferred weight wins — preferred node affinity
 * (the weights of the terms it matches), plus preferred pod affinity (weight × matching pods in its domain), less
 * preferred pod anti-affinity (likewise); then, for ScheduleAnyway spread constraints, the node whose domains hold
 * fewer matching pods. Among equals, {@code binpack} (default) takes the node with the <em>least</em> free primary
 * dimension that still fits — filling GPU nodes one by one and keeping whole nodes free for large gangs; {@code spread}
 * takes the node with the <em>most</em>. Ties go to the earlier node. Preferred node affinity alone costs nothing extra
 * (the eligible nodes are split into tiers of equal preferred weight, each with its own sorted index); preferred pod
 * affinity or ScheduleAnyway spread walk every eligible node with room. The first pod of a set with required affinity
 * to itself (a LeaderWorkerSet group kept in one rack: no pod of the set runs yet, so it may go anywhere) goes to the
 * domain whose eligible nodes have the most free primary dimension, so that the rest of its gang finds room there.
 *
 * <p>A pod shape that fitted nowhere is remembered until capacity is released (and, for rules that other pods'
 * placements can satisfy — required pod affinity, DoNotSchedule spread — until their counts change), so the
 * thousandth identical task of a gang that cannot start costs a map lookup. Why a pod fits nowhere is counted as
 * kube-scheduler counts it, each node under the first filter it fails, in kube-scheduler's words:
 * {@code 0/12 nodes are available: 4 node(s) didn't match Pod's node affinity/selector, 8 Insufficient nvidia.com/gpu}.
 *
 * <p>With per-resource weights (the policy's {@code scoring.weights}, Volcano's binpack arguments), a pod without
 * preferences compares the first {@value #WEIGHED_CANDIDATES} nodes that fit in packing order (within the highest
 * preferred-node-affinity tier that has one) by {@code sum(weight × (used + request) / allocatable) / sum(weight)},
 * highest first for binpack, lowest for spread, and the best wins.
 */
public final class NodeFitter {
    public enum Scoring { BINPACK, SPREAD }

    static final String UNSCHEDULABLE = "node(s) were unschedulable";
    static final String NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
    /** The taint a cordoned node carries; a pod tolerating it may still go there (kube-scheduler's NodeUnschedulable). */
    static final Taint UNSCHEDULABLE_TAINT = new Taint("node.kubernetes.io/unschedulable", "", "NoSchedule");

    /**
     * The static constraints of a pod: nodeSelector, tolerations, node affinity; {@code blocked} says why the pod may
     * not be placed at all (scheduling gates, or a need Arbiter does not evaluate), or is null; {@code within} is the
     * network domain its gang is confined to while the gang tries that domain (see {@link #confine}), or null.
     */
    private record Constraints(Map<String, String> selector, List<Toleration> tolerations,
                               Placement.NodeAffinity affinity, String blocked, NetworkDomains.Domain within) {
        Constraints(Map<String, String> selector, List<Toleration> tolerations, Placement.NodeAffinity affinity,
                    String blocked) {
            this(selector, tolerations, affinity, blocked, null);
        }

        Constraints confinedTo(NetworkDomains.Domain d) {
            return new Constraints(selector, tolerations, affinity, blocked, d);
        }
    }

    /** A request with its constraints; hashed once. */
    private static final class Shape {
        final Resources request;
        final Object constraints;
        final Object dynamic;
        final int hash;

        Shape(Resources request, Object constraints, Object dynamic) {
            this.request = request;
            this.constraints = constraints;
            this.dynamic = dynamic;
            // java.util.Objects.hash(request, constraints, dynamic), without its array
            this.hash = 31 * (31 * (31 + java.util.Objects.hashCode(request)) + constraints.hashCode())
                    + java.util.Objects.hashCode(dynamic);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Shape s && hash == s.hash && java.util.Objects.equals(request, s.request)
                    && constraints.equals(s.constraints) && java.util.Objects.equals(dynamic, s.dynamic);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** What the rules that depend on other pods make of one pod: equal keys, equal answers. */
    private record DynamicKey(Topology.Rules rules, long self, List<Topology.CarrierTerm> carriers) {}

    /** What one pod asks of nodes, worked out once per pod per cycle. */
    private static final class Demand {
        final Constraints constraints;
        final Topology.Rules rules;
        final long self;
        final List<Topology.CarrierTerm> carriers;
        final Shape shape;

        Demand(PodSpec pod, Constraints constraints, Topology.Rules rules, long self, List<Topology.CarrierTerm> carriers) {
            this.constraints = constraints;
            this.rules = rules;
            this.self = self;
            this.carriers = carriers;
            this.shape = new Shape(pod.requests(), constraints, dependsOnPods() ? new DynamicKey(rules, self, carriers) : null);
        }

        public boolean dependsOnPods() {
            return rules != null || !carriers.isEmpty();
        }
    }

    /**
     * What the fitter works out from the nodes alone — their labels, cordons and taints, and the nodes each set of
     * static constraints admits — kept across cycles with the nodes ({@link WorkingCopy}) while the node list is the
     * same. Classes confined to a network domain (a cycle's own) are not kept.
     */
    public static final class Statics {
        /** Beyond this many kept classes or tolerations, the oldest are forgotten (a cluster churning pod shapes). */
        private static final int MOST = 4096;
        private final List<NodeState> nodes;
        private final LabelIndex labels;
        private final BitSet unschedulable = new BitSet();
        private final BitSet untainted = new BitSet();
        private final Map<List<Toleration>, BitSet> toleratedBy = new HashMap<>();
        private final Map<Constraints, StaticClass> classes = new HashMap<>();

        public Statics(List<NodeState> nodes) {
            this.nodes = List.copyOf(nodes);
            this.labels = new LabelIndex(this.nodes);
            for (NodeState n : this.nodes) {
                if (n.spec.unschedulable()) unschedulable.set(n.index);
                boolean clean = true;
                for (Taint t : n.spec.taints()) clean &= !blocks(t);
                if (clean) untainted.set(n.index);
            }
        }

        /** Whether these statics were worked out from {@code these} nodes (the same objects, in the same order). */
        boolean of(List<NodeState> these) {
            if (these.size() != nodes.size()) return false;
            for (int i = 0; i < these.size(); i++) if (these.get(i) != nodes.get(i)) return false;
            return true;
        }

        /** Sorted node indexes kept across cycles, and whether each was used since the last {@link #sweep}. */
        private final Map<KeptIndex, FreeIndex> kept = new HashMap<>();
        private final Set<KeptIndex> usedSinceSweep = new java.util.HashSet<>();

        private record KeptIndex(IndexKey key, Scoring scoring) {}

        FreeIndex keptIndex(IndexKey key, Scoring scoring) {
            KeptIndex k = new KeptIndex(key, scoring);
            FreeIndex set = kept.get(k);
            if (set != null) usedSinceSweep.add(k);
            return set;
        }

        void keepIndex(IndexKey key, Scoring scoring, FreeIndex set) {
            KeptIndex k = new KeptIndex(key, scoring);
            kept.put(k, set);
            usedSinceSweep.add(k);
        }

        /**
         * Drops the kept indexes no cycle used since the last sweep (every change of free capacity re-files a node in
         * each index it is in, so an index nobody reads is not kept for nothing), and the shortfalls nobody asked for.
         * Called as a cycle begins.
         */
        public void sweep() {
            kept.entrySet().removeIf(e -> {
                if (usedSinceSweep.contains(e.getKey())) return false;
                for (NodeState n : e.getValue()) n.unindexed(e.getValue());
                return true;
            });
            usedSinceSweep.clear();
            shortfalls.keySet().retainAll(askedSinceSweep);
            askedSinceSweep.clear();
        }

        /**
         * Shortfalls kept across cycles, by request and class, and whether each was asked for since the last
         * {@link #sweep}: at most {@value #MOST_SHORTFALLS} (each holds three numbers per eligible node).
         */
        private final Map<BaseKey, Shortfalls> shortfalls = new HashMap<>();
        private final Set<BaseKey> askedSinceSweep = new java.util.HashSet<>();
        private static final int MOST_SHORTFALLS = 256;

        Shortfalls keptShortfalls(BaseKey key) {
            Shortfalls s = shortfalls.get(key);
            if (s != null) askedSinceSweep.add(key);
            return s;
        }

        void keepShortfalls(BaseKey key, Shortfalls s) {
            if (shortfalls.size() >= MOST_SHORTFALLS) return;
            shortfalls.put(key, s);
            askedSinceSweep.add(key);
        }

        /** How many sorted indexes and shortfalls it keeps (for tests). */
        int keptIndexes() {
            return kept.size();
        }

        int keptShortfalls() {
            return shortfalls.size();
        }

        StaticClass staticClass(Constraints c) {
            StaticClass sc = classes.get(c);
            if (sc == null) {
                sc = new StaticClass(this, c);
                if (c.within() == null) {
                    if (classes.size() >= MOST) classes.clear();
                    classes.put(c, sc);
                }
            }
            return sc;
        }

        /** The nodes whose NoSchedule and NoExecute taints the tolerations all tolerate. */
        BitSet tolerated(List<Toleration> tolerations) {
            if (toleratedBy.size() >= MOST && !toleratedBy.containsKey(tolerations)) toleratedBy.clear();
            return (BitSet) toleratedBy.computeIfAbsent(tolerations, k -> {
                BitSet b = (BitSet) untainted.clone();
                for (NodeState n : nodes) {
                    if (b.get(n.index)) continue;
                    boolean ok = true;
                    for (Taint t : n.spec.taints()) if (blocks(t) && !tolerates(k, t)) ok = false;
                    if (ok) b.set(n.index);
                }
                return b;
            }).clone();
        }
    }

    /** The nodes a static class admits, and its preferred node-affinity weight per node. */
    private static final class StaticClass {
        final Statics statics;
        final Constraints c;
        /** Passing nodeSelector and required node affinity (what topology spread honors by default). */
        final BitSet affinityNodes;
        /** Whose NoSchedule and NoExecute taints the pod tolerates. */
        final BitSet tolerated;
        /** Passing every static predicate. */
        final BitSet eligible;
        /** Preferred node-affinity weight per node index, or null when the pod prefers nothing. */
        final long[] points;
        /** The distinct weights among eligible nodes, highest first ({@code [0]} without preferences). */
        final long[] tiers;
        private List<NodeState> list;

        StaticClass(Statics statics, Constraints c) {
            this.statics = statics;
            this.c = c;
            LabelIndex labels = statics.labels;
            List<NodeState> nodes = statics.nodes;
            affinityNodes = labels.matchingLabels(c.selector());
            if (c.affinity().required() != null) affinityNodes.and(labels.matchingAny(c.affinity().required()));
            tolerated = statics.tolerated(c.tolerations());
            eligible = (BitSet) affinityNodes.clone();
            eligible.and(tolerated);
            if (!tolerates(c.tolerations(), UNSCHEDULABLE_TAINT)) eligible.andNot(statics.unschedulable);
            if (c.blocked() != null) eligible.clear();
            if (c.within() != null) eligible.and(c.within().nodes);
            if (c.affinity().preferred().isEmpty()) {
                points = null;
                tiers = new long[] {0};
            } else {
                points = new long[nodes.size()];
                for (Placement.WeightedNodeTerm t : c.affinity().preferred()) {
                    BitSet b = labels.matching(t.term());
                    for (int i = b.nextSetBit(0); i >= 0; i = b.nextSetBit(i + 1)) points[i] += t.weight();
                }
                TreeSet<Long> distinct = new TreeSet<>(Comparator.reverseOrder());
                for (int i = eligible.nextSetBit(0); i >= 0; i = eligible.nextSetBit(i + 1)) distinct.add(points[i]);
                tiers = distinct.stream().mapToLong(Long::longValue).toArray();
            }
        }

        long points(NodeState n) {
            return points == null ? 0 : points[n.index];
        }

        List<NodeState> list() {
            if (list == null) {
                list = new ArrayList<>();
                for (int i = eligible.nextSetBit(0); i >= 0; i = eligible.nextSetBit(i + 1)) list.add(statics.nodes.get(i));
            }
            return list;
        }

        private Map<String, Integer> staticCounts;

        /** How many nodes fail each static predicate (the first each fails); counted once per cycle. */
        Map<String, Integer> staticCounts() {
            if (staticCounts == null) {
                staticCounts = new HashMap<>();
                for (NodeState n : statics.nodes) {
                    String r = reason(n);
                    if (r != null) staticCounts.merge(r, 1, Integer::sum);
                }
            }
            return staticCounts;
        }

        /** Why {@code n} fails a static predicate, kube-scheduler's filters in their order; null when it passes. */
        String reason(NodeState n) {
            if (c.blocked() != null) return c.blocked();
            if (n.spec.unschedulable() && !tolerates(c.tolerations(), UNSCHEDULABLE_TAINT)) return UNSCHEDULABLE;
            if (!tolerated.get(n.index)) {
                for (Taint t : n.spec.taints()) {
                    if (blocks(t) && !tolerates(c.tolerations(), t)) {
                        return "node(s) had untolerated taint {" + t.key() + ": " + (t.value() == null ? "" : t.value()) + "}";
                    }
                }
            }
            if (!affinityNodes.get(n.index)) return NODE_AFFINITY;
            if (c.within() != null && !c.within().nodes.get(n.index)) return "node(s) outside domain " + c.within().name;
            return null;
        }
    }

    private record IndexKey(Constraints constraints, long tier, String dimension) {}

    /** How many fitting nodes weighted scoring compares (the fullest, or emptiest, in the primary dimension). */
    static final int WEIGHED_CANDIDATES = 16;

    private final List<NodeState> nodes;
    private final Scoring scoring;
    /** Per-resource weights of Volcano's binpack score (the policy's {@code scoring.weights}); empty for none. */
    private final Map<String, Integer> weights;
    private final Statics statics;
    private final Topology topology;
    private final Map<PodSpec, Demand> demands;
    private final Map<IndexKey, FreeIndex> indexes = new HashMap<>();
    /** The cycle's network domains (the packing order's tie-break), or null. */
    private NetworkDomains domains;
    /** While a gang tries one domain: the domain, and its pods (by identity); see {@link #confine}. */
    private NetworkDomains.Domain confinedTo;
    private Set<PodSpec> confinedPods;
    private final Map<NetworkDomains.Domain, Map<PodSpec, Demand>> confinedDemands = new HashMap<>();
    private final List<NodeState> releasing = new ArrayList<>();
    private final Map<Shape, Failed> failedAt = new HashMap<>();
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
    public record Stamp(long epoch, long version) {}

    /** A remembered failure: when, and the counts its non-monotone rules read then. */
    private record Failed(Stamp at, long counts) {}

    /** Where a transaction started, to {@link #undo} to. */
    public record Mark(long epoch, long version, long lastVersion) {}

    /**
     * Every node where a search for victims may have become easier, in order: room given back (an eviction, an
     * undone placement, released nominated room), or victims back or changed (an eviction or its undo touches the
     * victim's gang's nodes, where the gang rule may now take members differently). Never shortened.
     */
    private final List<NodeState> touched = new ArrayList<>();

    /** A fitter over nodes on which no pod's placement depends on other pods (tests of the bookkeeping). */
    public NodeFitter(List<NodeState> nodes, Scoring scoring) {
        this(nodes, scoring, null);
    }

    /** The same, with statics kept from an earlier fitter over these nodes (tests of what the statics keep). */
    public NodeFitter(List<NodeState> nodes, Scoring scoring, Statics kept) {
        this(nodes, scoring, Map.of(), List.of(), Map.of(), ns -> Map.of(ClusterSnapshot.NAMESPACE_NAME_LABEL, ns), kept);
    }

    /**
     * The fitter of a cycle: its nodes, the pods of its snapshot that state placement rules, and the pods bound on its
     * nodes; {@code weights} per resource for Volcano's binpack score, or empty.
     */
    public NodeFitter(WorkingCluster state, Scoring scoring, Map<String, Integer> weights) {
        this(state, scoring, weights, null);
    }

    /** The same, reusing what a fitter worked out from these very nodes in an earlier cycle ({@code kept}), if any. */
    public NodeFitter(WorkingCluster state, Scoring scoring, Map<String, Integer> weights, Statics kept) {
        this(state.nodes, scoring, weights, state.podsWithPlacement, state.boundPods, state.namespaceLabels, kept);
    }

    private NodeFitter(List<NodeState> nodes, Scoring scoring, Map<String, Integer> weights, Collection<PodSpec> pods,
                       Map<PodSpec, NodeState> bound,
                       java.util.function.Function<String, Map<String, String>> namespaceLabels, Statics kept) {
        this.nodes = nodes;
        this.scoring = scoring;
        this.weights = weights;
        this.statics = kept != null && kept.of(nodes) ? kept : new Statics(nodes);
        for (NodeState n : nodes) if (n.hasReleasing()) releasing.add(n);
        this.topology = new Topology(nodes, statics.labels, namespaceLabels, pods, bound);
        this.demands = new IdentityHashMap<>(); // grows with the pods that have rules (most have none)
    }

    /** Among equally free nodes, prefer those in fuller domains of {@code d} (call before the first query). */
    public void useDomains(NetworkDomains d) {
        this.domains = d;
    }

    /**
     * Until {@link #unconfine}, the pods of {@code tasks} see only the nodes of {@code domain}: every query about them
     * ({@link #best}, {@link #eligibleIndexes}, {@link #constraintsKey}, the victim search's) answers as if the domain were
     * part of their node affinity. A gang tries a domain this way, all-or-nothing, in a {@link GangTransaction}.
     * Remembered answers stay correct: the domain is part of the pods' constraints, so of every key.
     */
    public void confine(List<Task> tasks, NetworkDomains.Domain domain) {
        Set<PodSpec> pods = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Task t : tasks) pods.add(t.pod);
        confinedPods = pods;
        confinedTo = domain;
        last = null;
    }

    /** Ends {@link #confine}. */
    public void unconfine() {
        confinedPods = null;
        confinedTo = null;
        last = null;
    }

    /** The nodes that pass the pod's static predicates, ignoring any confinement (a copy). */
    public BitSet eligibleBits(PodSpec pod) {
        return (BitSet) staticClass(unconfinedDemand(pod).constraints).eligible.clone();
    }

    /** Call whenever capacity is given back (a discarded gang, an eviction), so remembered failures are retried. */
    public void capacityReleased(java.util.Collection<NodeState> where) {
        epoch = ++lastEpoch;
        changed();
        touched.addAll(where);
    }

    /** Searches on these nodes may have become easier (see {@link #touched}); capacity was not given back. */
    public void touched(java.util.Collection<NodeState> where) {
        touched.addAll(where);
    }

    /** A position in the log of touched nodes, to ask later what was touched since. */
    public int touchMark() {
        return touched.size();
    }

    /** The nodes touched since {@code mark}, without repeats, or null if there are more than {@code max}. */
    public java.util.Set<NodeState> touchedSince(int mark, int max) {
        java.util.Set<NodeState> out = new java.util.LinkedHashSet<>();
        for (int i = mark; i < touched.size(); i++) {
            if (out.add(touched.get(i)) && out.size() > max) return null;
        }
        return out;
    }

    /** Adds the nodes touched since {@code mark} to {@code into}; returns the position to continue from. */
    public int touchedInto(int mark, BitSet into) {
        for (int i = mark; i < touched.size(); i++) into.set(touched.get(i).index);
        return touched.size();
    }

    /** Call on every other change to node capacity, queue allocations or evictions (a placement, held room). */
    public void changed() {
        version = ++lastVersion;
    }

    public Stamp stamp() {
        return new Stamp(epoch, version);
    }

    /**
     * A failure seen at {@code s} still holds: no capacity was given back since, and its state was not undone (a
     * state inside an undone transaction may have had less room than now).
     */
    public boolean stillFails(Stamp s) {
        if (s.epoch() != epoch) return false;
        if (s.version() == version || undone.isEmpty()) return true;
        Long first = undone.floorKey(s.version()); // (floorEntry would copy the entry)
        return first == null || s.version() > undone.get(first);
    }

    public Mark mark() {
        return new Mark(epoch, version, lastVersion);
    }

    /**
     * The state is again exactly what it was at {@code m} (a transaction was undone step by step): what was
     * remembered before it holds again, and nothing seen inside it does. Names are never reissued.
     */
    public void undo(Mark m) {
        if (lastVersion > m.lastVersion()) undone.put(m.lastVersion() + 1, lastVersion);
        epoch = m.epoch();
        version = m.version();
    }

    /**
     * A key equal for pods that every node would answer alike: the same static constraints and, when rules that
     * depend on other pods apply, the same such rules, self-matches and existing anti-affinity terms.
     */
    public Object constraintsKey(PodSpec pod) {
        Demand d = demand(pod);
        return d.shape.dynamic == null ? d.constraints : List.of(d.constraints, d.shape.dynamic);
    }

    /**
     * {@link #constraintsKey} of a pod whose fit depends on no other pod, or null when it does ({@link #dependsOnPods}).
     * A pod with no placement rule, where no pod of the cycle has an anti-affinity term, is answered from its own
     * fields: nothing to work out or remember (the eviction steps ask it of the first pod of thousands of jobs).
     */
    public Object ownConstraintsKey(PodSpec pod) {
        if (confinedTo == null && pod.placement() == Placement.NONE && !topology.hasCarriers()) return constraints(pod);
        Demand d = demand(pod);
        return d.dependsOnPods() ? null : d.constraints;
    }

    /** Whether a pod of the cycle has a required anti-affinity term (one that may keep other pods out). */
    public boolean anyExistingAntiAffinity() {
        return topology.hasCarriers();
    }

    /** Whether the pod's placement depends on other pods (its own rules, or an existing pod's anti-affinity). */
    public boolean dependsOnPods(PodSpec pod) {
        return demand(pod).dependsOnPods();
    }

    /** Why the pod may not be placed anywhere at all (scheduling gates, a need Arbiter does not evaluate), or null. */
    public String blocked(PodSpec pod) {
        return demand(pod).constraints.blocked();
    }

    /** Whether the node passes the pod's static predicates (cordon, taints, nodeSelector, node affinity). */
    public boolean isEligible(PodSpec pod, NodeState node) {
        return staticClass(demand(pod).constraints).eligible.get(node.index);
    }

    /** The indexes of the nodes that pass the static predicates for this pod: the fitter's own set, not to be changed. */
    public BitSet eligibleIndexes(PodSpec pod) {
        return staticClass(demand(pod).constraints).eligible;
    }

    /** Nodes that pass the static predicates for this pod, in node order. */
    List<NodeState> eligibleNodes(PodSpec pod) {
        return staticClass(demand(pod).constraints).list();
    }

    /**
     * Whether {@code node} passes the pod's host ports and its rules that depend on other pods with {@code gone}
     * evicted (the victim search asks this; resources and static predicates are checked apart).
     */
    public boolean passesPodRules(PodSpec pod, NodeState node, Collection<Task> gone) {
        Demand d = demand(pod);
        return !d.dependsOnPods() || passes(d, node, gone);
    }

    /** {@code pod} now runs on {@code node} (placed, or its eviction undone): counts for other pods' rules. */
    public void podAdded(PodSpec pod, NodeState node) {
        topology.add(pod, node);
    }

    /** {@code pod} has left {@code node} (evicted, or its placement undone). */
    public void podRemoved(PodSpec pod, NodeState node) {
        topology.remove(pod, node);
    }

    /** The best node whose free capacity holds the pod and whose rules pass, or null. */
    public NodeState best(PodSpec pod) {
        Demand d = demand(pod);
        if (d.constraints.blocked() != null) return null;
        Failed failed = failedAt.get(d.shape);
        if (failed != null && stillFails(failed.at()) && failed.counts() == counts(d)) return null;
        NodeState found = search(pod, d);
        if (found == null) failedAt.put(d.shape, new Failed(stamp(), counts(d)));
        return found;
    }

    /**
     * A number that changes whenever a count the pod's required affinity or DoNotSchedule spread reads changes (0
     * without such rules): a failure remembered for it holds only while this is unchanged.
     */
    public long podRuleCounts(PodSpec pod) {
        return counts(demand(pod));
    }

    /** What the pod's non-monotone rules (required affinity, spread) read; 0 without such rules. */
    private static long counts(Demand d) {
        return d.rules == null || d.rules.monotone() ? 0 : d.rules.stamp();
    }

    private NodeState search(PodSpec pod, Demand d) {
        Resources req = pod.requests();
        String dim = primaryDimension(req);
        StaticClass sc = staticClass(d.constraints);
        boolean rules = d.dependsOnPods();
        Map<String, Long> firstOfSet = d.rules == null ? null : topology.firstOfSetRoom(d.rules, d.self, sc.list(), dim);
        if (firstOfSet != null || (d.rules != null && d.rules.hasPreferences())) return scored(req, dim, d, sc, firstOfSet);
        for (long tier : sc.tiers) {
            NodeState best = null;
            double bestScore = 0;
            int compared = 0;
            for (NodeState n : candidates(sc, tier, req, dim)) {
                if (n.freeMilli(dim) < req.milli(dim)) break;
                if (!req.fitsIn(n.free()) || (rules && !passes(d, n, List.of()))) continue;
                if (weights.isEmpty()) return n;
                double score = weightedScore(n, req);
                if (best == null || (scoring == Scoring.BINPACK ? score > bestScore : score < bestScore)) {
                    best = n;
                    bestScore = score;
                }
                if (++compared == WEIGHED_CANDIDATES) break;
            }
            if (best != null) return best;
        }
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

    /**
     * With preferred pod (anti-)affinity or ScheduleAnyway spread: every eligible node with room, the highest
     * preference points first, then the lowest spread penalty, then the packing order (which the walk follows).
     * {@code firstOfSet} (not null for the first pod of a set with required affinity to itself, see
     * {@link Topology#firstOfSetRoom}) ranks first: the domain with the most room for the set.
     */
    private NodeState scored(Resources req, String dim, Demand d, StaticClass sc, Map<String, Long> firstOfSet) {
        NodeState best = null;
        long bestRoom = 0, bestPoints = 0, bestPenalty = 0;
        for (NodeState n : candidates(sc, ALL_TIERS, req, dim)) {
            if (n.freeMilli(dim) < req.milli(dim)) break;
            if (!req.fitsIn(n.free()) || !passes(d, n, List.of())) continue;
            long room = firstOfSet == null ? 0 : firstOfSet.getOrDefault(topology.firstAffinityDomain(d.rules, n), 0L);
            long points = sc.points(n) + topology.preferencePoints(d.rules, n);
            long penalty = topology.spreadPenalty(d.rules, n);
            if (best == null || room > bestRoom || (room == bestRoom && (points > bestPoints
                    || (points == bestPoints && penalty < bestPenalty)))) {
                best = n;
                bestRoom = room;
                bestPoints = points;
                bestPenalty = penalty;
            }
        }
        return best;
    }

    private static final long ALL_TIERS = Long.MIN_VALUE;

    /** The nodes of a tier in packing order, from the first with enough of the primary dimension (binpack). */
    private Iterable<NodeState> candidates(StaticClass sc, long tier, Resources req, String dim) {
        FreeIndex index = index(sc, tier, dim);
        return scoring == Scoring.BINPACK ? index.atLeast(req.milli(dim)) : index;
    }

    /** Host ports, then spread, affinity, anti-affinity and existing pods' anti-affinity. */
    private boolean passes(Demand d, NodeState n, Collection<Task> gone) {
        return topology.portsViolation(d.rules, n, gone) == null
                && topology.podRulesViolation(d.rules, d.self, d.carriers, n, gone) == null;
    }

    /** The best node that will hold the pod once its terminating pods are gone (for pipelining), or null. */
    public NodeState bestOnceReleased(PodSpec pod) {
        Demand d = demand(pod);
        StaticClass sc = staticClass(d.constraints);
        Resources req = pod.requests();
        String dim = primaryDimension(req);
        NodeState best = null;
        long bestPoints = 0, bestPenalty = 0, bestFree = 0;
        for (NodeState n : releasing) {
            if (!sc.eligible.get(n.index) || !req.fitsIn(n.futureFree())) continue;
            if (d.dependsOnPods() && !passes(d, n, List.of())) continue;
            long points = sc.points(n) + (d.rules == null ? 0 : topology.preferencePoints(d.rules, n));
            long penalty = d.rules == null ? 0 : topology.spreadPenalty(d.rules, n);
            long free = n.futureFree().milli(dim);
            boolean better = best == null || points > bestPoints || (points == bestPoints && (penalty < bestPenalty
                    || (penalty == bestPenalty && (scoring == Scoring.BINPACK ? free < bestFree : free > bestFree))));
            if (better) {
                best = n;
                bestPoints = points;
                bestPenalty = penalty;
                bestFree = free;
            }
        }
        return best;
    }

    private FreeIndex index(StaticClass sc, long tier, String dim) {
        IndexKey key = new IndexKey(sc.c, tier, dim);
        FreeIndex set = indexes.get(key);
        if (set != null) return set;
        // Among nodes equally free, those in fuller network domains first (fixed for the cycle).
        int[] rank = domains == null ? null : domains.fullerFirst(dim);
        // Without that cycle's own tie-break, the order depends on the nodes' free capacity alone: an index kept with
        // the nodes stays right, as every change of free capacity re-files a node (NodeState#change).
        boolean keep = rank == null && sc.c.within() == null;
        set = keep ? statics.keptIndex(key, scoring) : null;
        if (set == null) {
            List<NodeState> members = sc.list();
            if (tier != ALL_TIERS && sc.tiers.length > 1) {
                members = new ArrayList<>();
                for (NodeState n : sc.list()) if (sc.points(n) == tier) members.add(n);
            }
            set = new FreeIndex(dim, scoring == Scoring.SPREAD, members, rank, statics.nodes.size());
            for (NodeState n : members) {
                if (keep) n.indexedInKept(set);
                else n.indexedIn(set);
            }
            if (keep) statics.keepIndex(key, scoring, set);
        }
        indexes.put(key, set);
        return set;
    }

    /**
     * The dimension nodes are sorted by for this request: an accelerator (a name with "gpu", "npu", "tpu" or
     * "neuron") if requested, else another extended resource (a name with "/"), else cpu, else memory, else pods.
     */
    public static String primaryDimension(Resources req) {
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
     * Why no node holds the pod, in kube-scheduler's words, each node counted under the first filter it fails (cordon,
     * taints, node affinity/selector, host ports, resources, topology spread, pod affinity, pod anti-affinity,
     * existing pods' anti-affinity), the counts sorted as kube-scheduler sorts them:
     * {@code 0/12 nodes are available: 4 node(s) didn't match Pod's node affinity/selector, 8 Insufficient nvidia.com/gpu}.
     * A pod that may not be placed at all gets the reason why instead.
     */
    public String whyNoFit(PodSpec pod) {
        Demand d = demand(pod);
        if (d.constraints.blocked() != null) return d.constraints.blocked();
        return why.computeIfAbsent(d.shape, k -> countReasons(pod, d));
    }

    private String countReasons(PodSpec pod, Demand d) {
        StaticClass sc = staticClass(d.constraints);
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
        List<String> parts = new ArrayList<>();
        counts.forEach((reason, count) -> parts.add(count + " " + reason));
        java.util.Collections.sort(parts);
        return "0/" + nodes.size() + " nodes are available" + (parts.isEmpty() ? "" : ": " + String.join(", ", parts));
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

    private record BaseKey(Resources request, Constraints constraints) {}

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

    /**
     * Which of a request's dimensions each eligible node of a static class lacks. Kept across cycles with the statics
     * (the pod shapes that fit nowhere are mostly the same from cycle to cycle), and brought up to date, when next
     * asked, on the nodes whose free capacity changed since ({@link NodeState#changes}): counting every eligible node
     * afresh for every such shape, every cycle, was a tenth of a steady cycle at 10k nodes.
     */
    static final class Shortfalls {
        /** A mask has a bit per dimension of the request. */
        static final int MOST_DIMENSIONS = 31;
        private final Resources req;
        /** The eligible nodes' indexes, ascending. */
        private final int[] nodes;
        /** Per eligible node: its change count when its mask was worked out, and the mask (bit d: lacks dimension d). */
        private final int[] seen, mask;
        /** Per dimension of the request: how many eligible nodes lack it. */
        final int[] lacking;

        Shortfalls(Resources req, BitSet eligible, List<NodeState> all) {
            this.req = req;
            this.nodes = eligible.stream().toArray();
            this.seen = new int[nodes.length];
            this.mask = new int[nodes.length];
            this.lacking = new int[req.size()];
            for (int k = 0; k < nodes.length; k++) {
                NodeState n = all.get(nodes[k]);
                seen[k] = n.changes();
                count(mask[k] = maskOf(n), 1);
            }
        }

        /** Works the masks out again on the nodes that changed since they were last worked out. */
        Shortfalls refresh(List<NodeState> all) {
            for (int k = 0; k < nodes.length; k++) {
                NodeState n = all.get(nodes[k]);
                if (n.changes() == seen[k]) continue;
                seen[k] = n.changes();
                int m = maskOf(n);
                if (m == mask[k]) continue;
                count(mask[k], -1);
                count(mask[k] = m, 1);
            }
            return this;
        }

        private int maskOf(NodeState n) {
            int m = 0;
            Resources free = n.free();
            for (int d = 0; d < req.size(); d++) {
                long want = req.milliAt(d);
                if (want > 0 && want > free.milli(req.name(d))) m |= 1 << d;
            }
            return m;
        }

        private void count(int m, int by) {
            for (; m != 0; m &= m - 1) lacking[Integer.numberOfTrailingZeros(m)] += by;
        }

        /** The eligible nodes that lack nothing, ascending. */
        int[] withRoom() {
            int rooms = 0;
            for (int m : mask) if (m == 0) rooms++;
            int[] out = new int[rooms];
            rooms = 0;
            for (int k = 0; k < nodes.length; k++) if (mask[k] == 0) out[rooms++] = nodes[k];
            return out;
        }
    }

    // ---- static classes ---------------------------------------------------------------------------------------

    /** Most pods select nothing and tolerate nothing: they share one key, compared by identity. */
    private static final Constraints NONE = new Constraints(Map.of(), List.of(), Placement.NodeAffinity.NONE, null);

    private Demand demand(PodSpec pod) {
        if (confinedTo == null || !confinedPods.contains(pod)) return unconfinedDemand(pod);
        NetworkDomains.Domain d = confinedTo;
        if (last != null && last.pod == pod && last.demand.constraints.within() == d) return last.demand;
        Demand base = unconfinedDemand(pod);
        Demand confined = confinedDemands.computeIfAbsent(d, k -> new IdentityHashMap<>()).computeIfAbsent(pod,
                p -> new Demand(p, base.constraints.confinedTo(d), base.rules, base.self, base.carriers));
        last = new Last(pod, confined);
        return confined;
    }

    private Demand unconfinedDemand(PodSpec pod) {
        if (last != null && last.pod == pod && last.demand.constraints.within() == null) return last.demand;
        if (pod.placement() == Placement.NONE && !topology.hasCarriers()) {
            // Nothing to remember: no rule of its own, and no pod's anti-affinity that could match it. Such a demand is
            // its request, nodeSelector and tolerations: the pods of a job share those, and are asked about one after
            // another, so the previous pod's demand serves when they are the same.
            Demand plain = last != null && last.demand.constraints.within() == null && !last.demand.dependsOnPods()
                    && askAlike(pod, last.pod) ? last.demand : new Demand(pod, constraints(pod), null, 0, List.of());
            last = new Last(pod, plain);
            return plain;
        }
        Demand d = demands.get(pod);
        if (d != null) {
            last = new Last(pod, d);
            return d;
        }
        Constraints c;
        Topology.Rules rules = null;
        // The pods of a job share their selector, tolerations and placement objects and are asked about one after
        // another: the previous pod's constraints and rules serve without hashing them again.
        boolean sameAsLast = last != null && last.demand.constraints.within() == null
                && pod.nodeSelector() == last.pod.nodeSelector()
                && pod.tolerations() == last.pod.tolerations() && pod.placement() == last.pod.placement()
                && pod.namespace().equals(last.pod.namespace());
        if (sameAsLast) {
            c = last.demand.constraints;
            rules = last.demand.rules;
        } else {
            c = constraints(pod);
        }
        long self = 0;
        List<Topology.CarrierTerm> carriers = List.of();
        if (c.blocked() == null) {
            if (pod.placement().dependsOnPods()) {
                if (rules == null) {
                    StaticClass sc = staticClass(c);
                    rules = topology.rules(pod, c, sc.affinityNodes, sc.tolerated);
                }
                self = topology.selfMatch(rules, pod);
            }
            carriers = topology.carriersMatching(pod);
        }
        d = new Demand(pod, c, rules, self, carriers);
        demands.put(pod, d);
        last = new Last(pod, d);
        return d;
    }

    /**
     * Whether two pods ask the same of a node: neither states a placement rule, and they have the same request, node
     * selector and tolerations. While no pod of the cycle has an anti-affinity term, the fitter answers such pods
     * alike in the same state (one demand serves both, {@link #unconfinedDemand}; see also {@link Job#pendingAlike}).
     */
    public static boolean askAlike(PodSpec a, PodSpec b) {
        return a.placement() == Placement.NONE && b.placement() == Placement.NONE
                && a.nodeSelector().equals(b.nodeSelector()) && a.tolerations().equals(b.tolerations())
                && a.requests().equals(b.requests());
    }

    private record Last(PodSpec pod, Demand demand) {}

    private Last last;

    private static Constraints constraints(PodSpec pod) {
        Placement pl = pod.placement();
        String blocked = blockedReason(pod);
        if (pod.nodeSelector().isEmpty() && pod.tolerations().isEmpty() && pl.nodeAffinity().isNone() && blocked == null) {
            return NONE;
        }
        return new Constraints(pod.nodeSelector(), pod.tolerations(), pl.nodeAffinity(), blocked);
    }

    /** Why the pod may not be placed at all: its scheduling gates, or what it needs that Arbiter does not evaluate. */
    private static String blockedReason(PodSpec pod) {
        Placement pl = pod.placement();
        if (!pl.schedulingGates().isEmpty()) {
            return "pod " + pod.key() + " is waiting for its scheduling gates to be removed: " + String.join(", ", pl.schedulingGates());
        }
        if (!pl.notEvaluated().isEmpty()) {
            return "pod " + pod.key() + " needs " + String.join(", ", pl.notEvaluated()) + ", which Arbiter does not"
                    + " evaluate: it stays pending rather than be bound blind";
        }
        return null;
    }

    private StaticClass staticClass(Constraints c) {
        return statics.staticClass(c);
    }

    /** A taint that keeps pods out (NoSchedule, NoExecute, or an unknown effect); PreferNoSchedule only scores. */
    private static boolean blocks(Taint t) {
        return !"PreferNoSchedule".equals(t.effect());
    }

    private static boolean tolerates(List<Toleration> tolerations, Taint t) {
        for (Toleration tol : tolerations) if (tol.tolerates(t)) return true;
        return false;
    }
}
