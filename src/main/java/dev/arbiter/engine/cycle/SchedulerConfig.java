package dev.arbiter.engine.cycle;

import dev.arbiter.policy.ScoringMode;
import java.util.List;
import java.util.Set;

/**
 * Mechanism settings (not policy): which {@code spec.schedulerName}s this scheduler answers, and, when set, a scoring
 * mode that overrides the policy's ({@code scoring.mode} in {@code policy.yaml}); null keeps the policy's. The override
 * is applied to the policy's settings once, when the scheduler is made ({@link RuleBook#withScoring}), so the cycle's
 * steps read every setting from one place, the {@code Policy} of the cycle.
 */
public record SchedulerConfig(Set<String> schedulerNames, ScoringMode scoring) {
    /**
     * The {@code spec.schedulerName}s every command answers unless told otherwise ({@code simulate}, {@code explain},
     * {@code diff}, {@code verify} and {@code run} alike, so a simulation decides the pods the live scheduler would):
     * Arbiter's own name, and Volcano's, so manifests written for Volcano work unchanged.
     */
    public static final List<String> DEFAULT_NAMES = List.of("arbiter", "volcano");

    public SchedulerConfig {
        schedulerNames = Set.copyOf(schedulerNames);
    }

    /** The default: answers pods of {@link #DEFAULT_NAMES}, scoring as the policy says. */
    public static SchedulerConfig simulatorDefault() {
        return new SchedulerConfig(Set.copyOf(DEFAULT_NAMES), null);
    }
}
