package dev.arbiter.model;

import java.util.List;

/**
 * What the manifest loader read: the objects in file order (PyTorchJobs and LeaderWorkerSets already expanded into
 * pods and PodGroups), plus one-line notices about what was skipped, the labels of each Namespace object, and the
 * HyperNodes (network domains).
 */
public record Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                        List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, List<String> notices,
                        java.util.Map<String, java.util.Map<String, String>> namespaceLabels,
                        List<HyperNodeSpec> hyperNodes) {
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
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        priorityClasses = List.copyOf(priorityClasses);
        notices = List.copyOf(notices);
    }
}
