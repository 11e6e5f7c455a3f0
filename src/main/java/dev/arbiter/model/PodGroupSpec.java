package dev.arbiter.model;

import java.util.Map;

/**
 * A Volcano PodGroup (a job, a gang). {@code minResources} may be null, in which case the scheduler derives it from
 * the requests of the first {@code minMember} tasks. {@code phase} is the status phase carried by the manifest
 * (Pending when absent).
 */
public record PodGroupSpec(String namespace, String name, String queue, int minMember,
                           Map<String, Integer> minTaskMember, Resources minResources, String priorityClassName,
                           String phase, int arrivalCycle, long creationOrder) {
    public PodGroupSpec {
        minTaskMember = Map.copyOf(minTaskMember);
    }

    public String key() {
        return namespace + "/" + name;
    }
}
