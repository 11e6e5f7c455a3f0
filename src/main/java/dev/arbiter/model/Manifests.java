package dev.arbiter.model;

import java.util.List;

/**
 * What the manifest loader read: the objects in file order (PyTorchJobs and LeaderWorkerSets already expanded into
 * pods and PodGroups), plus one-line notices about what was skipped, and the labels of each Namespace object.
 */
public record Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                        List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, List<String> notices,
                        java.util.Map<String, java.util.Map<String, String>> namespaceLabels) {
    /** Manifests without Namespace objects. */
    public Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups, List<QueueSpec> queues,
                     List<PriorityClassSpec> priorityClasses, List<String> notices) {
        this(nodes, pods, podGroups, queues, priorityClasses, notices, java.util.Map.of());
    }

    public Manifests {
        namespaceLabels = java.util.Map.copyOf(namespaceLabels);
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        priorityClasses = List.copyOf(priorityClasses);
        notices = List.copyOf(notices);
    }
}
