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

    @Option(names = "--estimate-horizon", paramLabel = "DURATION", defaultValue = "7d",
            description = "How far ahead start-time estimates look, in simulated time, e.g. 12h or 7d (default: ${DEFAULT-VALUE}); "
                    + "a job that would not start by then has none (docs/estimates.md).")
    String estimateHorizon;

    /** Why these options are invalid (one line), or null. */
    String problem() {
        if (dev.arbiter.model.Runtimes.seconds(estimateHorizon) < 1) {
            return "--estimate-horizon must be a duration such as 12h or 7d (at most 366d), got " + estimateHorizon;
        }
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

    /** How far and how fine a start-time forecast looks: the horizon, the simulation's cycle length. */
    dev.arbiter.forecast.Forecaster.Settings forecast(boolean recreateEvicted) {
        return new dev.arbiter.forecast.Forecaster.Settings(dev.arbiter.model.Runtimes.seconds(estimateHorizon),
                dev.arbiter.forecast.Forecaster.Settings.defaults(cycleSeconds).maxCycles(), cycleSeconds, recreateEvicted);
    }

    Simulator.Options simulation(boolean recreateEvicted) {
        return new Simulator.Options(maxCycles, cycleSeconds, recreateEvicted, true);
    }
}
