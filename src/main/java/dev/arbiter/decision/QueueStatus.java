package dev.arbiter.decision;

import dev.arbiter.model.Resources;

/**
 * A queue at the end of a cycle: its parent in the queue tree ({@code root} for a top-level queue), its deserved
 * share, what it has allocated (its whole subtree, including pipelined work), job counts, and why it is treated as
 * Closed when the tree is broken (an unknown parent, a cycle), else null.
 */
public record QueueStatus(String queue, String parent, int weight, String state, Resources deserved,
                          Resources allocated, int pendingJobs, int inqueueJobs, int runningJobs, String reason) {
    public QueueStatus(String queue, String parent, int weight, String state, Resources deserved,
                       Resources allocated, int pendingJobs, int inqueueJobs, int runningJobs) {
        this(queue, parent, weight, state, deserved, allocated, pendingJobs, inqueueJobs, runningJobs, null);
    }
}
