package dev.arbiter.bench;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where two schedulers' decisions on the same snapshot disagree: the set of gangs that bound pods, the bound pods and
 * their nodes, the evicted pods, every queue's deserved share, and every PodGroup's phase. An empty list means they
 * agree.
 */
public final class DecisionDiff {
    private DecisionDiff() {}

    public static List<String> compare(ClusterSnapshot snapshot, CycleResult engine, CycleResult reference) {
        List<String> out = new ArrayList<>();
        Map<String, String> jobOf = new HashMap<>();
        for (PodSpec p : snapshot.pods()) {
            jobOf.put(p.key(), p.jobId());
        }
        diff(out, "bound gangs", gangs(engine, jobOf), gangs(reference, jobOf));
        diff(out, "bindings", bindings(engine), bindings(reference));
        diff(out, "evicted pods", evicted(engine), evicted(reference));
        diff(out, "deserved", deserved(engine), deserved(reference));
        diff(out, "phases", phases(engine), phases(reference));
        return out;
    }

    private static <T> void diff(List<String> out, String what, Set<T> engine, Set<T> reference) {
        if (engine.equals(reference)) return;
        Set<T> onlyEngine = new TreeSet<>(engine);
        onlyEngine.removeAll(reference);
        Set<T> onlyReference = new TreeSet<>(reference);
        onlyReference.removeAll(engine);
        out.add(what + ": engine only " + limited(onlyEngine) + "; reference only " + limited(onlyReference));
    }

    private static String limited(Set<?> s) {
        List<Object> l = new ArrayList<>(s);
        return l.size() <= 12 ? l.toString() : l.subList(0, 12) + " and " + (l.size() - 12) + " more";
    }

    private static Set<String> gangs(CycleResult r, Map<String, String> jobOf) {
        Set<String> out = new TreeSet<>();
        for (Binding b : r.bindings()) out.add(jobOf.getOrDefault(b.pod(), "?" + b.pod()));
        return out;
    }

    private static Set<String> bindings(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (Binding b : r.bindings()) out.add(b.pod() + "->" + b.node());
        return out;
    }

    private static Set<String> evicted(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (Eviction e : r.evictions()) out.add(e.pod() + " (" + e.action() + " for " + e.forPodGroup() + ")");
        return out;
    }

    private static Set<String> deserved(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (QueueStatus q : r.queues()) out.add(q.queue() + "=" + new TreeMap<>(q.deserved().asMilliMap()));
        return out;
    }

    private static Set<String> phases(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (PodGroupStatus g : r.podGroups()) out.add(g.podGroup() + "=" + g.phase());
        return out;
    }
}
