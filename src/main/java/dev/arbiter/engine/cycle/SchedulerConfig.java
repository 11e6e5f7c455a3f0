package dev.arbiter.engine.cycle;

import java.util.List;
import java.util.Set;

/**
 * Mechanism settings (not policy): which {@code spec.schedulerName}s this scheduler answers, and, when set, a scoring
 * mode ({@code binpack} or {@code spread}) that overrides the policy's ({@code scoring.mode} in {@code policy.yaml});
 * null keeps the policy's.
 */
public record SchedulerConfig(Set<String> schedulerNames, String scoring) {
    /**
     * The {@code spec.schedulerName}s every command answers unless told otherwise ({@code simulate}, {@code explain},
     * {@code diff}, {@code verify} and {@code run} alike, so a simulation decides the pods the live scheduler would):
     * Arbiter's own name, and Volcano's, so manifests written for Volcano work unchanged.
     */
    public static final List<String> DEFAULT_NAMES = List.of("arbiter", "volcano");

    public SchedulerConfig {
        schedulerNames = Set.copyOf(schedulerNames);
        if (scoring != null && !scoring.equals("binpack") && !scoring.equals("spread")) {
            throw new IllegalArgumentException("scoring must be binpack or spread, got " + scoring);
        }
    }

    /** The default: answers pods of {@link #DEFAULT_NAMES}, scoring as the policy says. */
    public static SchedulerConfig simulatorDefault() {
        return new SchedulerConfig(Set.copyOf(DEFAULT_NAMES), null);
    }
}
