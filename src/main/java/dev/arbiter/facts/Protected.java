package dev.arbiter.facts;

import dev.arbiter.policy.ProtectionScope;

/**
 * A running task that is never a victim, with the reason. {@code scope} is {@link ProtectionScope#ALL} (never evicted)
 * or {@link ProtectionScope#RECLAIM} (not reclaimed, but a higher-priority job of its own queue may still preempt it).
 * {@code until} is when the protection ends by itself, on the {@link Clock} (seconds since the epoch): the first
 * {@code now} at which the rule's conditions no longer hold although nothing but the clock moved; {@link #NEVER} for a
 * protection that only a change in the cluster ends (a pod marked not preemptable). The rule that protects decides it,
 * and states it: the engine wakes for it ({@code CycleResult.wakeAt}) and never works it out from the settings. A rule
 * that protects a task for {@code $min} seconds after it started states {@code $t.getStartedAt() + $min}.
 * {@code rule} is the name of the rule that inserted it.
 */
public record Protected(String task, String reason, ProtectionScope scope, long until, String rule) {
    /** {@link #until} of a protection that time alone does not end. */
    public static final long NEVER = Long.MAX_VALUE;

    /** Protected from every eviction, until a change in the cluster ends it. */
    public Protected(String task, String reason, String rule) {
        this(task, reason, ProtectionScope.ALL, NEVER, rule);
    }

    /** Protected in {@code scope}, until a change in the cluster ends it. */
    public Protected(String task, String reason, ProtectionScope scope, String rule) {
        this(task, reason, scope, NEVER, rule);
    }

    public boolean coversPreemption() {
        return scope == ProtectionScope.ALL;
    }

    /** Whether time alone ends it ({@link #until} is not {@link #NEVER}). */
    public boolean expires() {
        return until != NEVER;
    }
}
