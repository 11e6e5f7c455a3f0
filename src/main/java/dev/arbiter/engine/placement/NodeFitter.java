package dev.arbiter.engine.placement;

import dev.arbiter.decision.Refusal;

import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * (the weights of the terms it matches; where some eligible node has {@code PreferNoSchedule} taints the pod does not
 * tolerate, kube-scheduler's weighted sum of its NodeAffinity and TaintToleration scores instead, so the node with
 * fewer such taints is preferred: {@link StaticClass#points}), plus preferred pod affinity (weight × matching pods in
 * its domain), less preferred pod anti-affinity (likewise); then, for ScheduleAnyway spread constraints, the node whose domains hold
 * fewer matching pods. Among equals, {@code binpack} (default) takes the node with the <em>least</em> free primary
 * dimension that still fits — filling GPU nodes one by one and keeping whole nodes free for large gangs; {@code spread}
 * takes the node with the <em>most</em>. Ties go to the earlier node. Preferred node affinity alone costs nothing extra
 * (the eligible nodes are split into tiers of equal static preference, each with its own sorted index); preferred pod
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
 * preferences compares the first {@value NodeScoring#WEIGHED_CANDIDATES} nodes that fit in packing order (within the highest
 * preferred-node-affinity tier that has one) by {@code sum(weight × (used + request) / allocatable) / sum(weight)},
 * highest first for binpack, lowest for spread, and the best wins.
 *
 * <p>The parts: what a pod asks ({@link Demand}, worked out once per pod by {@link PodDemands}); the filters on a node
 * alone ({@link StaticClass}, over the {@link NodeStatics} kept with the nodes) and on other pods ({@link Topology});
 * the search and its scores ({@link NodeScoring}); and why nothing fits ({@link NoFitReasons}, with
 * {@link Shortfalls}). This class composes them, and names the states that remembered failures were seen in.
 */
public final class NodeFitter {
    public enum Scoring { BINPACK, SPREAD }

    /**
     * What the fitter works out from the nodes alone ({@link NodeStatics}), kept across cycles with the nodes by a
     * kept working copy and handed to each cycle's fitter.
     */
    public static final class Statics extends NodeStatics {
        public Statics(List<NodeState> nodes) {
            super(nodes);
        }
    }

    private final Statics statics;
    private final Topology topology;
    private final PodDemands demands;
    private final NodeScoring search;
    private final NoFitReasons reasons;
    private final Map<Demand.Shape, Failed> failedAt = new HashMap<>();
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
        this.statics = kept != null && kept.of(nodes) ? kept : new Statics(nodes);
        this.topology = new Topology(nodes, statics.labels, namespaceLabels, pods, bound);
        this.demands = new PodDemands(topology, statics);
        this.search = new NodeScoring(nodes, scoring, weights, statics, topology);
        this.reasons = new NoFitReasons(nodes, statics, topology);
    }

    /** Among equally free nodes, prefer those in fuller domains of {@code d} (call before the first query). */
    public void useDomains(NetworkDomains d) {
        search.useDomains(d);
    }

    /**
     * Until {@link #unconfine}, the pods of {@code tasks} see only the nodes of {@code domain}: every query about them
     * ({@link #best}, {@link #eligibleIndexes}, {@link #constraintsKey}, the victim search's) answers as if the domain were
     * part of their node affinity. A gang tries a domain this way, all-or-nothing, in a {@link GangTransaction}.
     * Remembered answers stay correct: the domain is part of the pods' constraints, so of every key.
     */
    public void confine(List<Task> tasks, NetworkDomains.Domain domain) {
        demands.confine(tasks, domain);
    }

    /** Ends {@link #confine}. */
    public void unconfine() {
        demands.unconfine();
    }

    /**
     * For the rest of the cycle, each pod sees only the nodes {@code restriction} gives it (null: every node), on top
     * of its own constraints and any {@link #confine}ment; every query about it answers accordingly. The cycle keeps
     * other work off nodes reserved for a job this way. {@code restriction} must give one object per set of nodes.
     */
    public void restrict(java.util.function.Function<PodSpec, NetworkDomains.Domain> restriction) {
        demands.restrict(restriction);
        changed();
    }

    /** The nodes that pass the pod's static predicates, ignoring any confinement but not its restriction (a copy). */
    public BitSet eligibleBits(PodSpec pod) {
        BitSet out = (BitSet) statics.staticClass(demands.unconfined(pod).constraints).eligible.clone();
        NetworkDomains.Domain r = demands.restrictionOf(pod);
        if (r != null) out.and(r.nodes);
        return out;
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
        Demand d = demands.of(pod);
        return d.shape.dynamic == null ? d.constraints : List.of(d.constraints, d.shape.dynamic);
    }

    /**
     * {@link #constraintsKey} of a pod whose fit depends on no other pod, or null when it does ({@link #dependsOnPods}).
     * A pod with no placement rule, where no pod of the cycle has an anti-affinity term, is answered from its own
     * fields: nothing to work out or remember (the eviction steps ask it of the first pod of thousands of jobs).
     */
    Object ownConstraintsKey(PodSpec pod) {
        if (!demands.confining() && pod.placement() == Placement.NONE && !topology.hasCarriers()) {
            return Constraints.of(pod);
        }
        Demand d = demands.of(pod);
        return d.dependsOnPods() ? null : d.constraints;
    }

    /** Whether a pod of the cycle has a required anti-affinity term (one that may keep other pods out). */
    public boolean anyExistingAntiAffinity() {
        return topology.hasCarriers();
    }

    /** Whether the pod's placement depends on other pods (its own rules, or an existing pod's anti-affinity). */
    public boolean dependsOnPods(PodSpec pod) {
        return demands.of(pod).dependsOnPods();
    }

    /** Why the pod may not be placed anywhere at all (scheduling gates, a need Arbiter does not evaluate), or null. */
    public Refusal blocked(PodSpec pod) {
        return demands.of(pod).constraints.blocked();
    }

    /** Whether the node passes the pod's static predicates (cordon, taints, nodeSelector, node affinity). */
    public boolean isEligible(PodSpec pod, NodeState node) {
        return statics.staticClass(demands.of(pod).constraints).eligible.get(node.index);
    }

    /** The indexes of the nodes that pass the static predicates for this pod: the fitter's own set, not to be changed. */
    public BitSet eligibleIndexes(PodSpec pod) {
        return statics.staticClass(demands.of(pod).constraints).eligible;
    }

    /** Nodes that pass the static predicates for this pod, in node order. */
    List<NodeState> eligibleNodes(PodSpec pod) {
        return statics.staticClass(demands.of(pod).constraints).list();
    }

    /**
     * Whether {@code node} passes the pod's host ports and its rules that depend on other pods with {@code gone}
     * evicted (the victim search asks this; resources and static predicates are checked apart).
     */
    public boolean passesPodRules(PodSpec pod, NodeState node, Collection<Task> gone) {
        Demand d = demands.of(pod);
        return !d.dependsOnPods() || search.passes(d, node, gone);
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
        Demand d = demands.of(pod);
        if (d.constraints.blocked() != null) return null;
        Failed failed = failedAt.get(d.shape);
        if (failed != null && stillFails(failed.at()) && failed.counts() == counts(d)) return null;
        NodeState found = search.search(pod, d);
        if (found == null) failedAt.put(d.shape, new Failed(stamp(), counts(d)));
        return found;
    }

    /**
     * A number that changes whenever a count the pod's required affinity or DoNotSchedule spread reads changes (0
     * without such rules): a failure remembered for it holds only while this is unchanged.
     */
    public long podRuleCounts(PodSpec pod) {
        return counts(demands.of(pod));
    }

    /** What the pod's non-monotone rules (required affinity, spread) read; 0 without such rules. */
    private static long counts(Demand d) {
        return d.rules == null || d.rules.monotone() ? 0 : d.rules.stamp();
    }

    /** The best node that will hold the pod once its terminating pods are gone (for pipelining), or null. */
    public NodeState bestOnceReleased(PodSpec pod) {
        return search.bestOnceReleased(pod, demands.of(pod));
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
    public Refusal whyNoFit(PodSpec pod) {
        Demand d = demands.of(pod);
        if (d.constraints.blocked() != null) return d.constraints.blocked();
        return reasons.of(pod, d);
    }
}
