package dev.arbiter.decision;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;

/**
 * A queue at the end of a cycle: its parent in the queue tree ({@code root} for a top-level queue), its deserved
 * share, what it has allocated (its whole subtree, including pipelined work), job counts, and why it is treated as
 * Closed when the tree is broken (an unknown parent, a cycle), else null. For the metrics, as the cycle's start saw
 * them: {@code request} (its subtree's running and pending tasks), {@code inqueue} (what its admitted, not yet running
 * jobs reserve: their minimum resources less what runs), {@code capability} (the bounds its spec names) and
 * {@code realCapability} (its capability within what other queues' guarantees leave; unlimited where the fair-share
 * step did not bound it).
 */
public record QueueStatus(String queue, String parent, int weight, String state, Resources deserved,
                          Resources allocated, int pendingJobs, int inqueueJobs, int runningJobs, String reason,
                          Resources request, Resources inqueue, Caps capability, Caps realCapability) {
    public QueueStatus(String queue, String parent, int weight, String state, Resources deserved,
                       Resources allocated, int pendingJobs, int inqueueJobs, int runningJobs, String reason) {
        this(queue, parent, weight, state, deserved, allocated, pendingJobs, inqueueJobs, runningJobs, reason,
                Resources.NONE, Resources.NONE, Caps.UNLIMITED, Caps.UNLIMITED);
    }

    public QueueStatus(String queue, String parent, int weight, String state, Resources deserved,
                       Resources allocated, int pendingJobs, int inqueueJobs, int runningJobs) {
        this(queue, parent, weight, state, deserved, allocated, pendingJobs, inqueueJobs, runningJobs, null);
    }
}
