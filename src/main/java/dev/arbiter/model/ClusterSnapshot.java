package dev.arbiter.model;

import java.util.List;

/**
 * Everything one scheduling cycle may read, frozen. The simulator and the live informers build one per cycle;
 * nothing downstream mutates it. Pods include bound pods of every scheduler (they consume capacity) and the
 * pending pods this scheduler answers. {@code now} is the snapshot's clock in seconds (epoch seconds live, simulated
 * seconds in the simulator), against which pods' {@code startedAt} is measured. {@code nominations} maps pending pods
 * ({@code ns/name}) to the node the previous cycle made room on for them ({@code status.nominatedNodeName}).
 * {@code namespaceLabels} holds the labels of the Namespace objects known (pod affinity terms select namespaces by
 * label); a namespace without an object has only the label every namespace carries, {@code kubernetes.io/metadata.name}.
 * {@code hyperNodes} are Volcano's HyperNode objects (network domains; see {@link HyperNodeSpec}).
 * {@code refusedVictims} maps running pods ({@code ns/name}) whose eviction the API server refused to the refusal:
 * the victim search passes over them until it ends (see {@link EvictionRefusal}). {@code usage} maps queues to their
 * decayed past usage as last stored ({@link QueueUsage}; read only when the policy sets {@code shares.usageHalfLife}).
 */
public record ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                              List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, long now,
                              java.util.Map<String, String> nominations,
                              java.util.Map<String, java.util.Map<String, String>> namespaceLabels,
                              List<HyperNodeSpec> hyperNodes,
                              java.util.Map<String, EvictionRefusal> refusedVictims,
                              java.util.Map<String, QueueUsage> usage) {
    /** A snapshot without stored queue usage. */
    public ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                           List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, long now,
                           java.util.Map<String, String> nominations,
                           java.util.Map<String, java.util.Map<String, String>> namespaceLabels,
                           List<HyperNodeSpec> hyperNodes, java.util.Map<String, EvictionRefusal> refusedVictims) {
        this(nodes, pods, podGroups, queues, priorityClasses, now, nominations, namespaceLabels, hyperNodes,
                refusedVictims, java.util.Map.of());
    }

    /** A snapshot without refused victims. */
    public ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                           List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, long now,
                           java.util.Map<String, String> nominations,
                           java.util.Map<String, java.util.Map<String, String>> namespaceLabels,
                           List<HyperNodeSpec> hyperNodes) {
        this(nodes, pods, podGroups, queues, priorityClasses, now, nominations, namespaceLabels, hyperNodes,
                java.util.Map.of());
    }

    /** A snapshot without HyperNodes. */
    public ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                           List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, long now,
                           java.util.Map<String, String> nominations,
                           java.util.Map<String, java.util.Map<String, String>> namespaceLabels) {
        this(nodes, pods, podGroups, queues, priorityClasses, now, nominations, namespaceLabels, List.of());
    }

    /** This snapshot with these HyperNodes. */
    public ClusterSnapshot withHyperNodes(List<HyperNodeSpec> h) {
        return new ClusterSnapshot(nodes, pods, podGroups, queues, priorityClasses, now, nominations, namespaceLabels, h,
                refusedVictims, usage);
    }

    /** This snapshot with these refused victims (running pods the victim search passes over). */
    public ClusterSnapshot withRefusedVictims(java.util.Map<String, EvictionRefusal> r) {
        return new ClusterSnapshot(nodes, pods, podGroups, queues, priorityClasses, now, nominations, namespaceLabels,
                hyperNodes, r, usage);
    }

    /** This snapshot with this stored queue usage ({@link QueueUsage}, by queue name). */
    public ClusterSnapshot withUsage(java.util.Map<String, QueueUsage> u) {
        return new ClusterSnapshot(nodes, pods, podGroups, queues, priorityClasses, now, nominations, namespaceLabels,
                hyperNodes, refusedVictims, u);
    }

    public ClusterSnapshot {
        hyperNodes = List.copyOf(hyperNodes);
        refusedVictims = java.util.Map.copyOf(refusedVictims);
        usage = java.util.Map.copyOf(usage);
        nominations = java.util.Map.copyOf(nominations);
        namespaceLabels = java.util.Map.copyOf(namespaceLabels);
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        priorityClasses = List.copyOf(priorityClasses);
    }

    /** A snapshot whose namespaces carry only their name label. */
    public ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                           List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, long now,
                           java.util.Map<String, String> nominations) {
        this(nodes, pods, podGroups, queues, priorityClasses, now, nominations, java.util.Map.of());
    }

    /** The labels of {@code namespace}: its object's, or only {@code kubernetes.io/metadata.name} without one. */
    public java.util.Map<String, String> labelsOfNamespace(String namespace) {
        java.util.Map<String, String> l = namespaceLabels.get(namespace);
        return l != null ? l : java.util.Map.of(NAMESPACE_NAME_LABEL, namespace);
    }

    /** The label the API server puts on every namespace, holding its name. */
    public static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    /** A snapshot at time 0 (pods' running times unknown unless they carry a start). */
    public ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                           List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses) {
        this(nodes, pods, podGroups, queues, priorityClasses, 0, java.util.Map.of());
    }

    /** A snapshot without nominations. */
    public ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                           List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, long now) {
        this(nodes, pods, podGroups, queues, priorityClasses, now, java.util.Map.of());
    }

    /**
     * True when {@code other} shows the same cluster, whatever its time: every list and map is the same object (a
     * cache hands out the same immutable list while a kind is unchanged) or an equal one.
     */
    public boolean sameClusterAs(ClusterSnapshot other) {
        return same(nodes, other.nodes) && same(pods, other.pods) && same(podGroups, other.podGroups)
                && same(queues, other.queues) && same(priorityClasses, other.priorityClasses)
                && same(hyperNodes, other.hyperNodes) && same(nominations, other.nominations)
                && same(namespaceLabels, other.namespaceLabels) && same(refusedVictims, other.refusedVictims)
                && same(usage, other.usage);
    }

    private static boolean same(Object a, Object b) {
        return a == b || a.equals(b);
    }
}
