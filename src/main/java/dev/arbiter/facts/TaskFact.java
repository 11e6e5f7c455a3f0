package dev.arbiter.facts;

/**
 * A running pod this scheduler answers: a possible victim. {@code priority} is the pod's {@code spec.priority} when
 * it has one, else its priority class's value as the priority rules resolved it. (Pending pods are seen through
 * their {@link JobFact}.)
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
    private final long runningSeconds;

    private Integer priority;

    /** {@code runningSeconds} is how long a running task has run, or -1 when unknown (and for pending tasks). */
    public TaskFact(String id, String job, String queue, String priorityClassName, Integer priority,
                    String preemptionPolicy, boolean running, boolean preemptableMarker, boolean leader,
                    long runningSeconds) {
        this.id = id;
        this.job = job;
        this.queue = queue;
        this.priorityClassName = priorityClassName;
        this.priority = priority;
        this.preemptionPolicy = preemptionPolicy;
        this.running = running;
        this.preemptableMarker = preemptableMarker;
        this.leader = leader;
        this.runningSeconds = runningSeconds;
    }

    public TaskFact(String id, String job, String queue, String priorityClassName, Integer priority,
                    String preemptionPolicy, boolean running, boolean preemptableMarker, boolean leader) {
        this(id, job, queue, priorityClassName, priority, preemptionPolicy, running, preemptableMarker, leader, -1);
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
    public long getRunningSeconds() { return runningSeconds; }
    public Integer getPriority() { return priority; }
    public boolean isPriorityResolved() { return priority != null; }
    public void setPriority(Integer priority) { this.priority = priority; }
}
