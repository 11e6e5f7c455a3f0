package dev.arbiter.sim;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import java.util.List;

/** Every cycle's decisions, and the final pods, PodGroups and queues. */
public record SimulationResult(List<CycleResult> cycles, List<PodOutcome> pods, List<PodGroupStatus> podGroups,
                               List<QueueStatus> queues, List<String> notices, boolean stable) {
    public SimulationResult {
        cycles = List.copyOf(cycles);
        pods = List.copyOf(pods);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        notices = List.copyOf(notices);
    }

    public CycleResult lastCycle() {
        return cycles.isEmpty() ? null : cycles.get(cycles.size() - 1);
    }
}
