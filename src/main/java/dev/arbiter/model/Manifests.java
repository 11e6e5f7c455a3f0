package dev.arbiter.model;

import java.util.List;

/**
 * What the manifest loader read: the objects in file order (PyTorchJobs and LeaderWorkerSets already expanded into
 * pods and PodGroups), plus one-line notices about what was skipped, the labels of each Namespace object, and the
 * HyperNodes (network domains), and the decayed past usage the Queues carry ({@link QueueUsage#ANNOTATION}), by queue.
 */
public record Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                        List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, List<String> notices,
                        java.util.Map<String, java.util.Map<String, String>> namespaceLabels,
                        List<HyperNodeSpec> hyperNodes, java.util.Map<String, QueueUsage> queueUsage) {
    /** Manifests without stored queue usage. */
    public Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups, List<QueueSpec> queues,
                     List<PriorityClassSpec> priorityClasses, List<String> notices,
                     java.util.Map<String, java.util.Map<String, String>> namespaceLabels, List<HyperNodeSpec> hyperNodes) {
        this(nodes, pods, podGroups, queues, priorityClasses, notices, namespaceLabels, hyperNodes, java.util.Map.of());
    }

    /** Manifests without HyperNodes. */
    public Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups, List<QueueSpec> queues,
                     List<PriorityClassSpec> priorityClasses, List<String> notices,
                     java.util.Map<String, java.util.Map<String, String>> namespaceLabels) {
        this(nodes, pods, podGroups, queues, priorityClasses, notices, namespaceLabels, List.of());
    }

    /** Manifests without Namespace objects. */
    public Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups, List<QueueSpec> queues,
                     List<PriorityClassSpec> priorityClasses, List<String> notices) {
        this(nodes, pods, podGroups, queues, priorityClasses, notices, java.util.Map.of());
    }

    public Manifests {
        namespaceLabels = java.util.Map.copyOf(namespaceLabels);
        hyperNodes = List.copyOf(hyperNodes);
        queueUsage = java.util.Map.copyOf(queueUsage);
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        priorityClasses = List.copyOf(priorityClasses);
        notices = List.copyOf(notices);
    }
}
