package dev.arbiter.facts;

import dev.arbiter.policy.PreemptionPolicy;
import java.util.Objects;

/**
 * A running pod this scheduler answers: a possible victim. Immutable. {@code priority} is the pod's
 * {@code spec.priority} when it has one, else what the priority rules decided for its class. (Pending pods are seen
 * through their {@link JobFact}.) {@code startedAt} is when it started running, in
 * seconds since the epoch (it may be before the epoch in a
 * simulation), or {@link #UNKNOWN_START} when unknown ({@code startKnown} is false); how long it has run is {@link Clock#since} of it (a fact that moved
 * every cycle would make a kept rules session update every running task).
 */
public final class TaskFact {
    /** {@code startedAt} of a pod whose start time is unknown: earlier than any time. */
    public static final long UNKNOWN_START = dev.arbiter.model.PodSpec.UNKNOWN_START;

    private final String id;
    private final String job;
    private final String queue;
    private final String priorityClassName;
    private final int priority;
    private final PreemptionPolicy preemptionPolicy;
    private final boolean preemptableMarker;
    private final boolean leader;
    private final long startedAt;

    public TaskFact(String id, String job, String queue, String priorityClassName, int priority,
                    PreemptionPolicy preemptionPolicy, boolean preemptableMarker, boolean leader, long startedAt) {
        this.id = id;
        this.job = job;
        this.queue = queue;
        this.priorityClassName = priorityClassName;
        this.priority = priority;
        this.preemptionPolicy = preemptionPolicy;
        this.preemptableMarker = preemptableMarker;
        this.leader = leader;
        this.startedAt = startedAt;
    }

    public String getId() { return id; }
    public String getJob() { return job; }
    public String getQueue() { return queue; }
    public String getPriorityClassName() { return priorityClassName; }
    public int getPriority() { return priority; }
    public PreemptionPolicy getPreemptionPolicy() { return preemptionPolicy; }
    /** Always true: only running pods are task facts (kept so rules read as they always did). */
    public boolean isRunning() { return true; }
    /** False when the pod is annotated or labelled {@code volcano.sh/preemptable: "false"}. */
    public boolean isPreemptableMarker() { return preemptableMarker; }
    public boolean isLeader() { return leader; }
    public long getStartedAt() { return startedAt; }
    /** False when the pod's start time is unknown ({@code startedAt} is then {@link #UNKNOWN_START}). */
    public boolean isStartKnown() { return startedAt != UNKNOWN_START; }

    @Override
    public String toString() {
        return "TaskFact[" + id + "]";
    }

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof TaskFact o)) return false;
        return Objects.equals(id, o.id)
                && Objects.equals(job, o.job)
                && Objects.equals(queue, o.queue)
                && Objects.equals(priorityClassName, o.priorityClassName)
                && priority == o.priority
                && Objects.equals(preemptionPolicy, o.preemptionPolicy)
                && preemptableMarker == o.preemptableMarker
                && leader == o.leader
                && startedAt == o.startedAt;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, job, queue, priorityClassName, priority, preemptionPolicy, preemptableMarker, leader, startedAt);
    }
}
