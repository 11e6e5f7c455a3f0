package dev.arbiter.engine.state;

import dev.arbiter.decision.Refusal;


import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job during one cycle: a PodGroup (or a pod's implicit gang of one), its pending and running tasks, and what the
 * cycle has concluded about it so far. What a scheduler remembers of it across cycles is not here: the working copy's
 * bookkeeping, parking and eviction shape are its tables' ({@code engine.kept}), the rules' fact a kept rules
 * session's ({@code RulesSession}).
 */
public final class Job {
    public final String id;
    final String namespace;
    final String name;
    public final String queue;
    public final int minMember;
    public final Map<String, Integer> minTaskMember;
    public final String priorityClassName;
    public final boolean implicit;
    public final long creationOrder;
    public final String initialPhase;
    public final List<Task> pending = new ArrayList<>();
    public final List<Task> running = new ArrayList<>();
    public Resources minResources;
    /** The PodGroup's {@code spec.networkTopology}, or null. */
    public final dev.arbiter.model.NetworkTopology networkTopology;
    /** The PodGroup's {@code volcano.sh/preemptable}, or null when it says nothing ({@link PodGroupSpec#preemptable}). */
    public final Boolean preemptable;
    /**
     * The upstream PodGroup's integer {@code spec.priority}, which wins over its class's value as a pod's
     * {@code spec.priority} does; null for a Volcano PodGroup, an implicit gang, or a PodGroup without one.
     */
    public final Integer podGroupPriority;
    /**
     * Its PodGroup is the upstream Workload API's: the group's priority is its pods' too (kube-scheduler refuses a
     * group whose pods differ, and ranks its victims by the group's).
     */
    public final boolean workloadApi;
    /** The upstream PodGroup says {@code preemptionPolicy: Never}: the job waits rather than evicting anyone. */
    public final boolean neverPreempts;
    /**
     * The upstream PodGroup says {@code disruptionMode: all}: its members are disrupted together, so every member is
     * needed to keep it whole as a victim ({@link #victimFloor}).
     */
    public final boolean disruptAll;
    /** Some pending task of the job had room held for it on its nominated node when the cycle began. */
    public boolean nominated;
    /** The network domain the job started in this cycle (bound or pipelined there), or null. */
    public String domain;

    public int priority;
    /** Its queue in this cycle's state, or null when the queue does not exist (set as each cycle files its jobs). */
    public QueueState queueState;
    public String phase;
    /** Why it does not start (or runs pipelined), as data: {@link dev.arbiter.decision.ReasonWords} words it. */
    public Refusal reason;
    public String reasonRule;
    public boolean pipelined;

    public Job(PodGroupSpec pg, boolean implicit) {
        this(pg, implicit, -1);
    }

    /** A job numbered {@code serial} by the working copy that makes it ({@link #serial}). */
    public Job(PodGroupSpec pg, boolean implicit, int serial) {
        this.serial = serial;
        this.id = pg.key();
        this.namespace = pg.namespace();
        this.name = pg.name();
        this.queue = pg.queue();
        this.minMember = Math.max(pg.minMember(), 0);
        this.minTaskMember = pg.minTaskMember();
        this.priorityClassName = pg.priorityClassName();
        this.implicit = implicit;
        this.creationOrder = pg.creationOrder();
        this.initialPhase = canonicalPhase(pg.phase());
        this.phase = initialPhase;
        this.minResources = pg.minResources();
        this.networkTopology = pg.networkTopology();
        this.preemptable = pg.preemptable();
        dev.arbiter.model.WorkloadApiTerms w = pg.workloadApi();
        this.podGroupPriority = w == null ? null : w.priority();
        this.workloadApi = w != null;
        this.neverPreempts = w != null && w.neverPreempts();
        this.disruptAll = w != null && w.disruptAll();
        this.specMinResources = pg.minResources();
    }

    /**
     * The phase as one of the constants the steps compare it with (a phase read from a manifest is its own string:
     * every step asks each job's phase, and comparing the same constant is one reference, not the text).
     */
    private static String canonicalPhase(String phase) {
        if (phase == null) return "Pending";
        return switch (phase) {
            case "Pending" -> "Pending";
            case "Inqueue" -> "Inqueue";
            case "Running" -> "Running";
            default -> phase;
        };
    }

    /** The PodGroup's own {@code spec.minResources}, or null (then {@link #minResources} is derived from the tasks). */
    private final Resources specMinResources;
    /**
     * Its number in the working copy that made it ({@code WorkingCopy}), unique among that copy's jobs while it lives
     * (the copy's tables of what it remembers are indexed by it); -1 for a job of a fresh index.
     */
    public final int serial;

    /**
     * What is worked out from its tasks once per set of tasks (a kept job keeps it while they stay the same): what
     * its running and its pending tasks count for in queue shares, and whether its pending pods ask alike.
     */
    private final FromTasks fromTasks = new FromTasks();

    private static final class FromTasks {
        /** Summed shares; null until asked. */
        Resources runningShare, pendingShare;
        /** Whether its pending tasks are {@link #pendingAlike alike}: 0 not yet asked of this set of tasks, 1 yes, 2 no. */
        public byte pendingAlike;
    }

    /** What its running tasks count for in queue shares (evicted or not), summed once per set of tasks. */
    Resources runningShare() {
        Resources r = fromTasks.runningShare;
        if (r == null) fromTasks.runningShare = r = sum(running);
        return r;
    }

    /** What its pending tasks count for in queue shares, summed once per set of tasks. */
    Resources pendingShare() {
        Resources r = fromTasks.pendingShare;
        if (r == null) fromTasks.pendingShare = r = sum(pending);
        return r;
    }

    private static Resources sum(List<Task> tasks) {
        Resources.Sum s = new Resources.Sum();
        for (Task t : tasks) s.add(t.share());
        return s.toResources();
    }

    /** Its tasks changed: what was worked out from them no longer holds. */
    public void tasksChanged() {
        fromTasks.runningShare = fromTasks.pendingShare = null;
        fromTasks.pendingAlike = 0;
    }

    /**
     * Whether its pending pods ask the same of a node: the same requests, node selector and tolerations, and no
     * placement rule of their own (no node affinity, pod affinity, spread, scheduling gate). Where no pod of the cycle
     * has an anti-affinity term either, the node fitter gives such pods the same answer in the same state: once one
     * of them finds no node, and nothing is placed since, none of the rest does. Worked out once per set of tasks (a
     * gang of a hundred alike workers is asked of once, not a hundred times, in every cycle it waits).
     */
    public boolean pendingAlike() {
        if (fromTasks.pendingAlike == 0) fromTasks.pendingAlike = alike(pending) ? (byte) 1 : (byte) 2;
        return fromTasks.pendingAlike == 1;
    }

    private static boolean alike(List<Task> tasks) {
        if (tasks.isEmpty()) return true;
        dev.arbiter.model.PodSpec first = tasks.get(0).pod;
        if (first.placement() != dev.arbiter.model.Placement.NONE) return false;
        for (int i = 1; i < tasks.size(); i++) if (!first.asksAlikeOf(tasks.get(i).pod)) return false;
        return true;
    }

    /**
     * Forgets what the last cycle concluded: the job as the snapshot alone makes it (its task lists are the caller's:
     * kept while its tasks stay the same).
     */
    public void startCycle() {
        minResources = specMinResources;
        nominated = false;
        domain = null;
        phase = initialPhase;
        reason = null;
        reasonRule = null;
        pipelined = false;
        bound = 0;
        evictedMembers = 0;
        placedPending = 0;
    }


    /** Members bound this cycle (they run from now on, but are not yet possible victims). */
    public int bound;

    /** Members that will be running after this cycle: running and not evicted, plus bound this cycle. */
    /**
     * How many live members the job must keep for an eviction to leave it whole, for the victim search: its
     * {@code minMember}, or (disruptionMode all) every member, so that any eviction takes all of it (or, under
     * {@code victims.breakingGang: spare}, none).
     */
    public int victimFloor() {
        return disruptAll ? Integer.MAX_VALUE : minMember;
    }

    public int liveMembers() {
        return liveRunning() + bound;
    }

    /** Running members not evicted this cycle. */
    public int liveRunning() {
        return running.size() - evictedMembers;
    }

    /**
     * Running members evicted this cycle, counted as {@link GangTransaction} evicts them and undoes it (the only
     * writer of {@link Task#evicted}): {@link #liveRunning} is asked per starving job and per victim, many times a cycle.
     */
    public int evictedMembers;

    /** Live members per task role: running and not evicted, plus bound this cycle. */
    public Map<String, Integer> liveRunningByRole() {
        Map<String, Integer> m = new HashMap<>();
        for (Task t : running) if (!t.evicted) m.merge(t.pod.taskRole(), 1, Integer::sum);
        if (bound > 0) for (Task t : pending) if (t.bound) m.merge(t.pod.taskRole(), 1, Integer::sum);
        return m;
    }

    /**
     * How many of its pending tasks this cycle placed ({@link Task#place}; none as a cycle begins: a kept task's mark
     * is undone with the cycle that set it).
     */
    public int placedPending;

    /** Whether some pending task is not placed yet: asked of every starving job by every step, many times a cycle. */
    public boolean hasPending() {
        return pending.size() > placedPending;
    }

    /** What the job's live running members hold of queue shares. */
    public Resources heldShare() {
        Resources.Sum held = new Resources.Sum();
        for (Task t : running) if (!t.evicted) held.add(t.share());
        return held.toResources();
    }

    /**
     * What the job still needs to start: the shares of its next unplaced pending tasks, in task order, up to
     * {@code minMember} live members (at least one task). Example: a gang of 4 × 8 GPUs with nothing running needs
     * 32 GPUs; with 3 running, 8.
     */
    public Resources startNeed() {
        int k = Math.max(1, Math.max(1, minMember) - liveMembers());
        Resources.Sum need = new Resources.Sum();
        for (Task t : pending) {
            if (k == 0) break;
            if (t.placed) continue;
            need.add(t.share());
            k--;
        }
        return need.toResources();
    }

    /**
     * Its unplaced pending tasks ask nothing of queue shares (BestEffort pods, or pods without requests: only a pod
     * slot on a node), so no queue share or capability can hold them back.
     */
    public boolean bestEffort() {
        for (Task t : pending) if (!t.placed && !t.share().isEmpty()) return false;
        return true;
    }

    public void setReason(Refusal reason, String rule) {
        this.reason = reason;
        this.reasonRule = rule;
    }

    @Override
    public String toString() {
        return id;
    }
}
