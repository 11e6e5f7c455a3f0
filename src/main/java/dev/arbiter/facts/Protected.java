package dev.arbiter.facts;

/**
 * A running task that is never a victim, with the reason. {@code scope} is {@code all} (never evicted) or
 * {@code reclaim} (not reclaimed, but a higher-priority job of its own queue may still preempt it).
 * {@code rule} is the name of the rule that inserted it.
 */
public record Protected(String task, String reason, String scope, String rule) {
    public static final String ALL = "all";
    public static final String RECLAIM = "reclaim";

    /** Protected from every eviction. */
    public Protected(String task, String reason, String rule) {
        this(task, reason, ALL, rule);
    }

    public boolean coversPreemption() {
        return ALL.equals(scope);
    }
}
