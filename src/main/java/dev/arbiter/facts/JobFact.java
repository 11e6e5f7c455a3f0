package dev.arbiter.facts;

import dev.arbiter.model.Resources;
import dev.arbiter.policy.JobPhase;
import java.util.Map;
import java.util.Objects;

/**
 * A job: a PodGroup, or the implicit gang of one of a pod without one. Immutable. {@code priority} is what the
 * priority rules decided for it; {@code phase} is the PodGroup's phase at the start of the cycle;
 * {@code pendingNeverPreempt} counts pending pods whose {@code preemptionPolicy} is Never; {@code preemptable} is its
 * PodGroup's {@code volcano.sh/preemptable} (null: it says nothing, and its pods' markers decide); {@code neverPreempts}
 * is true when its PodGroup (the upstream Workload API's) says {@code preemptionPolicy: Never}.
 */
public final class JobFact {
    private final String id;
    private final String queue;
    private final int minMember;
    private final Map<String, Integer> minTaskMember;
    private final Resources minResources;
    private final String priorityClassName;
    private final JobPhase phase;
    private final boolean implicit;
    private final int pendingTasks;
    private final int runningTasks;
    private final long creationOrder;
    private final int priority;
    private final int pendingNeverPreempt;
    private final Boolean preemptable;
    private final boolean neverPreempts;

    public JobFact(String id, String queue, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                   String priorityClassName, JobPhase phase, boolean implicit, int pendingTasks, int runningTasks,
                   long creationOrder, int priority, int pendingNeverPreempt, Boolean preemptable) {
        this(id, queue, minMember, minTaskMember, minResources, priorityClassName, phase, implicit, pendingTasks,
                runningTasks, creationOrder, priority, pendingNeverPreempt, preemptable, false);
    }

    public JobFact(String id, String queue, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                   String priorityClassName, JobPhase phase, boolean implicit, int pendingTasks, int runningTasks,
                   long creationOrder, int priority, int pendingNeverPreempt, Boolean preemptable,
                   boolean neverPreempts) {
        this.neverPreempts = neverPreempts;
        this.id = id;
        this.queue = queue;
        this.minMember = minMember;
        this.minTaskMember = Map.copyOf(minTaskMember);
        this.minResources = minResources;
        this.priorityClassName = priorityClassName;
        this.phase = phase;
        this.implicit = implicit;
        this.pendingTasks = pendingTasks;
        this.runningTasks = runningTasks;
        this.creationOrder = creationOrder;
        this.priority = priority;
        this.pendingNeverPreempt = pendingNeverPreempt;
        this.preemptable = preemptable;
    }

    public String getId() { return id; }
    public String getQueue() { return queue; }
    public int getMinMember() { return minMember; }
    public Map<String, Integer> getMinTaskMember() { return minTaskMember; }
    public Resources getMinResources() { return minResources; }
    public String getPriorityClassName() { return priorityClassName; }
    public JobPhase getPhase() { return phase; }
    public boolean isPending() { return phase == JobPhase.PENDING; }
    public boolean isImplicit() { return implicit; }
    public int getPendingTasks() { return pendingTasks; }
    public int getRunningTasks() { return runningTasks; }
    public long getCreationOrder() { return creationOrder; }
    public int getPriority() { return priority; }
    public int getPendingNeverPreempt() { return pendingNeverPreempt; }
    /** Its PodGroup says {@code preemptionPolicy: Never} (the upstream Workload API's field). */
    public boolean isNeverPreempts() { return neverPreempts; }
    /** Its PodGroup is marked {@code volcano.sh/preemptable: "true"}: its pods may be victims, whatever they say. */
    public boolean isMarkedPreemptable() { return Boolean.TRUE.equals(preemptable); }
    /** Its PodGroup is marked {@code volcano.sh/preemptable: "false"}: no pod of it is a victim. */
    public boolean isMarkedNotPreemptable() { return Boolean.FALSE.equals(preemptable); }
    /** Its PodGroup states whether its pods may be victims (either way): the job's word wins over its pods'. */
    public boolean isPreemptabilitySaid() { return preemptable != null; }

    @Override
    public String toString() {
        return "JobFact[" + id + "]";
    }

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof JobFact o)) return false;
        return Objects.equals(id, o.id)
                && Objects.equals(queue, o.queue)
                && minMember == o.minMember
                && Objects.equals(minTaskMember, o.minTaskMember)
                && Objects.equals(minResources, o.minResources)
                && Objects.equals(priorityClassName, o.priorityClassName)
                && Objects.equals(phase, o.phase)
                && implicit == o.implicit
                && pendingTasks == o.pendingTasks
                && runningTasks == o.runningTasks
                && creationOrder == o.creationOrder
                && priority == o.priority
                && pendingNeverPreempt == o.pendingNeverPreempt
                && Objects.equals(preemptable, o.preemptable)
                && neverPreempts == o.neverPreempts;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, queue, minMember, minTaskMember, minResources, priorityClassName, phase, implicit, pendingTasks, runningTasks, creationOrder, priority, pendingNeverPreempt,
                preemptable, neverPreempts);
    }
}
