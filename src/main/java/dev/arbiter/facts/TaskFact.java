package dev.arbiter.facts;

/**
 * A pod this scheduler answers, pending or running. Running tasks are the only possible victims.
 * {@code priority} is the pod's {@code spec.priority} when it has one, else resolved by the priority rules.
 */
public final class TaskFact {
    private final String id;
    private final String job;
    private final String queue;
    private final String priorityClassName;
    private final String preemptionPolicy;
    private final boolean running;
    private final boolean preemptableMarker;
    private final boolean leader;

    private Integer priority;

    public TaskFact(String id, String job, String queue, String priorityClassName, Integer priority,
                    String preemptionPolicy, boolean running, boolean preemptableMarker, boolean leader) {
        this.id = id;
        this.job = job;
        this.queue = queue;
        this.priorityClassName = priorityClassName;
        this.priority = priority;
        this.preemptionPolicy = preemptionPolicy;
        this.running = running;
        this.preemptableMarker = preemptableMarker;
        this.leader = leader;
    }

    public String getId() { return id; }
    public String getJob() { return job; }
    public String getQueue() { return queue; }
    public String getPriorityClassName() { return priorityClassName; }
    public String getPreemptionPolicy() { return preemptionPolicy; }
    public boolean isRunning() { return running; }
    /** False when the pod is annotated or labelled {@code volcano.sh/preemptable: "false"}. */
    public boolean isPreemptableMarker() { return preemptableMarker; }
    public boolean isLeader() { return leader; }
    public Integer getPriority() { return priority; }
    public boolean isPriorityResolved() { return priority != null; }
    public void setPriority(Integer priority) { this.priority = priority; }
}
