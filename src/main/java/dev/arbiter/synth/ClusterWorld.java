package dev.arbiter.synth;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A cluster that lives through cycles, for property tests, the differential test and the benchmark: it hands out a
 * snapshot, executes a cycle's decisions the way the simulator does (a bound pod runs at once, an evicted pod is gone
 * before the next cycle, a PodGroup keeps the phase the cycle gave it), and can churn: finished jobs leave and new
 * jobs arrive. Arrival cycles are ignored: everything is present from the start. The clock starts at 0 and advances
 * {@value #CYCLE_SECONDS} s per executed cycle; a pod bound by a cycle started at that cycle's time.
 *
 * <p>Two options make it a live cluster's double: {@link #withNominations()} carries each cycle's nominations into the
 * next snapshot (as {@code status.nominatedNodeName} does), and {@link #recreatingEvicted()} brings evicted pods back
 * pending (as their controllers recreate them: constant demand).
 */
public final class ClusterWorld {
    private final List<NodeSpec> nodes;
    private final List<QueueSpec> queues;
    private final List<PriorityClassSpec> classes;
    private final Map<String, PodSpec> pods = new LinkedHashMap<>();
    private final Map<String, PodGroupSpec> groups = new LinkedHashMap<>();
    /** The clock, in seconds: 0 at the first snapshot, {@link #CYCLE_SECONDS} more after each executed cycle. */
    private long now;
    public static final long CYCLE_SECONDS = 30;
    private boolean nominate;
    private boolean recreateEvicted;
    private Map<String, String> nominations = Map.of();

    public ClusterWorld(Manifests m) {
        this.nodes = m.nodes();
        this.queues = m.queues();
        this.classes = m.priorityClasses();
        for (PodSpec p : m.pods()) pods.put(p.key(), p);
        for (PodGroupSpec g : m.podGroups()) groups.put(g.key(), g);
    }

    /** Each cycle's nominations are carried into the next snapshot; returns this world. */
    public ClusterWorld withNominations() {
        nominate = true;
        return this;
    }

    /** Evicted pods come back pending, as their controllers recreate them; returns this world. */
    public ClusterWorld recreatingEvicted() {
        recreateEvicted = true;
        return this;
    }

    public ClusterSnapshot snapshot() {
        return new ClusterSnapshot(nodes, List.copyOf(pods.values()), List.copyOf(groups.values()), queues, classes, now,
                nominations);
    }

    public PodSpec pod(String key) {
        return pods.get(key);
    }

    public int podCount() {
        return pods.size();
    }

    /**
     * Executes {@code r}: binds, evicts (the pod leaves), and records PodGroup phases. Returns true if anything
     * changed. Throws if a decision names a pod that is not in the state the decision needs — a scheduler bug.
     */
    public boolean apply(CycleResult r) {
        boolean changed = false;
        for (Binding b : r.bindings()) {
            PodSpec p = pods.get(b.pod());
            if (p == null || p.isBound()) throw new IllegalStateException("cycle " + r.cycle() + " bound " + b.pod() + ", which is not pending");
            pods.put(b.pod(), p.withNode(b.node(), "Running").withStartedAt(now));
            changed = true;
        }
        for (Eviction e : r.evictions()) {
            PodSpec p = pods.remove(e.pod());
            if (p == null || !p.isBound()) throw new IllegalStateException("cycle " + r.cycle() + " evicted " + e.pod() + ", which is not running");
            if (recreateEvicted) pods.put(p.key(), p.withNode(null, "Pending").withStartedAt(PodSpec.UNKNOWN_START));
            changed = true;
        }
        if (nominate) {
            Map<String, String> next = new HashMap<>();
            for (dev.arbiter.decision.Nomination n : r.nominations()) next.put(n.pod(), n.node());
            nominations = next;
            changed |= !next.isEmpty();
        }
        for (PodGroupStatus s : r.podGroups()) {
            PodGroupSpec g = groups.get(s.podGroup());
            if (g != null && !g.phase().equals(s.phase())) {
                groups.put(g.key(), g.withPhase(s.phase(), g.creationOrder()));
                changed = true;
            }
        }
        now += CYCLE_SECONDS;
        return changed;
    }

    /**
     * Churn of about {@code fraction} of the pods: running jobs finish (all their pods and their PodGroup leave)
     * until half the fraction is gone, and {@code generator} adds new pending jobs for the other half.
     * Returns the number of pods removed plus added.
     */
    public int churn(double fraction, Random rnd, ClusterGenerator generator) {
        int target = (int) Math.max(1, Math.round(pods.size() * fraction / 2));
        Map<String, List<String>> runningJobs = new LinkedHashMap<>();
        Map<String, List<String>> pendingMembers = new HashMap<>();
        for (PodSpec p : pods.values()) {
            if (!ClusterGenerator.SCHEDULER.equals(p.schedulerName())) continue;
            String job = p.groupName() == null ? "pod:" + p.key() : p.namespace() + "/" + p.groupName();
            if (p.isBound()) runningJobs.computeIfAbsent(job, k -> new ArrayList<>()).add(p.key());
            else pendingMembers.computeIfAbsent(job, k -> new ArrayList<>()).add(p.key());
        }
        List<String> jobs = new ArrayList<>(runningJobs.keySet());
        int removed = 0;
        while (removed < target && !jobs.isEmpty()) {
            String job = jobs.remove(rnd.nextInt(jobs.size()));
            groups.remove(job);
            // A finished job's pods all leave, pending ones included.
            List<String> members = new ArrayList<>(runningJobs.get(job));
            members.addAll(pendingMembers.getOrDefault(job, List.of()));
            for (String k : members) if (pods.remove(k) != null) removed++;
        }
        return removed + arrive(generator.morePending(target));
    }

    /**
     * New pending jobs of about {@code pods} pods from {@code generator}, and nothing else: a backlog that keeps growing
     * while nothing finishes. Returns the number of pods added.
     */
    public int arrive(int pods, ClusterGenerator generator) {
        return arrive(generator.morePending(pods));
    }

    /** These new pending jobs, and nothing else; returns the number of pods added. */
    public int arrive(List<ClusterGenerator.GeneratedJob> jobs) {
        int added = 0;
        for (ClusterGenerator.GeneratedJob j : jobs) {
            if (j.group() != null) groups.put(j.group().key(), j.group());
            for (PodSpec p : j.pods()) this.pods.put(p.key(), p);
            added += j.pods().size();
        }
        return added;
    }

    /** Nodes whose bound pods (of every scheduler) request more than their allocatable in some dimension. */
    public List<String> overCapacityNodes() {
        Map<String, Resources> used = new HashMap<>();
        for (PodSpec p : pods.values()) {
            if (p.isBound() && !p.finished()) {
                used.merge(p.nodeName(), p.requests(), Resources::add);
            }
        }
        List<String> out = new ArrayList<>();
        for (NodeSpec n : nodes) {
            if (!used.getOrDefault(n.name(), Resources.NONE).fitsIn(n.allocatable())) out.add(n.name());
        }
        return out;
    }
}
