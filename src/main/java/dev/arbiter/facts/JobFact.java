package dev.arbiter.facts;

import dev.arbiter.model.Resources;
import java.util.Map;

/**
 * A job: a PodGroup, or the implicit gang of one of a pod without one. Priority and preemption policy are filled in
 * by the priority rules. {@code phase} is the PodGroup phase at the start of the cycle.
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

    private int priority;
    private boolean priorityResolved;
    private boolean mayPreempt = true;

    public JobFact(String id, String queue, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                   String priorityClassName, String phase, boolean implicit, int pendingTasks, int runningTasks,
                   long creationOrder) {
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
    public int getPriority() { return priority; }
    public boolean isPriorityResolved() { return priorityResolved; }
    public boolean isMayPreempt() { return mayPreempt; }

    public void setPriority(int priority) { this.priority = priority; this.priorityResolved = true; }
    public void setPriorityResolved(boolean priorityResolved) { this.priorityResolved = priorityResolved; }
    public void setMayPreempt(boolean mayPreempt) { this.mayPreempt = mayPreempt; }
}
