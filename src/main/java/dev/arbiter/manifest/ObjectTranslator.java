package dev.arbiter.manifest;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Translates one Kubernetes object, given as the plain map its JSON decodes to (as an informer delivers it after
 * conversion), into the scheduler's model: the same readers, defaults and quantity rules as {@link ManifestLoader},
 * so a live pod requests exactly what the same pod in a manifest file requests.
 *
 * <p>Differences from the loader, because live objects are not a simulation: every record has arrival cycle 0
 * (the simulator's arrival annotation is ignored), the caller supplies the creation order, and nothing is checked for
 * duplicates. Invalid objects throw {@link ManifestException} whose message starts with {@code sourceName} (e.g.
 * {@code "api: Pod team/p1: spec.containers[0].resources.requests.cpu: ..."}), so the caller can log and skip them.
 *
 * <p>Thread-safe: each call builds its own view of the map.
 */
public final class ObjectTranslator {
    private final String sourceName;

    /** {@code sourceName} names where objects came from in error messages, e.g. {@code "api"}. */
    public ObjectTranslator(String sourceName) {
        this.sourceName = sourceName;
    }

    /** A {@code v1} Pod; pods with a {@code metadata.deletionTimestamp} come back {@code terminating}. */
    public PodSpec pod(Map<String, Object> object, long creationOrder) {
        Field pod = root(object, "Pod", namespacedId(object));
        PodDraft draft = PodReader.read(pod, PodReader.DEFAULT_SCHEDULER);
        draft.arrivalCycle = 0;
        return draft.toSpec(creationOrder);
    }

    /** A {@code v1} Node (allocatable, labels, taints, cordon). */
    public NodeSpec node(Map<String, Object> object) {
        Field node = root(object, "Node", name(object));
        NodeSpec n = NodeReader.read(node, Metadata.read(node));
        return new NodeSpec(n.name(), n.labels(), n.taints(), n.unschedulable(), n.allocatable(), 0);
    }

    /** A {@code scheduling.volcano.sh/v1beta1} Queue, with {@code status.state} as its state; notices are dropped. */
    public QueueSpec queue(Map<String, Object> object) {
        return queue(object, line -> { });
    }

    /**
     * A {@code scheduling.volcano.sh/v1beta1} Queue, with {@code status.state} as its state; a legal but doubtful value
     * (a lending limit that does not read) gives {@code notices} one line and is read as unset.
     */
    public QueueSpec queue(Map<String, Object> object, java.util.function.Consumer<String> notices) {
        Field queue = root(object, "Queue", name(object));
        return QueueReader.read(queue, Metadata.read(queue), notices).withArrivalCycle(0);
    }

    /** A {@code scheduling.volcano.sh/v1beta1} PodGroup, with {@code status.phase} as its phase. */
    public PodGroupSpec podGroup(Map<String, Object> object, long creationOrder) {
        Field podGroup = root(object, "PodGroup", namespacedId(object));
        PodGroupSpec g = PodGroupReader.read(podGroup, Metadata.read(podGroup), creationOrder);
        return g.withArrival(0, g.creationOrder());
    }

    /** A {@code scheduling.k8s.io/v1beta1} PodGroup of the upstream Workload API ({@link WorkloadPodGroupReader}). */
    public PodGroupSpec workloadPodGroup(Map<String, Object> object, long creationOrder) {
        Field podGroup = root(object, "PodGroup", namespacedId(object));
        PodGroupSpec g = WorkloadPodGroupReader.read(podGroup, Metadata.read(podGroup), creationOrder);
        return g.withArrival(0, g.creationOrder());
    }

    /**
     * A {@code v1} Namespace's labels (with {@code kubernetes.io/metadata.name}, which the API server always sets): pod
     * affinity terms select namespaces by them.
     */
    public Map<String, String> namespaceLabels(Map<String, Object> object) {
        Field namespace = root(object, "Namespace", name(object));
        Map<String, String> labels = new java.util.TreeMap<>(Metadata.read(namespace).labels());
        labels.put(dev.arbiter.model.ClusterSnapshot.NAMESPACE_NAME_LABEL, name(object));
        return Map.copyOf(labels);
    }

    /** A {@code topology.volcano.sh/v1alpha1} HyperNode. */
    public dev.arbiter.model.HyperNodeSpec hyperNode(Map<String, Object> object) {
        Field hyperNode = root(object, "HyperNode", name(object));
        return HyperNodeReader.read(hyperNode, Metadata.read(hyperNode));
    }

    /** A {@code scheduling.k8s.io/v1} PriorityClass. */
    public PriorityClassSpec priorityClass(Map<String, Object> object) {
        Field priorityClass = root(object, "PriorityClass", name(object));
        return PriorityClassReader.read(priorityClass, Metadata.read(priorityClass));
    }

    /**
     * The map as a YAML node tree, so the manifest readers (which walk SnakeYAML nodes) read it unchanged. Nodes
     * built this way carry no line numbers; messages show line 0.
     */
    private Field root(Map<String, Object> object, String kind, String id) {
        Node node = new Yaml(new DumperOptions()).represent(object);
        return Field.root(node, Origin.of(sourceName, 0).ofKind(kind).named(id));
    }

    private static String name(Map<String, Object> object) {
        Object metadata = object.get("metadata");
        Object name = metadata instanceof Map<?, ?> m ? m.get("name") : null;
        return name == null ? "?" : name.toString();
    }

    private static String namespacedId(Map<String, Object> object) {
        Object metadata = object.get("metadata");
        Object ns = metadata instanceof Map<?, ?> m ? m.get("namespace") : null;
        return (ns == null ? Metadata.DEFAULT_NAMESPACE : ns) + "/" + name(object);
    }
}
