package dev.arbiter.engine.state;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;

/** A pod during one cycle: its job, its node when running, its resolved priority, and whether it was evicted. */
public final class Task {
    public final PodSpec pod;
    public final Job job;
    public final NodeState node;
    public int priority;
    public boolean evicted;
    /** Placed (bound or pipelined) this cycle: set by {@link #place}, which counts it on its job. */
    public boolean placed;

    /** Placed this cycle (bound, or pipelined): its job counts it ({@link Job#hasPending} reads no task). */
    public void place() {
        if (placed) return;
        placed = true;
        job.placedPending++;
    }

    /** Bound this cycle (placed, and not waiting on victims). */
    public boolean bound;
    /** The node the previous cycle made room on for this pending task; its request is held there for it. */
    public NodeState nominated;
    /** Whether the nominated node currently holds this task's request for it. */
    public boolean holding;
    private Resources share;
    /** Why the rules protect this running task from eviction, or null (always null for a pending task). */
    public dev.arbiter.facts.Protected protection;

    /** Resources left out of {@link #share()}. */
    private final java.util.Set<String> ignored;

    /**
     * The pod's key, {@code priorityClassName}, {@code spec.priority}, creation order and leader flag, copied here:
     * every cycle reads them for every task (sorting, facts, priorities), and reading them from the task spares a visit
     * to the pod, a cache miss each in a large cluster.
     */
    private final String id;
    public final String priorityClassName;
    public final Integer podPriority;
    public final long creationOrder;
    private final boolean leader;
    /** Kueue's topology annotation on the pod, once read ({@link #kueueTopology}). */
    private dev.arbiter.model.NetworkTopology kueueTopology;
    private boolean kueueTopologyRead;

    public Task(PodSpec pod, Job job, NodeState node, java.util.Set<String> ignored) {
        this.pod = pod;
        this.job = job;
        this.node = node;
        this.ignored = ignored;
        this.id = pod.key();
        this.priorityClassName = pod.priorityClassName();
        this.podPriority = pod.priority();
        this.creationOrder = pod.creationOrder();
        this.leader = pod.isLeader();
    }

    /** The pod's key ({@code ns/name}). */
    public String id() {
        return id;
    }

    public boolean leader() {
        return leader;
    }

    /**
     * Kueue's topology annotation on the pod, or null: {@link NetworkDomains#wanted} asks for every job several times
     * a cycle, and a kept task answers from what it read once.
     */
    public dev.arbiter.model.NetworkTopology kueueTopology() {
        if (!kueueTopologyRead) {
            kueueTopology = dev.arbiter.model.NetworkTopology.fromKueue(pod.annotations());
            kueueTopologyRead = true;
        }
        return kueueTopology;
    }

    public Resources request() {
        return pod.requests();
    }

    /**
     * What the task counts for in queue shares, capabilities and admission: its request without the resources the
     * policy leaves out of shares ({@code shares.ignoredResources}; by default the {@code pods} slot, which is a node
     * limit, not something queues share).
     */
    public Resources share() {
        Resources s = share;
        if (s == null) share = s = pod.requests().without(ignored);
        return s;
    }

    /** The cycle state that last changed what a cycle does with it ({@link WorkingCluster#touch}), by its stamp. */
    int touchedBy;

    /**
     * Forgets what the last cycle did with it (a task kept across cycles by {@link WorkingCopy}). Its priority stays:
     * the rules' step sets it again unless the classes' priorities are those it was set from.
     */
    public void startCycle() {
        evicted = false;
        placed = false; // (its job's count starts again at zero: Job#startCycle)
        bound = false;
        nominated = null;
        holding = false;
        protection = null;
    }

    public boolean running() {
        return node != null;
    }

    @Override
    public String toString() {
        return id();
    }
}
