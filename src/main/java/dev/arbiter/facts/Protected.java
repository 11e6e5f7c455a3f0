package dev.arbiter.facts;

import dev.arbiter.policy.ProtectionScope;

/**
 * A running task that is never a victim, with the reason. {@code scope} is {@link ProtectionScope#ALL} (never evicted)
 * or {@link ProtectionScope#RECLAIM} (not reclaimed, but a higher-priority job of its own queue may still preempt it).
 * {@code rule} is the name of the rule that inserted it.
 */
public record Protected(String task, String reason, ProtectionScope scope, String rule) {
    /** Protected from every eviction. */
    public Protected(String task, String reason, String rule) {
        this(task, reason, ProtectionScope.ALL, rule);
    }

    public boolean coversPreemption() {
        return scope == ProtectionScope.ALL;
    }
}
