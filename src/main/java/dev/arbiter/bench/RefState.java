package dev.arbiter.bench;

import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The reference scheduler's working copy of one snapshot: plain mutable objects, built in one pass, with every
 * policy value (priorities, preemption rights, protection) resolved directly from the specs — no rules.
 */
final class RefState {
    /** Not evicted at all: marked {@code volcano.sh/preemptable: "false"}. */
    static boolean shieldedFromPreemption(Task t) {
        return !t.preemptable;
    }

    /** Not reclaimed: shielded from preemption, or younger than the minimum runtime. */
    static boolean shieldedFromReclaim(Task t) {
        return !t.preemptable || (t.ranSeconds >= 0 && t.ranSeconds < MIN_RUNTIME_SECONDS);
    }

    static final class Node {
        final NodeSpec spec;
        final int index;
        Resources free;
        Resources releasing = Resources.NONE;
        final List<Task> tasks = new ArrayList<>();

        Node(NodeSpec spec, int index) {
            this.spec = spec;
            this.index = index;
            this.free = spec.allocatable();
        }
    }

    static final class Task {
        final PodSpec pod;
        final Job job;
        final Node node;
        /** What the pod asks of a node: its requests, including the {@code pods} slot. */
        final Resources req;
        /** What it counts for in its queue: its requests without the {@code pods} slot (a node limit, not a share). */
        final Resources share;
        /** Seconds it has run, or -1 when pending or unknown. */
        final long ranSeconds;
        final int priority;
        final boolean leader;
        final String role;
        final boolean preemptable;
        boolean evicted;
        /** Placed this cycle: bound, or held for a preemptor until its victims leave. */
        boolean placed;

        Task(PodSpec pod, Job job, Node node, int priority, long now) {
            this.pod = pod;
            this.job = job;
            this.node = node;
            this.req = pod.requests();
            this.share = req.without("pods");
            this.ranSeconds = node != null && pod.startedAt() != PodSpec.UNKNOWN_START ? Math.max(0, now - pod.startedAt()) : -1;
            this.priority = priority;
            this.leader = pod.isLeader();
            this.role = pod.taskRole();
            this.preemptable = pod.preemptableMarker();
        }

        String id() {
            return pod.key();
        }

        boolean running() {
            return node != null;
        }
    }

    static final class Job {
        final String id;
        final String queueName;
        final int minMember;
        final Map<String, Integer> minTaskMember;
        final String priorityClass;
        final long creation;
        final String initialPhase;
        final List<Task> pending = new ArrayList<>();
        final List<Task> running = new ArrayList<>();
        Resources minResources;
        int priority;
        boolean mayPreempt;
        String phase;
        boolean pipelined;
        int boundCount;

        Job(PodGroupSpec g) {
            this.id = g.key();
            this.queueName = g.queue();
            this.minMember = Math.max(0, g.minMember());
            this.minTaskMember = g.minTaskMember();
            this.priorityClass = g.priorityClassName();
            this.creation = g.creationOrder();
            this.initialPhase = g.phase() == null ? "Pending" : g.phase();
            this.phase = initialPhase;
            this.minResources = g.minResources();
        }

        boolean admitted() {
            return phase.equals("Inqueue") || phase.equals("Running");
        }

        /** Members running after this cycle: alive, plus bound this cycle. */
        int members() {
            return alive() + boundCount;
        }

        int alive() {
            int n = 0;
            for (Task t : running) if (!t.evicted) n++;
            return n;
        }

        int aliveInRole(String role) {
            int n = 0;
            for (Task t : running) if (!t.evicted && t.role.equals(role)) n++;
            return n;
        }

        /** Some pending task is not yet placed this cycle. */
        boolean wantsMore() {
            for (Task t : pending) if (!t.placed) return true;
            return false;
        }

        /** Every unplaced pending task asks nothing of queue shares (only a pod slot). */
        boolean bestEffort() {
            for (Task t : pending) if (!t.placed && !t.share.isEmpty()) return false;
            return true;
        }

        /** What the live running members hold. */
        Resources held() {
            Resources r = Resources.NONE;
            for (Task t : running) if (!t.evicted) r = r.add(t.share);
            return r;
        }

        /** The shares of the next unplaced pending tasks (task order) that would bring it to minMember (at least one). */
        Resources startNeed() {
            int k = Math.max(1, Math.max(1, minMember) - members());
            Resources r = Resources.NONE;
            for (Task t : pending) {
                if (k == 0) break;
                if (t.placed) continue;
                r = r.add(t.share);
                k--;
            }
            return r;
        }
    }

    static final class Queue {
        final QueueSpec spec;
        final boolean open;
        final List<Job> jobs = new ArrayList<>();
        Resources allocated = Resources.NONE;
        Resources request = Resources.NONE;
        Resources inqueue = Resources.NONE;
        Caps realCapability = Caps.UNLIMITED;
        Resources deserved = Resources.NONE;
        boolean overused;
        /** Allocated exceeds deserved in some resource: reclaim may take that back. */
        boolean aboveDeserved;
        /** Its guarantee, scaled down per resource when all guarantees together pass the cluster. */
        Resources guarantee;

        Queue(QueueSpec spec) {
            this.spec = spec;
            this.open = "Open".equals(spec.state());
            this.guarantee = spec.guarantee();
        }

        String name() {
            return spec.name();
        }

        double share() {
            return allocated.dominantShare(deserved);
        }

        /** The allocation covers {@code limit} in every dimension {@code limit} has. */
        boolean covers(Resources limit) {
            return limit.fitsIn(allocated);
        }
    }

    final List<Node> nodes = new ArrayList<>();
    final Map<String, Node> nodeByName = new HashMap<>();
    final Map<String, Job> jobs = new LinkedHashMap<>();
    final Map<String, Queue> queues = new LinkedHashMap<>();
    final List<Task> tasks = new ArrayList<>();
    Resources total = Resources.NONE;
    Resources guarantees = Resources.NONE;
    private final Map<String, PriorityClassSpec> classes = new HashMap<>();
    private PriorityClassSpec defaultClass;

    static final Comparator<Job> JOB_ORDER = Comparator.<Job>comparingInt(j -> -j.priority)
            .thenComparingLong(j -> j.creation).thenComparing(j -> j.id);
    static final Comparator<Task> TASK_ORDER = Comparator.<Task>comparingInt(t -> -t.priority)
            .thenComparing(t -> t.leader ? 0 : 1).thenComparingLong(t -> t.pod.creationOrder()).thenComparing(Task::id);
    static final Comparator<Queue> QUEUE_ORDER = Comparator.<Queue>comparingInt(q -> -q.spec.priority())
            .thenComparingDouble(Queue::share).thenComparing(Queue::name);

    /**
     * The shipped policy's numbers (rules/churn.drl): a pod younger than this is not reclaimed; eviction budgets per
     * cycle and per victim queue.
     */
    static final long MIN_RUNTIME_SECONDS = 60;
    static final int MAX_EVICTIONS_PER_CYCLE = 100;
    static final int MAX_EVICTIONS_PER_QUEUE = 20;

    long now;
    /** Every pod of the snapshot; those bound to a known node with their node (of every scheduler). */
    List<PodSpec> allPods = List.of();
    final List<PodSpec> boundPods = new ArrayList<>();
    final Map<PodSpec, Node> boundTo = new java.util.IdentityHashMap<>();
    java.util.function.Function<String, Map<String, String>> namespaceLabels = ns -> Map.of();
    /** Node label keys some pod's nodeSelector or node affinity reads; whether some pod names nodes. */
    final java.util.Set<String> selectedLabelKeys = new java.util.HashSet<>();
    boolean nodesNamed;

    static RefState of(ClusterSnapshot snap, Set<String> schedulerNames) {
        RefState s = new RefState();
        s.now = snap.now();
        s.allPods = snap.pods();
        s.namespaceLabels = snap::labelsOfNamespace;
        for (PodSpec p : snap.pods()) s.noteSelectedKeys(p);
        for (PriorityClassSpec pc : snap.priorityClasses()) {
            s.classes.putIfAbsent(pc.name(), pc);
            if (pc.globalDefault() && s.defaultClass == null) s.defaultClass = pc;
        }
        for (NodeSpec n : snap.nodes()) {
            Node node = new Node(n, s.nodes.size());
            s.nodes.add(node);
            s.nodeByName.put(n.name(), node);
            if (!n.unschedulable()) s.total = s.total.add(n.allocatable());
        }
        for (QueueSpec q : snap.queues()) {
            if (q.name().equals(QueueSpec.ROOT)) continue;
            if (!q.parentOrRoot().equals(QueueSpec.ROOT) || QueueSpec.FIFO.equals(q.dequeueStrategy()) || q.deserved() != null) {
                throw new UnsupportedOperationException("the reference models top-level traverse queues only; queue "
                        + q.name() + " has a parent, fifo dequeue or an explicit deserved share");
            }
            s.queues.put(q.name(), new Queue(q));
            s.guarantees = s.guarantees.add(q.guarantee());
        }
        s.scaleGuarantees();
        for (PodGroupSpec g : snap.podGroups()) s.jobs.put(g.key(), new Job(g));
        for (PodSpec p : snap.pods()) s.addPod(p, schedulerNames);
        for (Job j : s.jobs.values()) s.finish(j);
        return s;
    }

    /** Guarantees that add up to more than the cluster are scaled down, per resource, to fit it. */
    private void scaleGuarantees() {
        for (int i = 0; i < guarantees.size(); i++) {
            String dim = guarantees.name(i);
            long asked = guarantees.milliAt(i), have = total.milli(dim);
            if (asked <= have) continue;
            for (Queue q : queues.values()) {
                long g = q.guarantee.milli(dim);
                if (g == 0) continue;
                Map<String, Long> m = new HashMap<>(q.guarantee.asMilliMap());
                m.put(dim, java.math.BigInteger.valueOf(g).multiply(java.math.BigInteger.valueOf(have))
                        .divide(java.math.BigInteger.valueOf(asked)).longValue());
                q.guarantee = Resources.ofMilli(m);
            }
        }
        Resources sum = Resources.NONE;
        for (Queue q : queues.values()) sum = sum.add(q.guarantee);
        guarantees = sum;
    }

    private void noteSelectedKeys(PodSpec p) {
        selectedLabelKeys.addAll(p.nodeSelector().keySet());
        dev.arbiter.model.Placement.NodeAffinity a = p.placement().nodeAffinity();
        List<dev.arbiter.model.Placement.NodeSelectorTerm> terms = new ArrayList<>();
        if (a.required() != null) terms.addAll(a.required());
        for (dev.arbiter.model.Placement.WeightedNodeTerm w : a.preferred()) terms.add(w.term());
        for (dev.arbiter.model.Placement.NodeSelectorTerm t : terms) {
            for (dev.arbiter.model.Placement.NodeRequirement r : t.matchExpressions()) selectedLabelKeys.add(r.key());
            if (!t.matchFields().isEmpty()) nodesNamed = true;
        }
    }

    private void addPod(PodSpec p, Set<String> schedulerNames) {
        if (p.finished()) return;
        Node node = p.isBound() ? nodeByName.get(p.nodeName()) : null;
        if (node != null) {
            boundPods.add(p);
            boundTo.put(p, node);
        }
        if (node != null) node.free = node.free.subtract(p.requests());
        if (p.terminating()) {
            if (node != null) node.releasing = node.releasing.add(p.requests());
            return;
        }
        if (!schedulerNames.contains(p.schedulerName()) || (p.isBound() && node == null)) return;
        Job job;
        if (p.groupName() != null) {
            job = jobs.get(p.namespace() + "/" + p.groupName());
            if (job == null) return;
        } else {
            // A pod without a PodGroup is its own gang of one.
            job = new Job(new PodGroupSpec(p.namespace(), p.groupOrImplicit(),
                    p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT), 1, Map.of(), null,
                    p.priorityClassName(), p.isBound() ? "Running" : "Pending", p.arrivalCycle(), p.creationOrder()));
            jobs.put(job.id, job);
        }
        int priority = p.priority() != null ? p.priority() : classValue(p.priorityClassName());
        Task t = new Task(p, job, node, priority, now);
        tasks.add(t);
        if (node != null) {
            node.tasks.add(t);
            job.running.add(t);
        } else {
            job.pending.add(t);
        }
    }

    /** Priority, preemption right, minimum resources, queue membership and measured queue totals. */
    private void finish(Job j) {
        j.priority = classValue(j.priorityClass);
        // A PodGroup naming no class takes the highest priority of its pods.
        if (j.priorityClass == null && !(j.running.isEmpty() && j.pending.isEmpty())) {
            int max = Integer.MIN_VALUE;
            for (Task t : j.running) max = Math.max(max, t.priority);
            for (Task t : j.pending) max = Math.max(max, t.priority);
            j.priority = max;
        }
        PriorityClassSpec own = j.priorityClass == null ? null : classes.get(j.priorityClass);
        j.mayPreempt = own == null || !"Never".equals(own.preemptionPolicy());
        for (Task t : j.pending) if ("Never".equals(t.pod.preemptionPolicy())) j.mayPreempt = false;
        if (j.minResources == null) {
            List<Task> all = new ArrayList<>(j.running);
            all.addAll(j.pending);
            all.sort(Comparator.comparingLong(t -> t.pod.creationOrder()));
            Resources r = Resources.NONE;
            for (int i = 0; i < Math.min(j.minMember, all.size()); i++) r = r.add(all.get(i).share);
            j.minResources = r;
        }
        j.pending.sort(TASK_ORDER);
        Queue q = queues.get(j.queueName);
        if (q == null) return;
        q.jobs.add(j);
        Resources held = Resources.NONE;
        for (Task t : j.running) held = held.add(t.share);
        q.allocated = q.allocated.add(held);
        q.request = q.request.add(held);
        for (Task t : j.pending) q.request = q.request.add(t.share);
        if (j.initialPhase.equals("Inqueue")) q.inqueue = q.inqueue.add(j.minResources.subtract(held).clampNonNegative());
    }

    /** The value of the named class; the global default's for none; zero for an unknown class or no default. */
    private int classValue(String name) {
        if (name == null) return defaultClass == null ? 0 : defaultClass.value();
        PriorityClassSpec pc = classes.get(name);
        return pc == null ? 0 : pc.value();
    }
}
