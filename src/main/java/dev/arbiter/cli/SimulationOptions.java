package dev.arbiter.cli;

import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.sim.Simulator;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The simulation options {@code simulate}, {@code explain} and {@code diff} share (a picocli mixin). */
final class SimulationOptions {
    static final long MAX_CYCLE_SECONDS = 365L * 24 * 3600;

    @Option(names = "--max-cycles", paramLabel = "N", defaultValue = "100", description = "Stop after N cycles (default: ${DEFAULT-VALUE}).")
    int maxCycles;

    @Option(names = "--cycle-seconds", paramLabel = "N", defaultValue = "1",
            description = "Simulated length of a cycle in seconds, for time-based policy such as the minimum runtime (default: ${DEFAULT-VALUE}).")
    long cycleSeconds;

    @Mixin
    SchedulerNameOption schedulerNames;

    @Option(names = "--scoring", paramLabel = "STRATEGY", description = "binpack or spread (default: the policy's, scoring.mode in policy.yaml).")
    String scoring;

    /** Why these options are invalid (one line), or null. */
    String problem() {
        if (maxCycles < 1) return "--max-cycles must be at least 1, got " + maxCycles;
        if (cycleSeconds < 1) return "--cycle-seconds must be at least 1, got " + cycleSeconds;
        // Simulated time is cycle × cycle-seconds; a year per cycle keeps it far from overflowing.
        if (cycleSeconds > MAX_CYCLE_SECONDS) return "--cycle-seconds must be at most " + MAX_CYCLE_SECONDS + " (a year), got " + cycleSeconds;
        if (scoring != null && dev.arbiter.policy.ScoringMode.named(scoring) == null) return "--scoring must be binpack or spread, got " + scoring;
        return null;
    }

    SchedulerConfig schedulerConfig() {
        return new SchedulerConfig(schedulerNames.names(), dev.arbiter.policy.ScoringMode.parse(scoring));
    }

    Simulator.Options simulation(boolean recreateEvicted) {
        return new Simulator.Options(maxCycles, cycleSeconds, recreateEvicted, true);
    }
}
