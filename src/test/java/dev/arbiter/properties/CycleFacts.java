package dev.arbiter.properties;

import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the properties need to know about one snapshot, computed here from the specs alone (Kubernetes and Volcano
 * semantics, not the engine's code): which job each pod belongs to, job priorities, gang sizes, queue membership and
 * totals, node usage.
 */
final class CycleFacts {
    /** A job as the properties see it: a PodGroup, or a pod without one (a gang of one). */
    record JobView(String id, String queue, int minMember, Map<String, Integer> minTaskMember, String priorityClass,
                   String phase, List<PodSpec> pods, Resources minResources, long creation) {}

    final ClusterSnapshot snap;
    final Map<String, PodSpec> pods = new HashMap<>();
    final Map<String, String> jobOfPod = new HashMap<>();
    final Map<String, JobView> jobs = new HashMap<>();
    final Map<String, QueueSpec> queues = new HashMap<>();
    final Map<String, PriorityClassSpec> classes = new HashMap<>();
    final Map<String, NodeSpec> nodes = new HashMap<>();
    PriorityClassSpec defaultClass;

    CycleFacts(ClusterSnapshot snap) {
        this.snap = snap;
        for (PriorityClassSpec pc : snap.priorityClasses()) {
            classes.putIfAbsent(pc.name(), pc);
            if (pc.globalDefault() && defaultClass == null) defaultClass = pc;
        }
        for (QueueSpec q : snap.queues()) queues.put(q.name(), q);
        for (NodeSpec n : snap.nodes()) nodes.put(n.name(), n);
        Map<String, PodGroupSpec> groups = new HashMap<>();
        for (PodGroupSpec g : snap.podGroups()) groups.put(g.key(), g);
        Map<String, List<PodSpec>> members = new HashMap<>();
        for (PodSpec p : snap.pods()) {
            pods.put(p.key(), p);
            if (p.terminating()) continue;
            String job = p.groupName() == null ? p.namespace() + "/podgroup-" + p.name() : p.namespace() + "/" + p.groupName();
            jobOfPod.put(p.key(), job);
            members.computeIfAbsent(job, k -> new ArrayList<>()).add(p);
        }
        members.forEach((id, ps) -> {
            PodGroupSpec g = groups.get(id);
            if (g == null) {
                PodSpec p = ps.get(0);
                if (p.groupName() != null) return;
                jobs.put(id, new JobView(id, p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT), 1,
                        Map.of(), p.priorityClassName(), p.isBound() ? "Running" : "Pending", ps, p.requests(),
                        p.creationOrder()));
            } else {
                jobs.put(id, new JobView(id, g.queue(), g.minMember(), g.minTaskMember(), g.priorityClassName(), g.phase(),
                        ps, g.minResources() != null ? g.minResources() : firstMembers(ps, g.minMember()), g.creationOrder()));
            }
        });
    }

    private static Resources firstMembers(List<PodSpec> ps, int n) {
        List<PodSpec> sorted = new ArrayList<>(ps);
        sorted.sort(Comparator.comparingLong(PodSpec::creationOrder));
        Resources r = Resources.NONE;
        for (int i = 0; i < Math.min(n, sorted.size()); i++) r = r.add(sorted.get(i).requests());
        return r;
    }

    /** A PriorityClass's value; the global default's for none; 0 for an unknown class or no default. */
    int classValue(String name) {
        if (name == null) return defaultClass == null ? 0 : defaultClass.value();
        PriorityClassSpec pc = classes.get(name);
        return pc == null ? 0 : pc.value();
    }

    int jobPriority(String job) {
        return classValue(jobs.get(job).priorityClass());
    }

    /** Whether the job's PriorityClass, or any of its pending pods, says preemptionPolicy Never. */
    boolean neverPreempts(String job) {
        JobView j = jobs.get(job);
        PriorityClassSpec pc = j.priorityClass() == null ? null : classes.get(j.priorityClass());
        if (pc != null && "Never".equals(pc.preemptionPolicy())) return true;
        for (PodSpec p : j.pods()) if (!p.isBound() && "Never".equals(p.preemptionPolicy())) return true;
        return false;
    }

    int running(String job) {
        int n = 0;
        for (PodSpec p : jobs.get(job).pods()) if (p.isBound()) n++;
        return n;
    }

    /** What a queue's running pods hold. */
    Resources allocated(String queue) {
        Resources r = Resources.NONE;
        for (JobView j : jobs.values()) {
            if (!j.queue().equals(queue)) continue;
            for (PodSpec p : j.pods()) if (p.isBound()) r = r.add(p.requests());
        }
        return r;
    }

    /** Job order: higher priority first, then earlier creation. */
    boolean ahead(JobView a, JobView b) {
        int pa = classValue(a.priorityClass()), pb = classValue(b.priorityClass());
        return pa != pb ? pa > pb : a.creation() != b.creation() ? a.creation() < b.creation() : a.id().compareTo(b.id()) < 0;
    }

    /**
     * What admission holds in reserve in {@code queue} against {@code job}: the minimum resources, less what their
     * running pods hold, of every other job the cycle left Inqueue ({@code phases}) that either was Inqueue already or
     * comes before {@code job} in job order (and so was admitted before it, taking room first). Jobs admitted beyond
     * the budget are counted too, so this may overstate the reserve: the property then checks fewer pods, never a
     * wrong one.
     */
    Resources reserved(String queue, JobView job, Map<String, String> phases) {
        Resources r = Resources.NONE;
        for (JobView j : jobs.values()) {
            if (!j.queue().equals(queue) || j == job || !"Inqueue".equals(phases.get(j.id()))) continue;
            if (!"Inqueue".equals(j.phase()) && !ahead(j, job)) continue;
            Resources held = Resources.NONE;
            for (PodSpec p : j.pods()) if (p.isBound()) held = held.add(p.requests());
            r = r.add(j.minResources().subtract(held).clampNonNegative());
        }
        return r;
    }

    /** The queue's capability bounded by the cluster less the other queues' guarantees. */
    Caps realCapability(String queue) {
        Resources total = Resources.NONE;
        for (NodeSpec n : snap.nodes()) if (!n.unschedulable()) total = total.add(n.allocatable());
        Resources guarantees = Resources.NONE;
        for (QueueSpec q : snap.queues()) guarantees = guarantees.add(q.guarantee());
        QueueSpec q = queues.get(queue);
        Caps real = Caps.of(total.subtract(guarantees).clampNonNegative().add(q.guarantee()));
        return q.capability() == null ? real : real.intersect(q.capability());
    }

    /** Free capacity per node: allocatable less every bound pod (of any scheduler). */
    Map<String, Resources> freeByNode() {
        Map<String, Resources> free = new HashMap<>();
        for (NodeSpec n : snap.nodes()) free.put(n.name(), n.allocatable());
        for (PodSpec p : snap.pods()) {
            if (p.isBound() && free.containsKey(p.nodeName())) free.put(p.nodeName(), free.get(p.nodeName()).subtract(p.requests()));
        }
        return free;
    }

    /**
     * Kubernetes' static predicates: not cordoned (unless the pod tolerates the unschedulable taint), every taint but
     * PreferNoSchedule tolerated, nodeSelector and required node affinity match; never a pod with scheduling gates or
     * needs Arbiter does not evaluate.
     */
    static boolean allowedOn(PodSpec p, NodeSpec n) {
        if (!p.placement().schedulingGates().isEmpty() || !p.placement().notEvaluated().isEmpty()) return false;
        Taint cordon = new Taint("node.kubernetes.io/unschedulable", "", "NoSchedule");
        if (n.unschedulable() && p.tolerations().stream().noneMatch(tol -> tol.tolerates(cordon))) return false;
        return taintsTolerated(p, n) && matchesNodeAffinity(p, n);
    }

    /** nodeSelector and required node affinity. */
    static boolean matchesNodeAffinity(PodSpec p, NodeSpec n) {
        for (Map.Entry<String, String> e : p.nodeSelector().entrySet()) if (!e.getValue().equals(n.labels().get(e.getKey()))) return false;
        return p.placement().nodeAffinity().requiredMatches(n);
    }

    /** Every taint but PreferNoSchedule tolerated. */
    static boolean taintsTolerated(PodSpec p, NodeSpec n) {
        for (Taint t : n.taints()) {
            if ("PreferNoSchedule".equals(t.effect())) continue;
            if (p.tolerations().stream().noneMatch(tol -> tol.tolerates(t))) return false;
        }
        return true;
    }

    static QueueStatus status(List<QueueStatus> qs, String name) {
        for (QueueStatus q : qs) if (q.queue().equals(name)) return q;
        return null;
    }
}
