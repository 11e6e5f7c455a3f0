package dev.arbiter.forecast;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.Simulator;
import java.util.function.BiConsumer;

/**
 * Keeps the last snapshot a simulation showed its observer: the world a forecast starts from at the end of a run
 * ({@code simulate}), or, after a run of one cycle, at its start.
 */
public final class SnapshotTap implements BiConsumer<ClusterSnapshot, CycleResult> {
    private ClusterSnapshot last;

    @Override
    public void accept(ClusterSnapshot s, CycleResult r) {
        last = s;
    }

    /** The last snapshot shown, or null before any. */
    public ClusterSnapshot last() {
        return last;
    }

    /** The first snapshot a simulation of {@code m} would decide on (its cycle 1, at {@code cycleSeconds}). */
    public static ClusterSnapshot atStart(Manifests m, Scheduler scheduler, long cycleSeconds) {
        SnapshotTap tap = new SnapshotTap();
        new Simulator(scheduler).run(m, new Simulator.Options(1, cycleSeconds, false, true), tap);
        return tap.last();
    }
}
