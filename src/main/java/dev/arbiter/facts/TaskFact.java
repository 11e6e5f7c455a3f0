package dev.arbiter.facts;

import dev.arbiter.policy.PreemptionPolicy;
import java.util.Objects;

/**
 * A running pod this scheduler answers: a possible victim. Immutable. {@code priority} is the pod's
 * {@code spec.priority} when it has one, else what the priority rules decided for its class. (Pending pods are seen
 * through their {@link JobFact}.) {@code runningSeconds} is how long it has run, or -1 when unknown.
 */
public final class TaskFact {
    private final String id;
    private final String job;
    private final String queue;
    private final String priorityClassName;
    private final int priority;
    private final PreemptionPolicy preemptionPolicy;
    private final boolean preemptableMarker;
    private final boolean leader;
    private final long runningSeconds;

    public TaskFact(String id, String job, String queue, String priorityClassName, int priority,
                    PreemptionPolicy preemptionPolicy, boolean preemptableMarker, boolean leader, long runningSeconds) {
        this.id = id;
        this.job = job;
        this.queue = queue;
        this.priorityClassName = priorityClassName;
        this.priority = priority;
        this.preemptionPolicy = preemptionPolicy;
        this.preemptableMarker = preemptableMarker;
        this.leader = leader;
        this.runningSeconds = runningSeconds;
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
    public long getRunningSeconds() { return runningSeconds; }

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
                && runningSeconds == o.runningSeconds;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, job, queue, priorityClassName, priority, preemptionPolicy, preemptableMarker, leader, runningSeconds);
    }
}
