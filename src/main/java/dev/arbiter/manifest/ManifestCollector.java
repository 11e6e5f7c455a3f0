package dev.arbiter.manifest;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Accumulates the objects read so far, in load order. Every object first {@linkplain #claim claims} its identity
 * (kind + namespace + name), which rejects duplicates and hands out the next creation order.
 */
final class ManifestCollector {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private final List<PodSpec> pods = new ArrayList<>();
    private final List<PodGroupSpec> podGroups = new ArrayList<>();
    private final List<QueueSpec> queues = new ArrayList<>();
    private final List<PriorityClassSpec> priorityClasses = new ArrayList<>();
    private final List<String> notices = new ArrayList<>();
    private final List<dev.arbiter.model.HyperNodeSpec> hyperNodes = new ArrayList<>();
    /** The labels of each Namespace object, with {@code kubernetes.io/metadata.name} as the API server sets it. */
    private final Map<String, Map<String, String>> namespaceLabels = new java.util.TreeMap<>();
    private final Map<String, String> firstSeenAt = new HashMap<>();
    private long nextCreationOrder;
    /** Extended resource → how many pods or templates request it without a limit, and where the first does. */
    private final Map<String, Integer> missingLimitCount = new java.util.TreeMap<>();
    private final Map<String, String> missingLimitFirst = new HashMap<>();
    /** The PriorityClass that is the global default, and where it was read; null until one is. */
    private String globalDefault;
    private String globalDefaultAt;

    /**
     * Registers {@code kind id} (e.g. {@code Pod team/p1}) as read from {@code origin} and returns its creation order.
     * Throws "duplicate Pod team/p1 (first at a.yaml:3)" when the same identity was registered before.
     */
    long claim(String kind, String id, Origin origin) {
        String identity = kind + " " + id;
        String first = firstSeenAt.putIfAbsent(identity, origin.location());
        if (first == null && !origin.subject().equals(identity) && kind.equals("PodGroup")) {
            expandedFrom.put(identity, origin.subject());
        }
        if (first != null) {
            String about = origin.subject().equals(identity) ? "" : origin.subject() + ": ";
            throw new ManifestException(origin.location() + ": " + about + "duplicate " + identity
                    + " (first at " + first + ")");
        }
        return nextCreationOrder++;
    }

    void add(NodeSpec node) {
        nodes.add(node);
    }

    /** Every node's allocatable so far, per resource, summed exactly. */
    private final Map<String, Long> clusterTotal = new java.util.TreeMap<>();

    /**
     * Adds a node's allocatable to the cluster's total; returns the resource whose total would no longer fit a
     * {@code long} (the node's quantity is absurd), or null.
     */
    String addToClusterTotal(dev.arbiter.model.Resources allocatable) {
        for (int i = 0; i < allocatable.size(); i++) {
            long before = clusterTotal.getOrDefault(allocatable.name(i), 0L);
            try {
                clusterTotal.put(allocatable.name(i), Math.addExact(before, allocatable.milliAt(i)));
            } catch (ArithmeticException overflow) {
                return allocatable.name(i);
            }
        }
        return null;
    }

    void add(PodSpec pod) {
        pods.add(pod);
    }

    void add(PodGroupSpec podGroup) {
        podGroups.add(podGroup);
    }

    void add(QueueSpec queue) {
        queues.add(queue);
    }

    private final Map<String, dev.arbiter.model.QueueUsage> queueUsage = new java.util.TreeMap<>();

    /** A Queue's stored past usage ({@link dev.arbiter.model.QueueUsage#ANNOTATION}). */
    void addUsage(String queue, dev.arbiter.model.QueueUsage usage) {
        queueUsage.put(queue, usage);
    }

    void add(PriorityClassSpec priorityClass) {
        priorityClasses.add(priorityClass);
    }

    void add(dev.arbiter.model.HyperNodeSpec hyperNode) {
        hyperNodes.add(hyperNode);
    }

    void addNamespace(String name, Map<String, String> labels) {
        Map<String, String> l = new java.util.TreeMap<>(labels);
        l.put(dev.arbiter.model.ClusterSnapshot.NAMESPACE_NAME_LABEL, name);
        namespaceLabels.put(name, l);
    }

    /**
     * Where a field naming another object was read, by "Kind ns/name which": its file (the one String of that file),
     * line and path (interned: a few paths serve every pod), so a folder of 100,000 pods keeps no string per pod but
     * the key.
     */
    private final Map<String, ReadAt> references = new HashMap<>();

    private record ReadAt(String source, int line, String path) {}

    /**
     * Records where {@code object} ("Pod ns/p", "PodGroup ns/g") names another object ({@code which}: "group" or
     * "queue"), so a notice that the named object does not exist points at that line.
     */
    void referenceAt(String object, String which, Field field) {
        references.put(object + " " + which, new ReadAt(field.origin().source(), field.line(), field.path().intern()));
    }

    /** What each Pod and PodGroup a workload was expanded into came from, e.g. "Job ml/vj", by "Kind ns/name". */
    private final Map<String, String> expandedFrom = new HashMap<>();

    /**
     * Where {@code object} names its {@code which}: the field recorded, else, for an object a Job or LeaderWorkerSet
     * was expanded into, the line of that workload, else the object's line with {@code path} as the field.
     */
    private Mistakes.Reference reference(String object, String which, String path) {
        ReadAt r = references.get(object + " " + which);
        if (r != null) return new Mistakes.Reference(r.source() + ":" + r.line(), null, r.path());
        String at = firstSeenAt.get(object);
        return new Mistakes.Reference(at == null ? "?" : at, expandedFrom.get(object), path);
    }

    void notice(String line) {
        notices.add(line);
    }

    /** Records a pod's (or template's) extended resources requested without a limit; see {@link PodDraft#missingLimits}. */
    void missingLimits(Map<String, String> resourceToWhere) {
        resourceToWhere.forEach((resource, where) -> {
            missingLimitCount.merge(resource, 1, Integer::sum);
            missingLimitFirst.putIfAbsent(resource, where);
        });
    }

    /**
     * Records PriorityClass {@code name} as the global default; a second one is refused, as the API server refuses it
     * ("only one default can exist"), naming where the first was read.
     */
    void claimGlobalDefault(String name, Field globalDefaultField) {
        if (globalDefault != null) {
            throw globalDefaultField.error("PriorityClass " + globalDefault + " (" + globalDefaultAt + ") is already the global"
                    + " default; only one PriorityClass may be");
        }
        globalDefault = name;
        globalDefaultAt = globalDefaultField.origin().location();
    }

    /**
     * What was read so far, with the {@code default} queue first when no manifest defined it, and notices about what
     * is legal but suspicious: pods bound to nodes the manifests do not define, and nodes their bound pods already
     * over-commit (pods that Succeeded or Failed hold nothing).
     */
    Manifests manifests() {
        List<QueueSpec> allQueues = new ArrayList<>(queues);
        if (allQueues.stream().noneMatch(q -> q.name().equals(QueueSpec.DEFAULT))) {
            allQueues.add(0, QueueSpec.defaultQueue());
        }
        List<String> all = new ArrayList<>(notices);
        missingLimitCount.forEach((resource, n) -> all.add(missingLimitFirst.get(resource) + ": " + resource
                + " is requested without a limit" + (n == 1 ? "" : " (and in " + (n - 1) + (n == 2 ? " other pod or template" : " other pods or templates") + ")")
                + "; the API server refuses such a pod, since a resource that cannot be overcommitted needs a limit equal"
                + " to its request; simulated as if the limit were the request"));
        all.addAll(StartingState.notices(nodes, pods, firstSeenAt));
        all.addAll(Mistakes.crossReferences(pods, podGroups, allQueues.stream().map(QueueSpec::name).toList(),
                this::reference));
        return new Manifests(nodes, pods, podGroups, allQueues, priorityClasses, all, namespaceLabels, hyperNodes, queueUsage);
    }
}
