package dev.arbiter.model;

import java.util.List;

/**
 * Everything one scheduling cycle may read, frozen. The simulator and the live informers build one per cycle;
 * nothing downstream mutates it. Pods include bound pods of every scheduler (they consume capacity) and the
 * pending pods this scheduler answers.
 */
public record ClusterSnapshot(List<NodeSpec> nodes, List<PodSpec> pods, List<PodGroupSpec> podGroups,
                              List<QueueSpec> queues, List<PriorityClassSpec> priorityClasses) {
    public ClusterSnapshot {
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        priorityClasses = List.copyOf(priorityClasses);
    }
}
