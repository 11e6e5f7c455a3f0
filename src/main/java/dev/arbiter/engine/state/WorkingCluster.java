package dev.arbiter.engine.state;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mutable working copy of one cycle, indexed from an immutable snapshot: nodes with their usage, jobs with
 * their tasks, queues with their jobs. Only the scheduler's own phases change it; the snapshot is never touched.
 */
public final class WorkingCluster {
    public final List<NodeState> nodes = new ArrayList<>();
    public Map<String, NodeState> nodesByName = new HashMap<>();
    public final Map<String, Job> jobs = new LinkedHashMap<>();
    public final Map<String, QueueState> queues = new LinkedHashMap<>();
    public final ArrayList<Task> tasks = new ArrayList<>();
    /** Pending pods whose group-name annotation names a PodGroup that does not exist. */
    public final List<PodSpec> orphans = new ArrayList<>();
    public Resources clusterTotal = Resources.NONE;
    /** The snapshot's clock, in seconds. */
    public long now;
    public Resources guaranteed = Resources.NONE;
    /**
     * The pods of the snapshot that state placement rules (any state: a pod's required anti-affinity binds others while it
     * runs), and the pods bound to a known node (of every scheduler, terminating ones too).
     */
    public final List<PodSpec> podsWithPlacement = new ArrayList<>();
    public final Map<PodSpec, NodeState> boundPods;
    /** The labels of a namespace (pod affinity terms select namespaces by label). */
    public java.util.function.Function<String, Map<String, String>> namespaceLabels = ns -> Map.of();
    /** Volcano's HyperNodes: network domains (see {@link NetworkDomains}). */
    public List<dev.arbiter.model.HyperNodeSpec> hyperNodes = List.of();

    /** Resources left out of queue shares (the policy's {@code shares.ignoredResources}). */
    final Set<String> ignoredResources;

    private static final java.util.concurrent.atomic.AtomicInteger STAMPS = new java.util.concurrent.atomic.AtomicInteger();
    /** This state's own number, for {@link #touch}. */
    private final int stamp = STAMPS.incrementAndGet();
    /**
     * The tasks this cycle placed, evicted, held room for or protected: what a kept working copy undoes before the
     * next cycle ({@link Task#startCycle}), instead of going over every task.
     */
    public final List<Task> touched = new ArrayList<>();

    /** Notes that this cycle changed what it does with {@code t} (every writer of a task's cycle fields calls it). */
    public void touch(Task t) {
        if (t.touchedBy != stamp) {
            t.touchedBy = stamp;
            touched.add(t);
        }
    }

    /**
     * What a kept working copy ({@link WorkingCopy}) carries over for the rules' priorities; a fresh index leaves them
     * null, and every task is looked at. {@code newTasks}: the tasks made this cycle (the others were in the last
     * one). {@code keptPriorities}: the classes' decided priorities the kept tasks took last cycle. {@code
     * taskClassNames}: the priority class names of every task.
     */
    public List<Task> newTasks;
    public Map<String, Object> keptPriorities;
    public Set<String> taskClassNames;
    /**
     * The kept working copy this state is (its epoch, which a drop renews, and its cycle), and the running tasks it
     * let go of since its last cycle; a fresh index leaves them null.
     */
    public Object copyEpoch;
    public int copyCycle;
    public List<Task> goneRunning;
    /** The jobs of the copy's last cycle it let go of (retired PodGroups' jobs, and implicit jobs whose pod went). */
    public List<Job> goneJobs;
    /** Every running task by its pod's key, when a kept working copy has them so ({@link WorkingCopy}); else null. */
    public Map<String, Task> runningById;
    /**
     * Also from a kept copy: the rules' answer on priorities from pods the kept jobs took ({@code keptFromPods}, when
     * there were {@code keptPriorities}), and the priority class names of its PodGroups' jobs (an implicit job's is its
     * one task's).
     */
    public dev.arbiter.facts.PriorityFromPods keptFromPods;
    public Set<String> jobClassNames;
    /** The jobs whose tasks are not those of the last cycle (every job of a fresh index). */
    public final List<Job> jobsWithNewTasks = new ArrayList<>();
    /** The classes' decided priorities this cycle's tasks took ({@code PolicyEvaluation}), for the next cycle. */
    public Map<String, Object> priorities;
    /** The rules' answer on priorities from pods this cycle's jobs took, for the next cycle. */
    public dev.arbiter.facts.PriorityFromPods fromPods;
    /** True when every job kept with the same tasks kept its priority too ({@code PolicyEvaluation}). */
    public boolean sameJobPriorities;
    /**
     * True when every task kept from the last cycle kept its priority too (the classes' priorities did not change):
     * a job whose tasks are the same keeps its task order.
     */
    public boolean samePriorities;
    /**
     * True when a kept working copy found the running world as it was in its last cycle: no bound pod came, went or
     * changed on any node (so no node's usage changed), and no running task came or went. Only pending pods and what
     * the rest of the snapshot holds may differ ({@link CycleWork#staysParked}).
     */
    public boolean runningUnchanged;
    /**
     * From a kept working copy: the nodes whose bound pods it counted again (their tasks may be others than in its last
     * cycle); null for a fresh index.
     */
    public java.util.BitSet recounted;

    /** A working copy of {@code snap} with no nodes, queues, jobs or pods yet. */
    public WorkingCluster(ClusterSnapshot snap, Set<String> ignoredResources, Map<PodSpec, NodeState> boundPods) {
        this.ignoredResources = ignoredResources;
        this.boundPods = boundPods;
        this.now = snap.now();
        this.namespaceLabels = snap::labelsOfNamespace;
        this.hyperNodes = snap.hyperNodes();
    }

    /** A new working copy of {@code snap}, every object made afresh ({@link WorkingCopy} keeps one across cycles). */
    public static WorkingCluster index(ClusterSnapshot snap, Set<String> schedulerNames, Set<String> ignoredResources) {
        WorkingCluster s = new WorkingCluster(snap, ignoredResources, new java.util.IdentityHashMap<>());
        for (NodeSpec n : snap.nodes()) {
            NodeState ns = new NodeState(n, s.nodes.size());
            s.nodes.add(ns);
            s.nodesByName.put(n.name(), ns);
            if (!n.unschedulable()) s.clusterTotal = s.clusterTotal.add(n.allocatable());
        }
        s.indexQueues(snap.queues());
        for (PodGroupSpec pg : snap.podGroups()) {
            Job j = new Job(pg, false);
            s.jobs.put(j.id, j);
        }
        s.tasks.ensureCapacity(snap.pods().size());
        for (PodSpec p : snap.pods()) {
            if (p.placement() != Placement.NONE) s.podsWithPlacement.add(p);
            s.addPod(p, schedulerNames);
        }
        for (NodeState n : s.nodes) n.boundPodsCounted();
        s.finish(snap.nominations());
        return s;
    }

    /** The queues, linked into their tree, with their guarantees (the nodes are indexed: they bound guarantees). */
    public void indexQueues(List<QueueSpec> specs) {
        for (QueueSpec q : specs) {
            if (q.name().equals(QueueSpec.ROOT)) continue; // the implicit root of the tree, owning the cluster
            queues.put(q.name(), new QueueState(q));
        }
        linkTree();
        fitGuaranteesToCluster();
        for (QueueState q : queues.values()) q.effectiveGuarantee = effectiveGuarantee(q);
        for (QueueState q : queues.values()) if (q.parent == null) guaranteed = guaranteed.add(q.effectiveGuarantee);
    }

    /**
     * The last steps, once every pod is in: room held for nominated tasks, minimum resources derived for the jobs
     * without, and each queue's jobs. (A kept working copy finishes its cycles its own way, reusing what it worked out
     * of the jobs whose tasks stayed the same: {@code WorkingCopy}.)
     */
    private void finish(Map<String, String> nominations) {
        holdNominatedRoom(nominations);
        for (Job j : jobs.values()) {
            jobsWithNewTasks.add(j);
            if (j.minResources == null) j.minResources = derivedMinResources(j);
            file(j);
        }
    }

    /** Files the job in its queue's list (it has no queue when the queue does not exist). */
    public void file(Job j) {
        QueueState q = queues.get(j.queue);
        j.queueState = q;
        if (q != null) q.jobs.add(j);
    }

    /**
     * Whether the job's tasks are the very ones of the last cycle (a kept working copy's job whose tasks stayed the
     * same): what was worked out from them then still holds. Never for a fresh index's. Asked of a few jobs a cycle:
     * {@link #jobsWithNewTasks} lists the others, for whoever goes over every job.
     */
    public boolean sameTasks(Job j) {
        if (newTasks == null) return false;
        if (withNewTasks == null) {
            withNewTasks = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>(jobsWithNewTasks.size()));
            withNewTasks.addAll(jobsWithNewTasks);
        }
        return !withNewTasks.contains(j);
    }

    /** {@link #jobsWithNewTasks} as a set, once {@link #sameTasks} is asked. */
    private Set<Job> withNewTasks;

    /**
     * Links each queue to its parent ({@code spec.parent}, unset = root). A queue naming an unknown parent, a queue
     * on a cycle, a queue deeper than {@link #MAX_DEPTH}, and every queue below any of these are cut loose from the tree (treated as children of the root) and
     * marked with a {@code treeError}: they are treated as Closed, never crash the cycle.
     */
    /** The deepest queue tree served; a queue below is treated as a queue with an invalid parent. */
    static final int MAX_DEPTH = 64;

    private void linkTree() {
        for (QueueState q : queues.values()) {
            String parentName = q.spec.parentOrRoot();
            if (parentName.equals(QueueSpec.ROOT)) continue;
            QueueState p = queues.get(parentName);
            if (p == null) q.treeError = "parent queue \"" + parentName + "\" does not exist";
            else q.parent = p;
        }
        for (QueueState q : queues.values()) {
            List<String> path = new ArrayList<>();
            java.util.Set<QueueState> seen = new java.util.HashSet<>();
            for (QueueState x = q; x != null; x = x.parent) {
                if (!seen.add(x)) {
                    int from = path.indexOf(x.name());
                    String cycle = String.join(" -> ", path.subList(from, path.size())) + " -> " + x.name();
                    for (String name : path.subList(from, path.size())) queues.get(name).treeError = "queue tree has a cycle: " + cycle;
                    break;
                }
                path.add(x.name());
            }
        }
        for (QueueState q : queues.values()) if (q.treeError != null) q.parent = null;
        // A chain of thousands of queues would overflow the stack of the fair-share recursion: every queue past the
        // limit is cut loose with the reason (the walk up stops at the limit, so this is at most n x 64 steps).
        for (QueueState q : queues.values()) {
            int d = 1;
            for (QueueState a = q.parent; a != null && d <= MAX_DEPTH; a = a.parent) d++;
            if (d > MAX_DEPTH && q.treeError == null) {
                q.treeError = "queue tree deeper than " + MAX_DEPTH + " levels (spec.parent); queues this deep are not supported";
            }
        }
        for (QueueState q : queues.values()) {
            for (QueueState a = q.parent; a != null; a = a.parent) {
                if (a.treeError != null && q.treeError == null) q.treeError = "ancestor queue \"" + a.name() + "\" is invalid";
            }
        }
        for (QueueState q : queues.values()) {
            if (q.treeError != null) q.parent = null;
            else if (q.parent != null) q.parent.children.add(q);
        }
        for (QueueState q : queues.values()) {
            int d = 1;
            for (QueueState a = q.parent; a != null; a = a.parent) d++;
            q.depth = d;
        }
    }

    /** Holds each nominated pending task's request on its node, out of everyone else's reach. */
    public void holdNominatedRoom(Map<String, String> nominations) {
        if (nominations.isEmpty()) return;
        for (Task t : tasks) {
            String node = t.running() ? null : nominations.get(t.id());
            NodeState n = node == null ? null : nodesByName.get(node);
            if (n != null && t.request().fitsIn(n.free())) {
                n.take(t.request());
                t.nominated = n;
                t.holding = true;
                touch(t);
                t.job.nominated = true;
            }
        }
    }

    /** A queue reserves its own guarantee or, if larger, what its children's guarantees add up to. */
    Resources effectiveGuarantee(QueueState q) {
        Resources children = Resources.NONE;
        for (QueueState c : q.children) children = children.add(effectiveGuarantee(c));
        return q.guarantee.max(children);
    }

    /**
     * Guarantees that add up to more than the cluster cannot all be kept: in each resource where they do, every
     * queue's guarantee is scaled down by the same factor so that they fit, and the queue's status says so. (Kept
     * as written, one oversized guarantee would leave every other queue with nothing.)
     */
    private void fitGuaranteesToCluster() {
        Resources asked = Resources.NONE;
        for (QueueState q : queues.values()) if (q.parent == null) asked = asked.add(effectiveGuarantee(q));
        Resources over = asked.shortfall(clusterTotal);
        if (over.isEmpty()) return;
        for (QueueState q : queues.values()) {
            if (q.spec.guarantee().isEmpty()) continue;
            java.util.Map<String, Long> scaled = new java.util.TreeMap<>(q.spec.guarantee().asMilliMap());
            for (int i = 0; i < over.size(); i++) {
                String dim = over.name(i);
                Long g = scaled.get(dim);
                if (g == null) continue;
                scaled.put(dim, java.math.BigInteger.valueOf(g).multiply(java.math.BigInteger.valueOf(clusterTotal.milli(dim)))
                        .divide(java.math.BigInteger.valueOf(asked.milli(dim))).longValue());
            }
            q.guarantee = Resources.ofMilli(scaled);
            if (!q.guarantee.equals(q.spec.guarantee())) {
                q.note = "guarantee " + q.spec.guarantee() + " scaled down to " + q.guarantee
                        + ": the queues' guarantees add up to more than the cluster's " + clusterTotal.onlyDimensionsOf(over);
            }
        }
    }

    /** What a pod is to the cycle: gone (it succeeded or failed), ... */
    public static final byte GONE = 0;
    /** ... terminating (its node gets its room back once it is gone), ... */
    static final byte TERMINATING = 1;
    /** ... another scheduler's, or bound to a node the snapshot does not have (it only takes room), ... */
    static final byte OTHERS = 2;
    /** ... or this scheduler's: a task, when it has a job. */
    public static final byte OURS = 3;

    /** The kind of a pod that is not {@link #gone}, bound to {@code node} (null: unbound, or an unknown node). */
    public static byte kindOf(PodSpec p, NodeState node, Set<String> schedulerNames) {
        if (p.terminating()) return TERMINATING;
        if (!schedulerNames.contains(p.schedulerName()) || (p.isBound() && node == null)) return OTHERS;
        return OURS;
    }

    /** Counts a bound pod's request on its node (a terminating pod's as room the node gets back). */
    public static void countOnNode(PodSpec p, byte kind, NodeState node) {
        if (node == null) return;
        if (kind == TERMINATING) node.releaseBound(p.requests());
        else node.takeBound(p.requests());
    }

    private void addPod(PodSpec p, Set<String> schedulerNames) {
        if (p.finished()) return;
        NodeState node = p.isBound() ? nodesByName.get(p.nodeName()) : null;
        if (node != null) boundPods.put(p, node);
        byte kind = kindOf(p, node, schedulerNames);
        countOnNode(p, kind, node);
        if (kind != OURS) return;
        Job job = jobFor(p);
        if (job == null) {
            if (!p.isBound()) orphans.add(p);
            return;
        }
        if (job.implicit) jobs.put(job.id, job);
        addTask(new Task(p, job, node, ignoredResources));
    }

    /** Files a task with its job, and a running one on its node. */
    void addTask(Task t) {
        tasks.add(t);
        if (t.node != null) {
            t.node.tasks.add(t);
            t.job.running.add(t);
        } else {
            t.job.pending.add(t);
        }
    }

    /**
     * The pod's PodGroup, or for a pod without one a new implicit gang of one (as Volcano's controller would make),
     * which the caller files among the jobs.
     */
    public Job jobFor(PodSpec p) {
        return jobFor(p, () -> -1);
    }

    /** {@link #jobFor(PodSpec)}, numbering a new implicit job with {@code serials} ({@link Job#serial}). */
    public Job jobFor(PodSpec p, java.util.function.IntSupplier serials) {
        String group = p.groupName();
        if (group != null) return jobs.get(p.jobId());
        String queue = p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
        PodGroupSpec implicit = new PodGroupSpec(p.namespace(), p.groupOrImplicit(), queue, 1, Map.of(), null,
                p.priorityClassName(), p.isBound() ? "Running" : "Pending", p.arrivalCycle(), p.creationOrder());
        return new Job(implicit, true, serials.getAsInt());
    }

    /** Without minResources, a job needs what its first minMember tasks request. */
    public static Resources derivedMinResources(Job j) {
        int size = j.running.size() + j.pending.size();
        if (size == 1 && j.minMember >= 1) return (j.running.isEmpty() ? j.pending : j.running).get(0).share();
        Resources.Sum r = new Resources.Sum();
        if (j.minMember >= size) {
            // Every task counts: no need to find the first ones.
            for (Task t : j.running) r.add(t.share());
            for (Task t : j.pending) r.add(t.share());
            return r.toResources();
        }
        List<Task> all = new ArrayList<>(size);
        all.addAll(j.running);
        all.addAll(j.pending);
        all.sort(java.util.Comparator.comparingLong(t -> t.creationOrder));
        for (int i = 0; i < j.minMember; i++) r.add(all.get(i).share());
        return r.toResources();
    }

    /**
     * Each queue's subtree totals: what its running tasks hold, what it asks for (running plus pending tasks, Volcano's
     * proportion request), and the minimum resources of its admitted jobs not yet allocated (reserved against
     * admission). One walk of each queue's jobs gives all three. (Summed job by job and then by child: shares are
     * never negative, so a sum that saturates does so however it is grouped, and these are the sums task by task.)
     */
    public Map<QueueState, QueueTotals> queueTotals() {
        Map<QueueState, QueueTotals> out = new HashMap<>();
        for (QueueState q : queues.values()) totals(q, out);
        return out;
    }

    public record QueueTotals(Resources allocated, Resources request, Resources inqueue) {}

    private static QueueTotals totals(QueueState q, Map<QueueState, QueueTotals> out) {
        QueueTotals done = out.get(q);
        if (done != null) return done;
        Resources.Sum allocated = new Resources.Sum();
        Resources.Sum request = new Resources.Sum();
        Resources inqueue = Resources.NONE;
        for (Job j : q.jobs) {
            Resources running = j.runningShare();
            allocated.add(running);
            request.add(running);
            request.add(j.pendingShare());
            if ("Inqueue".equals(j.initialPhase)) inqueue = inqueue.add(j.minResources.subtract(running).clampNonNegative());
        }
        for (QueueState c : q.children) {
            QueueTotals t = totals(c, out);
            allocated.add(t.allocated());
            request.add(t.request());
            inqueue = inqueue.add(t.inqueue());
        }
        QueueTotals t = new QueueTotals(allocated.toResources(), request.toResources(), inqueue);
        out.put(q, t);
        return t;
    }
}
