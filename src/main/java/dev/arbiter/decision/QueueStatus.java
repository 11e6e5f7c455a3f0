package dev.arbiter.decision;

import dev.arbiter.model.Resources;

/** A queue at the end of a cycle: its deserved share, what it has allocated (including pipelined work), counts. */
public record QueueStatus(String queue, String parent, int weight, String state, Resources deserved,
                          Resources allocated, int pendingJobs, int inqueueJobs, int runningJobs) {}
