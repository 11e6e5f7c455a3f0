package dev.arbiter.decision;

import java.util.List;
import java.util.Map;

/**
 * Everything one cycle decided, as plain data: the actuator (or the simulator) executes bindings and evictions and
 * writes the statuses. {@code phaseMillis} times each step of the cycle.
 */
public record CycleResult(int cycle, String rulesGeneration, List<Binding> bindings, List<Eviction> evictions,
                          List<PodGroupStatus> podGroups, List<QueueStatus> queues, Map<String, Double> phaseMillis) {
    public CycleResult {
        bindings = List.copyOf(bindings);
        evictions = List.copyOf(evictions);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        phaseMillis = Map.copyOf(phaseMillis);
    }

    public boolean decidedNothing() {
        return bindings.isEmpty() && evictions.isEmpty();
    }
}
