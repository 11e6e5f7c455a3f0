package dev.arbiter.facts;

import dev.arbiter.model.Resources;
import java.util.Map;

/**
 * A job: a PodGroup, or the implicit gang of one of a pod without one. {@code priority} is its priority class's
 * value as the priority rules resolved it. {@code phase} is the PodGroup phase at the start of the cycle.
 */
public final class JobFact {
    private final String id;
    private final String queue;
    private final int minMember;
    private final Map<String, Integer> minTaskMember;
    private final Resources minResources;
    private final String priorityClassName;
    private final String phase;
    private final boolean implicit;
    private final int pendingTasks;
    private final int runningTasks;
    private final long creationOrder;
    private final int pendingNeverPreempt;

    private int priority;
    private boolean priorityResolved;
    private boolean mayPreempt = true;

    /**
     * {@code priority} is the value the priority rules resolved for the job's priority class;
     * {@code pendingNeverPreempt} counts pending pods whose {@code preemptionPolicy} is Never.
     */
    public JobFact(String id, String queue, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                   String priorityClassName, String phase, boolean implicit, int pendingTasks, int runningTasks,
                   long creationOrder, int priority, int pendingNeverPreempt) {
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
        this.priorityResolved = true;
        this.pendingNeverPreempt = pendingNeverPreempt;
    }

    /** A job whose priority is not yet known. */
    public JobFact(String id, String queue, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                   String priorityClassName, String phase, boolean implicit, int pendingTasks, int runningTasks,
                   long creationOrder) {
        this(id, queue, minMember, minTaskMember, minResources, priorityClassName, phase, implicit, pendingTasks,
                runningTasks, creationOrder, 0, 0);
        this.priorityResolved = false;
    }

    public String getId() { return id; }
    public String getQueue() { return queue; }
    public int getMinMember() { return minMember; }
    public Map<String, Integer> getMinTaskMember() { return minTaskMember; }
    public Resources getMinResources() { return minResources; }
    public String getPriorityClassName() { return priorityClassName; }
    public String getPhase() { return phase; }
    public boolean isPending() { return "Pending".equals(phase); }
    public boolean isImplicit() { return implicit; }
    public int getPendingTasks() { return pendingTasks; }
    public int getRunningTasks() { return runningTasks; }
    public long getCreationOrder() { return creationOrder; }
    public int getPendingNeverPreempt() { return pendingNeverPreempt; }
    public int getPriority() { return priority; }
    public boolean isPriorityResolved() { return priorityResolved; }
    public boolean isMayPreempt() { return mayPreempt; }

    public void setPriority(int priority) { this.priority = priority; this.priorityResolved = true; }
    public void setPriorityResolved(boolean priorityResolved) { this.priorityResolved = priorityResolved; }
    public void setMayPreempt(boolean mayPreempt) { this.mayPreempt = mayPreempt; }
}
