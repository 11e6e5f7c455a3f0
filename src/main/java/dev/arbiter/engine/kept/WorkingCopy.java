package dev.arbiter.engine.kept;

import dev.arbiter.decision.ReasonWords;
import dev.arbiter.engine.victims.VictimMemory;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The working copy a scheduler keeps from cycle to cycle, brought up to date from the difference between snapshots
 * instead of indexed afresh. A snapshot shares the objects of what did not change, so the difference is by identity:
 * an unchanged pod keeps its {@link Task}, an unchanged PodGroup its {@link Job}, and a node whose bound pods are the
 * same keeps the usage they gave it; only what changed is worked out again (a new or changed pod's kind, node and job,
 * a changed node's usage, the minimum resources of a job whose tasks changed). What the last cycle did with them —
 * placements, evictions, held room, reasons, phases — is forgotten at the start of the next ({@code startCycle}; for
 * tasks, only those the cycle noted as changed, {@link WorkingCluster#touch}), so each cycle starts from the snapshot
 * alone, exactly as a fresh index would ({@code WorkingCopyTest} holds it to that over random sequences of changes, and
 * every spec runs both ways). A kept task or job keeps its priority while the rules' priorities stand, and the copy
 * tells the rules step what came and went (new tasks, the running tasks and jobs let go of, class names in use).
 *
 * <p>Nodes are kept while the snapshot's node list is the same (a change to any node indexes the whole snapshot
 * afresh, as does input no real cluster gives: one pod object listed twice, two PodGroups of one name, a pod's
 * implicit job named like a PodGroup). A failed cycle drops the copy ({@link #drop}): the next one starts afresh.
 *
 * <p>Cycles of one copy must not overlap; the cycle's objects are the copy's, valid until its next cycle begins.
 */
public final class WorkingCopy {
    private final Set<String> schedulerNames;
    private final Set<String> ignoredResources;

    /** The node list the kept nodes were made from (null: nothing kept), and what was made of it. */
    private List<NodeSpec> nodeSpecs;
    private List<NodeState> nodes;
    private Map<String, NodeState> nodesByName;
    private Resources clusterTotal;
    /** What the node fitter works out from the kept nodes alone (labels, taints, eligible nodes per constraints). */
    private NodeFitter.Statics fitterStatics;
    /** The working cluster this copy last brought up to date (its nodes are those {@link #fitterStatics} describes). */
    private WorkingCluster lastUpdated;

    /**
     * What the node fitter worked out from {@code s}'s very nodes in an earlier cycle, when {@code s} is the cluster
     * this copy last brought up to date; else null (a cluster indexed afresh starts its fitter afresh).
     */
    public NodeFitter.Statics fitterStatics(WorkingCluster s) {
        return s != null && s == lastUpdated ? fitterStatics : null;
    }
    /** The jobs of the last snapshot's PodGroups, by PodGroup object. */
    private final IdentityHashMap<PodGroupSpec, Job> jobs = new IdentityHashMap<>();
    /** What each pod of the last snapshot was to its cycle, by pod object. */
    private final IdentityHashMap<PodSpec, Entry> pods = new IdentityHashMap<>();
    /** The last snapshot's pods, and what each was, in its order; and those of ours that found no job. */
    private PodSpec[] prevPods = new PodSpec[0];
    private Entry[] prevEntries = new Entry[0];
    private List<Entry> jobless = List.of();
    /** The last cycle's queues: their job lists are in that cycle's job order. */
    private Map<String, QueueState> lastQueues = Map.of();
    /** Pods bound to a known node, kept up to date (the cycle's {@link WorkingCluster#boundPods}). */
    private final IdentityHashMap<PodSpec, NodeState> boundPods = new IdentityHashMap<>();
    /** How many kept tasks have each priority class name (null for none): the rules look each name up. */
    private final Names classNames = new Names();
    /** How many kept PodGroups' jobs have each priority class name. */
    private final Names jobClassNames = new Names();
    /**
     * The kept running tasks by pod key, and how many there are: the map has them all while no two share a key (two
     * pod objects of one name, one of them on its way out, may overlap for a walk).
     */
    private final HashMap<String, Task> runningById = new HashMap<>();
    private int runningTasks;
    /**
     * The last cycle's working copy: its tasks took the classes' priorities it records, and it lists the tasks whose
     * cycle fields it changed (undone before the next).
     */
    private WorkingCluster last;
    /** Renewed whenever the copy starts over: what was kept of an earlier epoch is gone. */
    private Object epoch = new Object();
    /** The running tasks and the jobs this cycle's walk let go of. */
    private List<Task> goneRunning;
    private List<Job> goneJobs;
    private int cycle;
    /**
     * The serials of the PodGroups' jobs whose members changed this cycle (new jobs too): the walk files a kept pod
     * in its job's lists only for those, and need not look at the job of any other. Serials of retired jobs are
     * given out again.
     */
    private final BitSet changedSerials = new BitSet();
    /** What it remembers of each of its jobs, by the jobs' serials (which it hands out). */
    private final KeptJobs kept = new KeptJobs();
    /** The words of the refusals of the last two cycles: a parked job keeps its refusal, and its words with it. */
    private final ReasonWords words = new ReasonWords();

    /** The words of refusals, kept across cycles; each cycle's status step calls {@link ReasonWords#nextCycle} once. */
    public ReasonWords reasonWords() {
        return words;
    }

    /**
     * What this copy remembers of {@code j} across cycles: its parking and eviction shape (for the cycle's steps); null
     * when {@code j} is not one of its jobs (a job of a snapshot it indexed afresh instead of keeping it).
     */
    public KeptJob kept(Job j) {
        return kept.of(j);
    }

    /** What indexing found a pod to be; see {@link WorkingCluster#kindOf}. */
    private static final class Entry {
        final PodSpec pod;
        final byte kind;
        /** Its node, when bound to a known one. */
        final NodeState node;
        /** Its task (kind {@link WorkingCluster#OURS} with a job), else null. */
        final Task task;
        final boolean placement;
        /** The last cycle that filed it, and its place in that snapshot's list. */
        int seen;
        int pos;
        /** The cycle whose walk made it (a pod new to the walk and listed twice is found made twice). */
        int taken;
        /** Its task's job is a pod's implicit one; else that job's {@link Job#serial} (-1: no task, or implicit). */
        final boolean implicit;
        final int jobSerial;

        Entry(PodSpec pod, byte kind, NodeState node, Task task) {
            this.pod = pod;
            this.kind = kind;
            this.node = node;
            this.task = task;
            this.placement = pod.placement() != Placement.NONE;
            this.implicit = task != null && task.job.implicit;
            this.jobSerial = task == null || implicit ? -1 : task.job.serial;
        }
    }

    /** Names counted as they come and go (null is a name: no priority class); those in use are the keys. */
    private static final class Names {
        private final HashMap<String, int[]> counts = new HashMap<>();

        void add(String name) {
            counts.computeIfAbsent(name, k -> new int[1])[0]++;
        }

        void remove(String name) {
            if (--counts.get(name)[0] == 0) counts.remove(name);
        }

        Set<String> inUse() {
            return counts.keySet();
        }

        void clear() {
            counts.clear();
        }
    }

    /** A kind for pods that never enter a cycle ({@link WorkingCluster#gone}). */
    private static final byte GONE = WorkingCluster.GONE;

    public WorkingCopy(Set<String> schedulerNames, Set<String> ignoredResources) {
        this.schedulerNames = schedulerNames;
        this.ignoredResources = ignoredResources;
    }

    /** True when it holds a cycle's state (nothing was dropped since). */
    public boolean holdsState() {
        return nodeSpecs != null;
    }

    /** Forgets everything: the next cycle indexes its snapshot afresh. */
    public void drop() {
        nodeSpecs = null;
        nodes = null;
        nodesByName = null;
        fitterStatics = null;
        lastUpdated = null;
        jobs.clear();
        pods.clear();
        boundPods.clear();
        classNames.clear();
        jobClassNames.clear();
        runningById.clear();
        runningTasks = 0;
        changedSerials.clear();
        kept.clear();
        last = null;
        epoch = new Object();
        prevPods = new PodSpec[0];
        prevEntries = new Entry[0];
        jobless = List.of();
        lastQueues = Map.of();
        parking = null;
        victimMemory = null;
    }

    /** What the last cycle's parking was decided against ({@code CycleWork#parkingSignature}); null: nothing parked. */
    private Object parking;
    /** How many jobs the last cycle passed over as parked (for tests and benchmarks). */
    private int parkedPassed;
    /** What the last cycle's victim search left for the next ({@link VictimMemory}); null: nothing. */
    private VictimMemory victimMemory;
    /** How many victim searches of the last cycle started from the cycle before's victim nodes (tests, benchmarks). */
    private int victimRecalls;

    /** What the last cycle's parking was decided against; null: nothing parked. */
    public Object parking() {
        return parking;
    }

    /** Records what this cycle's parking was decided against (null: nothing parked) and how many jobs it passed. */
    public void parked(Object signature, int passed) {
        parking = signature;
        parkedPassed = passed;
    }

    public int parkedPassed() {
        return parkedPassed;
    }

    /** What the last cycle's victim search left for the next; null: nothing. */
    public VictimMemory victimMemory() {
        return victimMemory;
    }

    /** Keeps what this cycle's victim search left for the next, and how many searches started from the last one's. */
    public void rememberVictims(VictimMemory memory, int recalls) {
        victimMemory = memory;
        victimRecalls = recalls;
    }

    public int victimRecalls() {
        return victimRecalls;
    }

    /** The working copy of {@code snap}: the last one brought up to date, or (nothing kept) one made afresh. */
    public WorkingCluster next(ClusterSnapshot snap) {
        cycle++;
        if (nodeSpecs == null || !sameNodes(snap.nodes())) keepNodes(snap.nodes());
        WorkingCluster s = update(snap);
        if (s != null) return s;
        // Input no real cluster gives (see the class comment): index it afresh, and keep nothing of it.
        drop();
        return WorkingCluster.index(snap, schedulerNames, ignoredResources);
    }

    private boolean sameNodes(List<NodeSpec> now) {
        if (now == nodeSpecs) return true;
        if (now.size() != nodeSpecs.size()) return false;
        for (int i = 0; i < now.size(); i++) if (now.get(i) != nodeSpecs.get(i)) return false;
        return true;
    }

    /** New nodes, and so nothing else kept: every task and bound pod refers to its node. */
    private void keepNodes(List<NodeSpec> specs) {
        drop();
        nodeSpecs = specs;
        nodes = new ArrayList<>(specs.size());
        nodesByName = new HashMap<>();
        clusterTotal = Resources.NONE;
        for (NodeSpec n : specs) {
            NodeState ns = new NodeState(n, nodes.size());
            nodes.add(ns);
            nodesByName.put(n.name(), ns);
            if (!n.unschedulable()) clusterTotal = clusterTotal.add(n.allocatable());
        }
    }

    /** The snapshot's working copy made from the kept one, or null for input it cannot keep. */
    private WorkingCluster update(ClusterSnapshot snap) {
        WorkingCluster s = new WorkingCluster(snap, ignoredResources, boundPods);
        s.nodes.addAll(nodes);
        s.nodesByName = nodesByName;
        s.clusterTotal = clusterTotal;
        if (fitterStatics == null) fitterStatics = new NodeFitter.Statics(nodes);
        fitterStatics.sweep();
        lastUpdated = s;
        s.indexQueues(snap.queues());
        s.newTasks = new ArrayList<>();
        s.copyEpoch = epoch;
        s.copyCycle = cycle;
        s.goneRunning = goneRunning = new ArrayList<>();
        s.goneJobs = goneJobs = new ArrayList<>();
        s.taskClassNames = classNames.inUse();
        s.keptPriorities = last == null ? null : last.priorities;
        s.keptFromPods = last == null ? null : last.fromPods;
        s.jobClassNames = jobClassNames.inUse();
        if (last != null) for (Task t : last.touched) t.startCycle();
        last = null; // not to hold two cycles' states at once
        List<Job> changedJobs = new ArrayList<>();

        // PodGroups: an unchanged one keeps its job; a changed or gone one's job is retired, and its tasks with it.
        for (PodGroupSpec pg : snap.podGroups()) {
            Job j = jobs.get(pg);
            KeptJob k;
            if (j == null) { // a new job: its tasks are all new, and join it (membersChanged starts true)
                j = new Job(pg, false, kept.newSerial());
                k = kept.add(j);
                changedSerials.set(j.serial);
                jobs.put(pg, j);
                jobClassNames.add(j.priorityClassName);
            } else {
                k = kept.of(j);
            }
            if (k.lastSeen == cycle) return null; // the same object twice
            k.lastSeen = cycle;
            j.startCycle();
            if (s.jobs.put(j.id, j) != null) return null; // two PodGroups of one name
        }
        BitSet stale = new BitSet(prevPods.length);
        for (Iterator<Job> it = jobs.values().iterator(); it.hasNext(); ) {
            Job j = it.next();
            if (kept.of(j).lastSeen == cycle) continue;
            it.remove();
            goneJobs.add(j);
            kept.remove(j);
            jobClassNames.remove(j.priorityClassName);
            for (Task t : j.running) unkeep(pods.get(t.pod), stale);
            for (Task t : j.pending) unkeep(pods.get(t.pod), stale);
        }
        // A pod whose PodGroup was missing is filed again when it appears.
        for (Entry e : jobless) if (s.jobs.containsKey(e.pod.jobId())) unkeep(e, stale);

        // Pods, by walking both lists: where the last snapshot's pod is the same object at the same place (most of
        // them), it is what it was; the rest are new, changed (a new object), moved (filed again), or gone.
        List<PodSpec> list = snap.pods();
        Entry[] entries = new Entry[list.size()];
        int j = 0;
        for (int i = 0; i < entries.length; i++) {
            PodSpec p = list.get(i);
            while (j < prevPods.length && stale.get(j)) j++;
            Entry e = null;
            if (j < prevPods.length && prevPods[j] == p) {
                e = prevEntries[j++];
            } else if (pods.containsKey(p)) {
                // Kept further on (those in between are gone), or moved: then it is filed again here.
                int k = j;
                while (k < prevPods.length && k - j < LOOK_AHEAD && (prevPods[k] != p || stale.get(k))) k++;
                if (k < prevPods.length && prevPods[k] == p && !stale.get(k)) {
                    for (; j < k; j++) if (!stale.get(j)) gone(prevEntries[j], changedJobs);
                    e = prevEntries[j++];
                } else {
                    Entry moved = pods.get(p);
                    // Listed twice: taken earlier in this walk (a pod new to it, too), or kept at a place passed.
                    if (moved.taken == cycle || moved.pos < j) return null;
                    stale.set(moved.pos);
                    gone(moved, changedJobs);
                }
            }
            if (e == null) {
                e = entryFor(p, s, changedJobs);
                e.taken = cycle;
                pods.put(p, e);
                if (e.node != null) {
                    e.node.recount = true;
                    boundPods.put(p, e.node);
                }
            }
            // A kept entry is taken at its place, which the walk then passes: listed again, the pod is found kept at
            // a place passed (above). So only a new entry needs its mark, and a kept one is not even looked at here.
            entries[i] = e;
        }
        for (; j < prevPods.length; j++) if (!stale.get(j)) gone(prevEntries[j], changedJobs);
        for (Job c : changedJobs) {
            c.pending.clear();
            c.running.clear();
        }
        // The implicit jobs whose pod went are retired with it (a retired PodGroup's job went above).
        for (Job g : goneJobs) if (g.implicit) kept.remove(g);

        // Every node starts from its bound pods' usage (counted again where they changed) and keeps its tasks (filed
        // again where they changed); each job whose tasks changed files them again; then every pod, in order.
        for (NodeState n : nodes) n.startCycle();
        s.tasks.ensureCapacity(entries.length);
        List<Entry> nowJobless = new ArrayList<>();
        for (int i = 0; i < entries.length; i++) {
            Entry e = entries[i];
            if (e.seen == cycle) return null; // listed twice
            e.seen = cycle;
            e.pos = i;
            if (e.placement) s.podsWithPlacement.add(e.pod);
            if (e.kind == GONE) continue;
            NodeState n = e.node;
            if (n != null && n.recount) WorkingCluster.countOnNode(e.pod, e.kind, n);
            if (e.kind != WorkingCluster.OURS) continue;
            Task t = e.task;
            if (t == null) {
                if (!e.pod.isBound()) s.orphans.add(e.pod);
                nowJobless.add(e);
                continue;
            }
            s.tasks.add(t);
            if (n != null && n.recount) n.tasks.add(t);
            if (e.implicit) {
                Job job = t.job;
                KeptJob k = kept.of(job);
                job.startCycle();
                k.lastSeen = cycle;
                if (s.jobs.put(job.id, job) != null) return null; // an implicit job named like another job
                if (k.membersChanged) (n != null ? job.running : job.pending).add(t);
            } else if (changedSerials.get(e.jobSerial)) { // (the job's membersChanged, read without reading the job)
                Job job = t.job;
                (n != null ? job.running : job.pending).add(t);
            }
        }
        changedSerials.clear();
        s.recounted = new BitSet(nodes.size());
        for (NodeState n : nodes) {
            if (n.recount) {
                n.boundPodsCounted();
                n.keepBase();
                s.recounted.set(n.index);
            }
        }
        boolean newRunning = false;
        for (Task t : s.newTasks) newRunning |= t.running();
        s.runningUnchanged = s.recounted.isEmpty() && !newRunning && goneRunning.isEmpty();
        // A pod that found no job must find none among the implicit jobs either (a fresh index could file it there).
        for (Entry e : nowJobless) if (s.jobs.containsKey(e.pod.jobId())) return null;
        jobless = nowJobless;
        prevPods = list.toArray(new PodSpec[0]);
        prevEntries = entries;
        finish(s, snap.nominations());
        s.runningById = runningById.size() == runningTasks ? runningById : null;
        lastQueues = s.queues;
        last = s;
        return s;
    }

    /**
     * The cycle's last steps, once every pod is in, as a fresh index takes them ({@link WorkingCluster#index}) but
     * reusing what it remembers: room held for nominated tasks; for each job, whether its tasks are those of the last
     * cycle (if not, what was worked out from them is forgotten), its minimum resources (derived again only when its
     * tasks changed), and its queue's list. Each queue lists its jobs in the last cycle's job order first (the order is
     * total, so sorting them comes to the same; nearly sorted already, they sort faster).
     */
    private void finish(WorkingCluster s, Map<String, String> nominations) {
        s.holdNominatedRoom(nominations);
        for (QueueState q : s.queues.values()) {
            QueueState was = lastQueues.get(q.name());
            if (was == null) continue;
            for (Job j : was.jobs) {
                KeptJob k = kept.of(j);
                if (k != null && k.lastSeen == cycle && k.filed != cycle) {
                    q.jobs.add(j);
                    k.filed = cycle;
                    j.queueState = q;
                }
            }
        }
        for (Job j : s.jobs.values()) {
            KeptJob k = kept.of(j);
            k.sameTasks = !k.membersChanged;
            if (!k.sameTasks) {
                j.tasksChanged();
                k.tasksChanged();
                s.jobsWithNewTasks.add(j);
            }
            if (j.minResources == null) {
                if (!k.sameTasks || k.derivedMinResources == null) k.derivedMinResources = WorkingCluster.derivedMinResources(j);
                j.minResources = k.derivedMinResources;
            }
            k.membersChanged = false;
            if (k.filed != cycle) s.file(j);
        }
    }

    /** How far ahead the walk looks for a kept pod before it takes it for moved. */
    private static final int LOOK_AHEAD = 64;

    /** A kept pod is to be filed again (its job was retired, or its missing PodGroup appeared). */
    private void unkeep(Entry e, BitSet stale) {
        if (e == null || stale.get(e.pos)) return;
        stale.set(e.pos);
        forget(e);
        pods.remove(e.pod);
    }

    /** A kept pod is no longer in the snapshot (or no longer where it was): its job's tasks changed. */
    private void gone(Entry e, List<Job> changedJobs) {
        forget(e);
        pods.remove(e.pod);
        if (e.task != null) changed(e.task.job, changedJobs);
    }

    private void changed(Job j, List<Job> changedJobs) {
        KeptJob k = kept.of(j);
        if (!k.membersChanged) {
            k.membersChanged = true;
            changedJobs.add(j);
            if (!j.implicit) changedSerials.set(j.serial);
        }
    }

    /** A pod leaves the copy: its node counts its bound pods again. */
    private void forget(Entry e) {
        if (e.node != null) {
            e.node.recount = true;
            boundPods.remove(e.pod);
        }
        if (e.task != null) {
            classNames.remove(e.task.priorityClassName);
            if (e.task.job.implicit) goneJobs.add(e.task.job);
            if (e.task.running()) {
                runningTasks--;
                runningById.remove(e.task.id(), e.task);
                goneRunning.add(e.task);
            }
        }
    }

    /** What a new or changed pod is, as {@link WorkingCluster#index} would file it (a new task joins its job). */
    private Entry entryFor(PodSpec p, WorkingCluster s, List<Job> changedJobs) {
        if (p.finished()) return new Entry(p, GONE, null, null);
        NodeState node = p.isBound() ? nodesByName.get(p.nodeName()) : null;
        byte kind = WorkingCluster.kindOf(p, node, schedulerNames);
        if (kind != WorkingCluster.OURS) return new Entry(p, kind, node, null);
        Job job = s.jobFor(p, kept::newSerial);
        if (job == null) return new Entry(p, kind, node, null);
        if (job.implicit) kept.add(job); // (a new one: its tasks are all new, membersChanged starts true)
        changed(job, changedJobs);
        Task t = new Task(p, job, node, ignoredResources);
        s.newTasks.add(t);
        classNames.add(t.priorityClassName);
        if (t.running()) {
            runningTasks++;
            runningById.put(t.id(), t);
        }
        return new Entry(p, kind, node, t);
    }
}
