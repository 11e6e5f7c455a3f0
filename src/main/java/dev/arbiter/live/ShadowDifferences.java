package dev.arbiter.live;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What a shadow policy decided differently from the active one on the same snapshot ({@code run --shadow-rules}):
 * pods bound to another node or bound by one side only, evictions made by one side only (or for another job, or as
 * another action), PodGroups left in another phase, and queues given another deserved share. Each difference names
 * the rule each side's decision named (bindings, evictions and statuses carry their rule), or null where that side
 * decided nothing with a rule (a pod it left pending, a queue's share, which the fair-share rules compute together).
 * Plain data, compared in a fixed order (kind, then subject), so that two comparisons of the same results are equal.
 */
public record ShadowDifferences(List<Difference> differences) {
    /** What kind of decision differs; {@link #metricName()} is the value of the metric's {@code kind} label. */
    public enum Kind {
        BINDING("binding"), EVICTION("eviction"), PODGROUP_PHASE("podgroup_phase"), SHARE("share");

        private final String name;

        Kind(String name) {
            this.name = name;
        }

        public String metricName() {
            return name;
        }
    }

    /**
     * One decision that differs: {@code subject} is the pod ({@code ns/name}), PodGroup or queue; {@code active} and
     * {@code shadow} say what each side decided (a node, "pending", "evicted (reclaim for ns/job)", "stays", a phase,
     * a deserved share), {@code activeRule} and {@code shadowRule} the rule each side's decision named, or null.
     */
    public record Difference(Kind kind, String subject, String active, String shadow, String activeRule,
                             String shadowRule) {}

    public ShadowDifferences {
        differences = List.copyOf(differences);
    }

    /** Compares what {@code active} and {@code shadow} decided on the same snapshot. */
    public static ShadowDifferences compare(CycleResult active, CycleResult shadow) {
        return compare(active, shadow, pod -> null);
    }

    /**
     * Compares what {@code active} and {@code shadow} decided on {@code snapshot}: a pod one side left pending names
     * the rule behind its job's status on that side (what held it back), found through the snapshot.
     */
    @SuppressWarnings("unchecked")
    public static ShadowDifferences compare(CycleResult active, CycleResult shadow, dev.arbiter.model.ClusterSnapshot snapshot) {
        Map<String, String>[] jobs = new Map[1];
        return compare(active, shadow, pod -> {
            if (jobs[0] == null) {
                jobs[0] = new HashMap<>();
                for (dev.arbiter.model.PodSpec p : snapshot.pods()) if (!p.isBound()) jobs[0].put(p.key(), p.jobId());
            }
            return jobs[0].get(pod);
        });
    }

    /** As above, {@code jobOf} naming a pod's job ({@code ns/podgroup}), or null. */
    static ShadowDifferences compare(CycleResult active, CycleResult shadow, java.util.function.Function<String, String> jobOf) {
        List<Difference> out = new ArrayList<>();
        bindings(active, shadow, jobOf, out);
        evictions(active, shadow, out);
        phases(active, shadow, out);
        shares(active, shadow, out);
        return new ShadowDifferences(out);
    }

    public boolean isEmpty() {
        return differences.isEmpty();
    }

    /** How many differences of each kind (kinds without any left out), in kind order. */
    public Map<Kind, Integer> counts() {
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        for (Difference d : differences) counts.merge(d.kind(), 1, Integer::sum);
        return counts;
    }

    /**
     * The rules behind the differences, most differences first (then by name): {@code "shadow: R"} for a rule the
     * shadow's decision named, {@code "active: R"} for one the active policy's named.
     */
    public Map<String, Integer> rules() {
        Map<String, Integer> counts = new HashMap<>();
        for (Difference d : differences) {
            if (d.shadowRule() != null) counts.merge("shadow: " + d.shadowRule(), 1, Integer::sum);
            if (d.activeRule() != null) counts.merge("active: " + d.activeRule(), 1, Integer::sum);
        }
        return byCount(counts);
    }

    /** {@code counts} sorted by count (highest first), then by key. */
    static Map<String, Integer> byCount(Map<String, Integer> counts) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(Map.Entry.<String, Integer>comparingByValue(Collections.reverseOrder()).thenComparing(Map.Entry.comparingByKey()));
        Map<String, Integer> sorted = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> e : entries) sorted.put(e.getKey(), e.getValue());
        return sorted;
    }

    private static void bindings(CycleResult active, CycleResult shadow, java.util.function.Function<String, String> jobOf,
                                 List<Difference> out) {
        Map<String, Binding> a = new HashMap<>(), s = new HashMap<>();
        Map<String, PodGroupStatus> ga = statuses(active), gs = statuses(shadow);
        for (Binding b : active.bindings()) a.put(b.pod(), b);
        for (Binding b : shadow.bindings()) s.put(b.pod(), b);
        TreeSet<String> pods = new TreeSet<>(a.keySet());
        pods.addAll(s.keySet());
        for (String pod : pods) {
            Binding ba = a.get(pod), bs = s.get(pod);
            if (ba != null && bs != null && ba.node().equals(bs.node())) continue;
            out.add(new Difference(Kind.BINDING, pod, ba == null ? "pending" : ba.node(), bs == null ? "pending" : bs.node(),
                    ba == null ? heldBy(ga, jobOf.apply(pod)) : ba.rule(), bs == null ? heldBy(gs, jobOf.apply(pod)) : bs.rule()));
        }
    }

    /** The rule behind {@code job}'s status (what left its pod pending), or null. */
    private static String heldBy(Map<String, PodGroupStatus> statuses, String job) {
        PodGroupStatus g = job == null ? null : statuses.get(job);
        return g == null ? null : g.rule();
    }

    private static Map<String, PodGroupStatus> statuses(CycleResult result) {
        Map<String, PodGroupStatus> out = new HashMap<>();
        for (PodGroupStatus g : result.podGroups()) out.put(g.podGroup(), g);
        return out;
    }

    private static void evictions(CycleResult active, CycleResult shadow, List<Difference> out) {
        Map<String, Eviction> a = new HashMap<>(), s = new HashMap<>();
        for (Eviction e : active.evictions()) a.put(e.pod(), e);
        for (Eviction e : shadow.evictions()) s.put(e.pod(), e);
        TreeSet<String> pods = new TreeSet<>(a.keySet());
        pods.addAll(s.keySet());
        for (String pod : pods) {
            Eviction ea = a.get(pod), es = s.get(pod);
            if (ea != null && es != null && ea.action().equals(es.action()) && Objects.equals(ea.forPodGroup(), es.forPodGroup())) {
                continue;
            }
            out.add(new Difference(Kind.EVICTION, pod, evicted(ea), evicted(es), ea == null ? null : ea.rule(),
                    es == null ? null : es.rule()));
        }
    }

    private static String evicted(Eviction e) {
        return e == null ? "stays" : "evicted (" + e.action() + (e.forPodGroup() == null ? "" : " for " + e.forPodGroup()) + ")";
    }

    private static void phases(CycleResult active, CycleResult shadow, List<Difference> out) {
        Map<String, PodGroupStatus> a = new HashMap<>(), s = new HashMap<>();
        for (PodGroupStatus g : active.podGroups()) a.put(g.podGroup(), g);
        for (PodGroupStatus g : shadow.podGroups()) s.put(g.podGroup(), g);
        TreeSet<String> groups = new TreeSet<>(a.keySet());
        groups.addAll(s.keySet());
        for (String group : groups) {
            PodGroupStatus ga = a.get(group), gs = s.get(group);
            String pa = ga == null ? "none" : ga.phase(), ps = gs == null ? "none" : gs.phase();
            if (pa.equals(ps)) continue;
            out.add(new Difference(Kind.PODGROUP_PHASE, group, pa, ps, ga == null ? null : ga.rule(), gs == null ? null : gs.rule()));
        }
    }

    private static void shares(CycleResult active, CycleResult shadow, List<Difference> out) {
        Map<String, QueueStatus> a = new HashMap<>(), s = new HashMap<>();
        for (QueueStatus q : active.queues()) a.put(q.queue(), q);
        for (QueueStatus q : shadow.queues()) s.put(q.queue(), q);
        TreeSet<String> queues = new TreeSet<>(a.keySet());
        queues.addAll(s.keySet());
        for (String queue : queues) {
            Resources da = a.containsKey(queue) ? a.get(queue).deserved() : Resources.NONE;
            Resources ds = s.containsKey(queue) ? s.get(queue).deserved() : Resources.NONE;
            if (Objects.equals(da, ds)) continue;
            out.add(new Difference(Kind.SHARE, queue, String.valueOf(da), String.valueOf(ds), null, null));
        }
    }
}
