package dev.arbiter.facts;

/**
 * Pending jobs of {@code queue} that may preempt can evict running tasks of the same queue; when {@code lowerPriorityOnly}, only of jobs whose priority is strictly lower than the preemptor's.
 * {@code rule} is the name of the rule that inserted it.
 */
public record PreemptGrant(String queue, boolean lowerPriorityOnly, String rule) {
}
