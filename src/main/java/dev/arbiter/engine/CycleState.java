package dev.arbiter.engine;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
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
final class CycleState {
    final List<NodeState> nodes = new ArrayList<>();
    final Map<String, NodeState> nodesByName = new HashMap<>();
    final Map<String, Job> jobs = new LinkedHashMap<>();
    final Map<String, QueueState> queues = new LinkedHashMap<>();
    final List<Task> tasks = new ArrayList<>();
    /** Pending pods whose group-name annotation names a PodGroup that does not exist. */
    final List<PodSpec> orphans = new ArrayList<>();
    Resources clusterTotal = Resources.NONE;
    Resources guaranteed = Resources.NONE;

    static CycleState index(ClusterSnapshot snap, Set<String> schedulerNames) {
        CycleState s = new CycleState();
        for (NodeSpec n : snap.nodes()) {
            NodeState ns = new NodeState(n, s.nodes.size());
            s.nodes.add(ns);
            s.nodesByName.put(n.name(), ns);
            if (!n.unschedulable()) s.clusterTotal = s.clusterTotal.add(n.allocatable());
        }
        for (QueueSpec q : snap.queues()) {
            s.queues.put(q.name(), new QueueState(q));
            s.guaranteed = s.guaranteed.add(q.guarantee());
        }
        for (PodGroupSpec pg : snap.podGroups()) s.jobs.put(pg.key(), new Job(pg, false));
        for (PodSpec p : snap.pods()) s.addPod(p, schedulerNames);
        for (Job j : s.jobs.values()) {
            if (j.minResources == null) j.minResources = derivedMinResources(j);
            QueueState q = s.queues.get(j.queue);
            if (q != null) q.jobs.add(j);
        }
        return s;
    }

    private void addPod(PodSpec p, Set<String> schedulerNames) {
        if ("Succeeded".equals(p.phase()) || "Failed".equals(p.phase())) return;
        boolean ours = schedulerNames.contains(p.schedulerName());
        NodeState node = p.isBound() ? nodesByName.get(p.nodeName()) : null;
        if (p.terminating()) {
            if (node != null) node.release(p.requests());
            return;
        }
        if (node != null) node.take(p.requests());
        if (!ours || (p.isBound() && node == null)) return;
        Job job = jobFor(p);
        if (job == null) {
            if (!p.isBound()) orphans.add(p);
            return;
        }
        Task t = new Task(p, job, node);
        tasks.add(t);
        if (node != null) {
            node.tasks.add(t);
            job.running.add(t);
        } else {
            job.pending.add(t);
        }
    }

    /** The pod's PodGroup, or for a pod without one its implicit gang of one (as Volcano's controller would make). */
    private Job jobFor(PodSpec p) {
        String group = p.groupName();
        if (group != null) return jobs.get(p.namespace() + "/" + group);
        String queue = p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
        PodGroupSpec implicit = new PodGroupSpec(p.namespace(), "podgroup-" + p.name(), queue, 1, Map.of(), null,
                p.priorityClassName(), p.isBound() ? "Running" : "Pending", p.arrivalCycle(), p.creationOrder());
        Job j = new Job(implicit, true);
        jobs.put(j.id, j);
        return j;
    }

    /** Without minResources, a job needs what its first minMember tasks request. */
    private static Resources derivedMinResources(Job j) {
        List<Task> all = new ArrayList<>(j.running);
        all.addAll(j.pending);
        all.sort(java.util.Comparator.comparingLong(t -> t.pod.creationOrder()));
        Resources r = Resources.NONE;
        for (int i = 0; i < Math.min(j.minMember, all.size()); i++) r = r.add(all.get(i).request());
        return r;
    }

    /** What a queue's running tasks hold. */
    Resources allocatedOf(QueueState q) {
        Resources r = Resources.NONE;
        for (Job j : q.jobs) for (Task t : j.running) r = r.add(t.request());
        return r;
    }

    /** What a queue asks for: running plus pending tasks (Volcano's proportion request). */
    Resources requestOf(QueueState q) {
        Resources r = allocatedOf(q);
        for (Job j : q.jobs) r = r.add(j.pendingRequest());
        return r;
    }

    /** Minimum resources of admitted jobs that are not yet allocated (reserved against admission). */
    Resources inqueueOf(QueueState q) {
        Resources r = Resources.NONE;
        for (Job j : q.jobs) {
            if (!"Inqueue".equals(j.initialPhase)) continue;
            Resources held = Resources.NONE;
            for (Task t : j.running) held = held.add(t.request());
            r = r.add(j.minResources.subtract(held).clampNonNegative());
        }
        return r;
    }
}
