package dev.arbiter.model;

import java.util.List;
import java.util.Map;

/** A node as the scheduler sees it: allocatable capacity, labels for selectors, taints, and the cordon flag. */
public record NodeSpec(String name, Map<String, String> labels, List<Taint> taints, boolean unschedulable,
                       Resources allocatable, int arrivalCycle) {
    public NodeSpec {
        labels = Map.copyOf(labels);
        taints = List.copyOf(taints);
    }
}
