package dev.arbiter.engine;

import java.util.Set;

/**
 * Mechanism settings (not policy): which {@code spec.schedulerName}s this scheduler answers, and how nodes are scored.
 */
public record SchedulerConfig(Set<String> schedulerNames, String scoring) {
    public SchedulerConfig {
        schedulerNames = Set.copyOf(schedulerNames);
        if (!scoring.equals("binpack") && !scoring.equals("spread")) {
            throw new IllegalArgumentException("scoring must be binpack or spread, got " + scoring);
        }
    }

    /** The simulator's default: answers pods of {@code arbiter} and {@code volcano}, binpack scoring. */
    public static SchedulerConfig simulatorDefault() {
        return new SchedulerConfig(Set.of("arbiter", "volcano"), "binpack");
    }
}
