package dev.arbiter.authoring;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.json.JsonWriter;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.TableReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What changes when a candidate policy replaces the running one, on the same cluster run to a stable state: pods
 * bound elsewhere or not at all, evictions added or removed, queue shares changed. Plain data with a table and a
 * JSON rendering; {@link #compare} is a pure function of the two simulations.
 */
public record PolicyDiff(Side old, Side candidate, List<PodChange> pods, List<EvictionChange> evictions,
                         List<QueueChange> queues, List<TimingChange> timing) {
    public PolicyDiff {
        pods = List.copyOf(pods);
        evictions = List.copyOf(evictions);
        queues = List.copyOf(queues);
        timing = List.copyOf(timing);
    }

    /**
     * A binding or eviction both policies made, in different cycles ({@code event} is {@code bound} or the eviction's
     * action): e.g. a longer minimum runtime before reclaim moves the same reclaim to a later cycle.
     */
    public record TimingChange(String pod, String event, int oldCycle, int newCycle) {}

    /** One policy's run: its folder, generation, cycles, and whether it reached a stable state. */
    public record Side(String rules, String generation, int cycles, long lastCycle, boolean stable) {}

    /** A pod whose end state differs; node is null when not bound. */
    public record PodChange(String pod, String oldPhase, String oldNode, String newPhase, String newNode) {}

    /** An eviction only one policy made ({@code added}: only the candidate). */
    public record EvictionChange(String pod, String action, String forPodGroup, String rule, boolean added) {}

    /** A queue's deserved or allocated amount of one resource that differs (as {@code Resources} stores it). */
    public record QueueChange(String queue, String resource, long oldDeserved, long newDeserved, long oldAllocated,
                              long newAllocated) {}

    public boolean isEmpty() {
        return pods.isEmpty() && evictions.isEmpty() && queues.isEmpty() && timing.isEmpty();
    }

    public static PolicyDiff compare(String oldRules, SimulationResult a, String candidateRules, SimulationResult b) {
        return new PolicyDiff(side(oldRules, a), side(candidateRules, b), podChanges(a, b), evictionChanges(a, b),
                queueChanges(a, b), timingChanges(a, b));
    }

    private static List<TimingChange> timingChanges(SimulationResult a, SimulationResult b) {
        Map<String, Integer> boundA = firstBound(a), boundB = firstBound(b);
        List<TimingChange> out = new ArrayList<>();
        boundA.forEach((pod, cycle) -> {
            Integer other = boundB.get(pod);
            if (other != null && !other.equals(cycle)) out.add(new TimingChange(pod, "bound", cycle, other));
        });
        Map<EvictionKey, Integer> evictedA = evictionCycles(a), evictedB = evictionCycles(b);
        evictedA.forEach((k, cycle) -> {
            Integer other = evictedB.get(k);
            if (other != null && !other.equals(cycle)) out.add(new TimingChange(k.pod(), k.action(), cycle, other));
        });
        return out;
    }

    private static Map<String, Integer> firstBound(SimulationResult r) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (CycleResult c : r.cycles()) for (dev.arbiter.decision.Binding x : c.bindings()) out.putIfAbsent(x.pod(), c.cycle());
        return out;
    }

    private static Map<EvictionKey, Integer> evictionCycles(SimulationResult r) {
        Map<EvictionKey, Integer> out = new LinkedHashMap<>();
        for (CycleResult c : r.cycles()) {
            for (Eviction e : c.evictions()) out.putIfAbsent(new EvictionKey(e.pod(), e.action(), e.forPodGroup()), c.cycle());
        }
        return out;
    }

    private static Side side(String rules, SimulationResult r) {
        CycleResult last = r.lastCycle();
        return new Side(rules, last == null ? null : last.rulesGeneration(), r.cycles().size(),
                last == null ? 0 : last.cycle(), r.stable());
    }

    private static List<PodChange> podChanges(SimulationResult a, SimulationResult b) {
        Map<String, PodOutcome> before = new LinkedHashMap<>();
        for (PodOutcome p : a.pods()) before.put(p.pod(), p);
        Map<String, PodOutcome> after = new LinkedHashMap<>();
        for (PodOutcome p : b.pods()) after.put(p.pod(), p);
        Set<String> keys = new LinkedHashSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<PodChange> out = new ArrayList<>();
        for (String k : keys) {
            PodOutcome x = before.get(k), y = after.get(k);
            String xp = x == null ? "Absent" : x.phase(), yp = y == null ? "Absent" : y.phase();
            String xn = x == null ? null : x.node(), yn = y == null ? null : y.node();
            if (!xp.equals(yp) || !Objects.equals(xn, yn)) out.add(new PodChange(k, xp, xn, yp, yn));
        }
        return out;
    }

    private record EvictionKey(String pod, String action, String forPodGroup) {}

    private static List<EvictionChange> evictionChanges(SimulationResult a, SimulationResult b) {
        Map<EvictionKey, Eviction> x = evictions(a), y = evictions(b);
        List<EvictionChange> out = new ArrayList<>();
        x.forEach((k, e) -> {
            if (!y.containsKey(k)) out.add(new EvictionChange(k.pod(), k.action(), k.forPodGroup(), e.rule(), false));
        });
        y.forEach((k, e) -> {
            if (!x.containsKey(k)) out.add(new EvictionChange(k.pod(), k.action(), k.forPodGroup(), e.rule(), true));
        });
        return out;
    }

    private static Map<EvictionKey, Eviction> evictions(SimulationResult r) {
        Map<EvictionKey, Eviction> out = new LinkedHashMap<>();
        for (CycleResult c : r.cycles()) {
            for (Eviction e : c.evictions()) out.putIfAbsent(new EvictionKey(e.pod(), e.action(), e.forPodGroup()), e);
        }
        return out;
    }

    private static List<QueueChange> queueChanges(SimulationResult a, SimulationResult b) {
        Map<String, QueueStatus> x = queues(a), y = queues(b);
        Set<String> names = new LinkedHashSet<>(x.keySet());
        names.addAll(y.keySet());
        List<QueueChange> out = new ArrayList<>();
        for (String q : names) {
            QueueStatus qa = x.get(q), qb = y.get(q);
            Resources da = qa == null ? Resources.NONE : qa.deserved(), db = qb == null ? Resources.NONE : qb.deserved();
            Resources aa = qa == null ? Resources.NONE : qa.allocated(), ab = qb == null ? Resources.NONE : qb.allocated();
            TreeSet<String> dims = new TreeSet<>();
            for (Resources r : List.of(da, db, aa, ab)) dims.addAll(r.asMilliMap().keySet());
            for (String d : Explainer.dimensions(dims)) {
                if (da.milli(d) != db.milli(d) || aa.milli(d) != ab.milli(d)) {
                    out.add(new QueueChange(q, d, da.milli(d), db.milli(d), aa.milli(d), ab.milli(d)));
                }
            }
        }
        return out;
    }

    private static Map<String, QueueStatus> queues(SimulationResult r) {
        Map<String, QueueStatus> out = new LinkedHashMap<>();
        for (QueueStatus q : r.queues()) out.put(q.queue(), q);
        return out;
    }

    // ---- rendering --------------------------------------------------------------------------------------------

    /** For people: what the candidate changes, section by section. */
    public String table() {
        StringBuilder sb = new StringBuilder();
        sb.append("old:       ").append(describe(old)).append('\n');
        sb.append("candidate: ").append(describe(candidate)).append('\n');
        if (isEmpty()) return sb.append("\nNo differences: both policies bind, evict and share the same.\n").toString();

        if (!pods.isEmpty()) {
            sb.append("\nPods (").append(pods.size()).append(" differ):\n");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"POD", "OLD", "CANDIDATE"});
            for (PodChange p : pods) rows.add(new String[] {p.pod(), where(p.oldPhase(), p.oldNode()), where(p.newPhase(), p.newNode())});
            sb.append(indent(TableReport.table(rows)));
        }
        if (!evictions.isEmpty()) {
            long added = evictions.stream().filter(EvictionChange::added).count();
            sb.append("\nEvictions (").append(added).append(" added, ").append(evictions.size() - added).append(" removed):\n");
            for (EvictionChange e : evictions) {
                sb.append("  ").append(e.added() ? "+ " : "- ").append(dev.arbiter.sim.TerminalText.safe(e.action() + " " + e.pod()
                        + " for " + e.forPodGroup() + "   [" + e.rule() + "]")).append('\n');
            }
        }
        if (!timing.isEmpty()) {
            sb.append("\nTiming (").append(timing.size()).append(" decisions made in other cycles):\n");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"POD", "DECISION", "CYCLE OLD -> CANDIDATE"});
            for (TimingChange t : timing) rows.add(new String[] {t.pod(), t.event(), t.oldCycle() + " -> " + t.newCycle()});
            sb.append(indent(TableReport.table(rows)));
        }
        if (!queues.isEmpty()) {
            sb.append("\nQueues (").append(queues.size()).append(" amounts differ):\n");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"QUEUE", "RESOURCE", "DESERVED OLD -> CANDIDATE", "ALLOCATED OLD -> CANDIDATE"});
            for (QueueChange q : queues) {
                rows.add(new String[] {q.queue(), q.resource(),
                        Quantity.human(q.resource(), q.oldDeserved()) + " -> " + Quantity.human(q.resource(), q.newDeserved()),
                        Quantity.human(q.resource(), q.oldAllocated()) + " -> " + Quantity.human(q.resource(), q.newAllocated())});
            }
            sb.append(indent(TableReport.table(rows)));
        }
        return sb.toString();
    }

    private static String describe(Side s) {
        return s.rules() + " (generation " + s.generation() + "): " + (s.stable() ? "stable after cycle " : "NOT stable after cycle ")
                + s.lastCycle() + " (" + s.cycles() + (s.cycles() == 1 ? " cycle" : " cycles") + " run)";
    }

    private static String where(String phase, String node) {
        return node == null ? phase : phase + " on " + node;
    }

    private static String indent(String s) {
        StringBuilder sb = new StringBuilder();
        for (String line : s.split("\n")) sb.append("  ").append(line).append('\n');
        return sb.toString();
    }

    /**
     * {@code {"old":{"rules","generation","cycles","stable"},"candidate":{...},
     * "pods":[{"pod","old":{"phase","node"},"candidate":{"phase","node"}}],
     * "evictions":[{"change":"added|removed","pod","action","for","rule"}],
     * "queues":[{"queue","resource","deserved":{"old","candidate"},"allocated":{"old","candidate"}}],
     * "timing":[{"pod","event":"bound|preempt|reclaim","old":cycle,"candidate":cycle}]}}
     */
    public String json() {
        JsonWriter w = JsonWriter.compact().startObject();
        side(w.name("old"), old);
        side(w.name("candidate"), candidate);
        w.nextLine(1).name("pods").startArray();
        for (PodChange p : pods) {
            w.nextLine(2).startObject().field("pod", p.pod())
                    .name("old").startObject().field("phase", p.oldPhase()).field("node", p.oldNode()).endObject()
                    .name("candidate").startObject().field("phase", p.newPhase()).field("node", p.newNode()).endObject()
                    .endObject();
        }
        w.endArray().nextLine(1).name("evictions").startArray();
        for (EvictionChange e : evictions) {
            w.nextLine(2).startObject().field("change", e.added() ? "added" : "removed").field("pod", e.pod())
                    .field("action", e.action()).field("for", e.forPodGroup()).field("rule", e.rule()).endObject();
        }
        w.endArray().nextLine(1).name("queues").startArray();
        for (QueueChange q : queues) {
            w.nextLine(2).startObject().field("queue", q.queue()).field("resource", q.resource())
                    .name("deserved").startObject().field("old", Quantity.format(q.resource(), q.oldDeserved()))
                    .field("candidate", Quantity.format(q.resource(), q.newDeserved())).endObject()
                    .name("allocated").startObject().field("old", Quantity.format(q.resource(), q.oldAllocated()))
                    .field("candidate", Quantity.format(q.resource(), q.newAllocated())).endObject()
                    .endObject();
        }
        w.endArray().nextLine(1).name("timing").startArray();
        for (TimingChange t : timing) {
            w.nextLine(2).startObject().field("pod", t.pod()).field("event", t.event()).field("old", t.oldCycle())
                    .field("candidate", t.newCycle()).endObject();
        }
        return w.endArray().endObject().nextLine(0).toString();
    }

    private static void side(JsonWriter w, Side s) {
        w.startObject().field("rules", s.rules()).field("generation", s.generation()).field("cycles", s.cycles()).field("lastCycle", s.lastCycle())
                .field("stable", s.stable()).endObject();
    }
}
