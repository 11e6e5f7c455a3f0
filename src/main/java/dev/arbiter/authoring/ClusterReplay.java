package dev.arbiter.authoring;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
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
 * Where every pod was before and after each cycle: the starting objects with the cycles' bindings and evictions
 * applied, as the simulator (or the cluster) executed them. Lets an explanation quote the numbers a cycle's rules saw
 * (what a queue held when the cycle started) and the capacity left at the end. Not thread-safe (indexes lazily).
 */
final class ClusterReplay {
    private final ClusterSnapshot start;
    private final Set<String> schedulerNames;
    private final Map<String, PodSpec> pods = new LinkedHashMap<>();
    private final Map<String, PodGroupSpec> groups = new HashMap<>();
    /** placements.get(i): pod → node after i cycles (0 = the starting objects). */
    private final List<Map<String, String>> placements = new ArrayList<>();
    private final Map<String, Integer> evictedIn = new HashMap<>();
    private final List<CycleResult> cycles;
    private Map<String, List<PodSpec>> membersByJob;
    private Map<NodeSpec, Resources> freeAtEnd;

    ClusterReplay(ClusterSnapshot start, List<CycleResult> cycles, Set<String> schedulerNames) {
        this.start = start;
        this.cycles = List.copyOf(cycles);
        this.schedulerNames = Set.copyOf(schedulerNames);
        for (PodSpec p : start.pods()) pods.put(p.key(), p);
        for (PodGroupSpec g : start.podGroups()) groups.put(g.key(), g);
        Map<String, String> now = new LinkedHashMap<>();
        for (PodSpec p : start.pods()) if (p.isBound() && !p.terminating()) now.put(p.key(), p.nodeName());
        placements.add(Map.copyOf(now));
        for (CycleResult c : cycles) {
            for (Binding b : c.bindings()) now.put(b.pod(), b.node());
            for (Eviction e : c.evictions()) {
                now.remove(e.pod());
                evictedIn.put(e.pod(), c.cycle());
            }
            placements.add(Map.copyOf(now));
        }
    }

    /** True when this scheduler answers the pod ({@code spec.schedulerName} is one of its names). */
    boolean answers(PodSpec p) {
        return schedulerNames.contains(p.schedulerName());
    }

    ClusterSnapshot start() {
        return start;
    }

    List<CycleResult> cycles() {
        return cycles;
    }

    PodSpec pod(String key) {
        return pods.get(key);
    }

    PodGroupSpec group(String key) {
        return groups.get(key);
    }

    /** The job a pod belongs to: {@code ns/<group-name>}, or its implicit gang of one {@code ns/podgroup-<pod>}. */
    static String jobOf(PodSpec p) {
        return p.jobId();
    }

    /** The queue a pod's job is in (null when its PodGroup does not exist). */
    String queueOf(PodSpec p) {
        if (p.groupName() == null) return p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
        PodGroupSpec g = groups.get(jobOf(p));
        return g == null ? null : g.queue();
    }

    /** The pods of a job, in creation order. */
    List<PodSpec> members(String job) {
        if (membersByJob == null) {
            membersByJob = new HashMap<>();
            for (PodSpec p : pods.values()) membersByJob.computeIfAbsent(jobOf(p), k -> new ArrayList<>()).add(p);
            membersByJob.values().forEach(l -> l.sort(java.util.Comparator.comparingLong(PodSpec::creationOrder)));
        }
        return membersByJob.getOrDefault(job, List.of());
    }

    /** Pod → node after {@code cycle} cycles (0 = before the first). */
    Map<String, String> placementAfter(int cycle) {
        return placements.get(Math.max(0, Math.min(cycle, placements.size() - 1)));
    }

    Map<String, String> finalPlacement() {
        return placements.get(placements.size() - 1);
    }

    /** The cycle that evicted the pod, or 0. */
    int evictedIn(String pod) {
        return evictedIn.getOrDefault(pod, 0);
    }

    /** What a queue's running pods of this scheduler held after {@code cycle} cycles (the engine's "allocated"). */
    Resources allocatedAfter(String queue, int cycle) {
        Resources r = Resources.NONE;
        for (String pod : placementAfter(cycle).keySet()) {
            PodSpec p = pods.get(pod);
            if (p != null && schedulerNames.contains(p.schedulerName()) && queue.equals(queueOf(p))) r = r.add(p.requests());
        }
        return r;
    }

    /** Each node present at the end: its allocatable less the requests of every pod placed on it at the end. */
    Map<NodeSpec, Resources> freeAtEnd() {
        if (freeAtEnd == null) {
            int last = cycles.isEmpty() ? 0 : cycles.get(cycles.size() - 1).cycle();
            freeAtEnd = freeAfter(placements.size() - 1, last);
        }
        return new LinkedHashMap<>(freeAtEnd);
    }

    /**
     * The free capacity of each node present in cycle {@code cycle} (arrived by then), with the pods placed after
     * {@code index} cycles: its allocatable less their requests.
     */
    Map<NodeSpec, Resources> freeAfter(int index, int cycle) {
        Map<String, Resources> used = new HashMap<>();
        placementAfter(index).forEach((pod, node) -> {
            PodSpec p = pods.get(pod);
            if (p != null && !p.finished()) {
                used.merge(node, p.requests(), Resources::add);
            }
        });
        Map<NodeSpec, Resources> free = new LinkedHashMap<>();
        for (NodeSpec n : start.nodes()) {
            if (n.arrivalCycle() <= cycle) free.put(n, n.allocatable().subtract(used.getOrDefault(n.name(), Resources.NONE)));
        }
        return free;
    }

    /** How many cycles had run once {@code cycle} ended (cycles are numbered in order, usually from 1). */
    int indexOf(int cycle) {
        for (int i = 0; i < cycles.size(); i++) if (cycles.get(i).cycle() == cycle) return i + 1;
        return cycles.size();
    }
}
