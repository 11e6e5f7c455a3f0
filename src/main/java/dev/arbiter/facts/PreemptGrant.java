package dev.arbiter.facts;

/**
 * Pending jobs of {@code queue} that may preempt can evict running tasks of the same queue; when {@code lowerPriorityOnly}, only of jobs whose priority is strictly lower than the preemptor's.
 * When {@code shareGapOnly} (Volcano's {@code drf} preemptable rule, after its {@code priority} plugin): tasks of jobs
 * of lower priority, and of jobs of the preemptor's priority whose dominant resource share, without the task, would
 * still be at least the preemptor's with one more task.
 * {@code rule} is the name of the rule that inserted it.
 */
public record PreemptGrant(String queue, boolean lowerPriorityOnly, String rule, boolean shareGapOnly) {
    /** A grant without the share-gap test. */
    public PreemptGrant(String queue, boolean lowerPriorityOnly, String rule) {
        this(queue, lowerPriorityOnly, rule, false);
    }
}
