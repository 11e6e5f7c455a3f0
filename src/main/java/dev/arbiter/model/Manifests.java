package dev.arbiter.model;

import java.util.List;

/**
 * What the manifest loader read: the objects in file order (PyTorchJobs and LeaderWorkerSets already expanded into
 * pods and PodGroups), plus one-line notices about what was skipped.
 */
public record Manifests(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                        List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses, List<String> notices) {
    public Manifests {
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        priorityClasses = List.copyOf(priorityClasses);
        notices = List.copyOf(notices);
    }
}
