package dev.arbiter.authoring;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.json.JsonWriter;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.RuleLegend;
import dev.arbiter.sim.SimulationResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A simulation as one self-contained HTML page, drawn in the browser by Apache ECharts (inlined, so the page works
 * offline): per resource, every queue's allocated (solid) and deserved (dashed) amount over the cycles, with a strip
 * of binding and eviction markers that open that cycle's decisions; the same per queue as small multiples; each
 * PodGroup's phase over the cycles with the reason while it waits; then each cycle's decisions and the final pods,
 * PodGroups and queues as tables.
 *
 * <p>The cycle axis has one slot per cycle that changed something. Stretches in which nothing changed — cycles the
 * simulator skipped, and cycles it ran that decided nothing and left every queue and PodGroup as it was — collapse
 * into one slot marked idle (e.g. {@code 2–60}), so a reclaim after a long quiet minute is not squeezed into the last
 * pixels.
 *
 * <p>The page fetches nothing: a Content-Security-Policy allows only its inline scripts and styles, and it has no
 * links, images or fonts. The data is one JSON document ({@code <script type="application/json" id="report-data">});
 * the page's own script ({@code timeline-report.js}) draws it. The {@code pods} resource is not charted.
 *
 * <p>The page is the Mustache template {@code timeline-report.html.mustache}; this class hands it plain records, and
 * Mustache escapes every name and reason put into the HTML.
 */
public final class TimelineReport {
    /** Apache ECharts' built file, from the {@code org.webjars.npm:echarts} jar. */
    static final String ECHARTS = "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    static final String CONTENT_SECURITY_POLICY =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";

    private TimelineReport() {}

    /** The page's HTML; {@code {{x}}} is escaped by Mustache, {@code {{{x}}}} is inlined as it is (CSS, scripts). */
    private static final Mustache PAGE = new DefaultMustacheFactory("dev/arbiter/authoring")
            .compile("timeline-report.html.mustache");

    public static String write(SimulationResult r, String title) {
        return write(r, title, null);
    }

    /**
     * {@link #write(SimulationResult, String)}, the PodGroups table with an "estimated start" column for the jobs
     * still pending at the end when {@code starts} (the forecast at the end of the run, docs/estimates.md) is not null.
     */
    public static String write(SimulationResult r, String title, dev.arbiter.forecast.Forecast starts) {
        List<Slot> slots = slots(r.cycles());
        RuleLegend rules = RuleLegend.of(r.cycles());
        Map<String, Object> page = new HashMap<>();
        page.put("contentSecurityPolicy", CONTENT_SECURITY_POLICY);
        page.put("title", printable(title));
        page.put("overview", printable(overview(r, slots)));
        page.put("summary", printable(summary(r)));
        page.put("notices", r.notices().stream().map(TimelineReport::printable).toList());
        page.put("decided", !r.cycles().stream().allMatch(CycleResult::decidedNothing));
        page.put("slots", decisionSlots(r, slots, rules));
        page.put("hasRules", !rules.isEmpty());
        page.put("rules", rules.entries().entrySet().stream().map(e -> new RuleRow(printable(e.getKey()), printable(e.getValue()))).toList());
        page.put("tables", finalTables(r, starts));
        page.put("css", resource("timeline-report.css"));
        page.put("data", jsonInScript(data(r, slots)));
        page.put("echarts", scriptSafe(resource(ECHARTS)));
        page.put("script", scriptSafe(resource("timeline-report.js")));
        StringWriter out = new StringWriter(1_200_000);
        PAGE.execute(out, page);
        return out.toString();
    }

    // ---- the cycle axis -----------------------------------------------------------------------------------------

    /**
     * One place on the cycle axis: cycles {@code from}..{@code to}, showing the state after {@code cycles[index]}
     * (the last cycle run in or before it). {@code idle}: nothing changed in it.
     */
    record Slot(int from, int to, boolean idle, int index) {
        String label() {
            return from == to ? Integer.toString(from) : from + "\u2013" + to;
        }
    }

    /**
     * The cycle axis: a slot per cycle that changed something, and one idle slot per stretch that changed nothing
     * (cycles skipped by the simulator and quiet cycles it ran). A lone quiet cycle that was run keeps its own slot.
     */
    static List<Slot> slots(List<CycleResult> cycles) {
        List<Slot> out = new ArrayList<>();
        int idleFrom = -1, idleTo = -1, quietRuns = 0;
        boolean skipped = false;
        for (int i = 0; i < cycles.size(); i++) {
            CycleResult c = cycles.get(i);
            if (i > 0 && c.cycle() > cycles.get(i - 1).cycle() + 1) {
                if (idleFrom < 0) idleFrom = cycles.get(i - 1).cycle() + 1;
                idleTo = c.cycle() - 1;
                skipped = true;
            }
            if (i > 0 && quiet(cycles.get(i - 1), c)) {
                if (idleFrom < 0) idleFrom = c.cycle();
                idleTo = c.cycle();
                quietRuns++;
                continue;
            }
            flushIdle(out, idleFrom, idleTo, skipped, quietRuns, i - 1);
            idleFrom = -1;
            quietRuns = 0;
            skipped = false;
            out.add(new Slot(c.cycle(), c.cycle(), false, i));
        }
        flushIdle(out, idleFrom, idleTo, skipped, quietRuns, cycles.size() - 1);
        return out;
    }

    private static void flushIdle(List<Slot> out, int from, int to, boolean skipped, int quietRuns, int index) {
        if (from < 0) return;
        if (!skipped && quietRuns == 1) out.add(new Slot(from, to, false, index));
        else out.add(new Slot(from, to, true, index));
    }

    /** Nothing decided, nothing nominated, and every queue and PodGroup as the previous cycle left it. */
    static boolean quiet(CycleResult previous, CycleResult c) {
        if (!c.decidedNothing() || !c.nominations().isEmpty()) return false;
        return queueState(previous).equals(queueState(c)) && groupState(previous).equals(groupState(c));
    }

    private static List<Object> queueState(CycleResult c) {
        List<Object> out = new ArrayList<>();
        for (QueueStatus q : c.queues()) out.add(List.of(q.queue(), q.allocated(), q.deserved(), q.state()));
        return out;
    }

    private static List<Object> groupState(CycleResult c) {
        List<Object> out = new ArrayList<>();
        for (PodGroupStatus g : c.podGroups()) {
            out.add(List.of(g.podGroup(), g.phase(), g.running(), Objects.toString(g.reason())));
        }
        return out;
    }

    // ---- text -------------------------------------------------------------------------------------------------

    /** e.g. {@code 5 cycles simulated (1–63) on a 5-slot axis, stable.} */
    static String overview(SimulationResult r, List<Slot> slots) {
        if (r.cycles().isEmpty()) return "No cycle ran.";
        int first = r.cycles().get(0).cycle(), last = r.lastCycle().cycle();
        long idle = slots.stream().filter(Slot::idle).count();
        return r.cycles().size() + (r.cycles().size() == 1 ? " cycle" : " cycles") + " simulated (" + first
                + (first == last ? "" : "\u2013" + last) + ")" + (idle == 0 ? "" : ", " + idle
                + (idle == 1 ? " idle stretch" : " idle stretches") + " collapsed")
                + (r.stable() ? ", stable" : ", stopped at the cycle limit before the cluster settled")
                + (r.lastCycle() == null ? "" : "; rules generation " + r.lastCycle().rulesGeneration()) + ".";
    }

    /** e.g. {@code 6 bindings; 2 evictions: 2 reclaim in cycle 61.} */
    static String summary(SimulationResult r) {
        int binds = 0;
        Map<String, Integer> byAction = new TreeMap<>();
        Map<String, TreeSet<Integer>> cycles = new TreeMap<>();
        for (CycleResult c : r.cycles()) {
            binds += c.bindings().size();
            for (Eviction e : c.evictions()) {
                byAction.merge(e.action(), 1, Integer::sum);
                cycles.computeIfAbsent(e.action(), k -> new TreeSet<>()).add(c.cycle());
            }
        }
        StringBuilder sb = new StringBuilder().append(binds).append(binds == 1 ? " binding; " : " bindings; ");
        int evictions = byAction.values().stream().mapToInt(Integer::intValue).sum();
        sb.append(evictions).append(evictions == 1 ? " eviction" : " evictions");
        String sep = ": ";
        for (Map.Entry<String, Integer> e : byAction.entrySet()) {
            TreeSet<Integer> in = cycles.get(e.getKey());
            sb.append(sep).append(e.getValue()).append(' ').append(e.getKey()).append(in.size() == 1 ? " in cycle " : " in cycles ")
                    .append(String.join(", ", in.stream().map(String::valueOf).toList()));
            sep = ", ";
        }
        return sb.append('.').toString();
    }

    // ---- the data the page draws ------------------------------------------------------------------------------

    /**
     * {@code {"slots":[{"label","from","to","idle","cycle"}], "queues":[name], "resources":[{"name","bytes",
     * "allocated":{queue:[amount per slot]},"deserved":{...}}], "events":[{"slot","cycle","bound","evicted","what"}],
     * "podGroups":[{"name","queue","segments":[{"from","to","phase","reason","running","minMember"}]}]}}. Amounts are
     * in the resource's own unit (GPUs, cores; bytes for memory); null where the queue did not exist yet.
     */
    static String data(SimulationResult r, List<Slot> slots) {
        List<CycleResult> cycles = r.cycles();
        List<String> queues = queueNames(r);
        JsonWriter w = JsonWriter.compact().startObject().name("slots").startArray();
        for (Slot s : slots) {
            w.startObject().field("label", s.label()).field("from", s.from()).field("to", s.to()).field("idle", s.idle())
                    .field("cycle", s.index() < 0 ? null : (long) cycles.get(s.index()).cycle()).endObject();
        }
        w.endArray().nextLine(0).name("queues").startArray();
        for (String q : queues) w.value(q);
        w.endArray().nextLine(0).name("resources").startArray();
        for (String dim : dimensions(r)) {
            w.nextLine(0).startObject().field("name", dim).field("bytes", Quantity.isBytes(dim));
            series(w.name("allocated"), cycles, slots, queues, dim, true);
            series(w.name("deserved"), cycles, slots, queues, dim, false);
            w.endObject();
        }
        w.endArray().nextLine(0).name("events").startArray();
        for (int i = 0; i < slots.size(); i++) {
            Slot s = slots.get(i);
            if (s.idle() || s.index() < 0) continue;
            CycleResult c = cycles.get(s.index());
            if (c.decidedNothing()) continue;
            w.startObject().field("slot", i).field("cycle", c.cycle()).field("bound", c.bindings().size())
                    .field("evicted", c.evictions().size()).field("what", evictionKinds(c)).endObject();
        }
        w.endArray().nextLine(0).name("podGroups").startArray();
        for (Map.Entry<String, List<Segment>> g : podGroupSegments(cycles, slots).entrySet()) {
            w.nextLine(0).startObject().field("name", g.getKey()).field("queue", g.getValue().get(0).queue())
                    .name("segments").startArray();
            for (Segment seg : g.getValue()) {
                w.startObject().field("from", seg.from()).field("to", seg.to()).field("phase", seg.phase())
                        .field("reason", seg.reason()).field("running", seg.running()).field("minMember", seg.minMember());
                if (seg.domain() != null) w.field("domain", seg.domain());
                w.endObject();
            }
            w.endArray().endObject();
        }
        return w.endArray().endObject().toString();
    }

    /** e.g. {@code "2 reclaim"}, {@code "1 preempt, 3 reclaim"}; "" when nothing was evicted. */
    private static String evictionKinds(CycleResult c) {
        Map<String, Integer> kinds = new TreeMap<>();
        for (Eviction e : c.evictions()) kinds.merge(e.action(), 1, Integer::sum);
        List<String> parts = new ArrayList<>();
        kinds.forEach((k, n) -> parts.add(n + " " + k));
        return String.join(", ", parts);
    }

    private static void series(JsonWriter w, List<CycleResult> cycles, List<Slot> slots, List<String> queues, String dim,
                               boolean allocated) {
        w.startObject();
        for (String q : queues) {
            w.name(q).startArray();
            for (Slot slot : slots) {
                QueueStatus s = slot.index() < 0 ? null : status(cycles.get(slot.index()), q);
                if (s == null) w.nullValue();
                else w.number(amount(dim, (allocated ? s.allocated() : s.deserved()).milli(dim)));
            }
            w.endArray();
        }
        w.endObject();
    }

    /** A stored amount in the resource's own unit: bytes for byte-valued resources, else whole units (milli / 1000). */
    private static String amount(String dim, long stored) {
        if (Quantity.isBytes(dim)) return Long.toString(stored);
        if (stored % 1000 == 0) return Long.toString(stored / 1000);
        return java.math.BigDecimal.valueOf(stored, 3).stripTrailingZeros().toPlainString();
    }

    /** A run of slots in which a PodGroup kept its phase, reason, running count and network domain (or null). */
    record Segment(int from, int to, String queue, String phase, String reason, int running, int minMember, String domain) {}

    static Map<String, List<Segment>> podGroupSegments(List<CycleResult> cycles, List<Slot> slots) {
        Map<String, List<Segment>> out = new LinkedHashMap<>();
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).index() < 0) continue;
            for (PodGroupStatus g : cycles.get(slots.get(i).index()).podGroups()) {
                List<Segment> segs = out.computeIfAbsent(g.podGroup(), k -> new ArrayList<>());
                Segment last = segs.isEmpty() ? null : segs.get(segs.size() - 1);
                if (last != null && last.to() == i - 1 && last.phase().equals(g.phase())
                        && Objects.equals(last.reason(), g.reason()) && last.running() == g.running()
                        && Objects.equals(last.domain(), g.domain())) {
                    segs.set(segs.size() - 1, new Segment(last.from(), i, last.queue(), last.phase(), last.reason(),
                            last.running(), last.minMember(), last.domain()));
                } else {
                    segs.add(new Segment(i, i, g.queue(), g.phase(), g.reason(), g.running(), g.minMember(), g.domain()));
                }
            }
        }
        return out;
    }

    private static List<String> queueNames(SimulationResult r) {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (CycleResult c : r.cycles()) for (QueueStatus q : c.queues()) names.add(q.queue());
        return new ArrayList<>(names);
    }

    /** Resources any queue deserved or held in any cycle, accelerators first; not "pods". */
    static List<String> dimensions(SimulationResult r) {
        TreeSet<String> dims = new TreeSet<>();
        for (CycleResult c : r.cycles()) {
            for (QueueStatus q : c.queues()) {
                dims.addAll(q.deserved().asMilliMap().keySet());
                dims.addAll(q.allocated().asMilliMap().keySet());
            }
        }
        dims.remove("pods");
        return Explainer.dimensions(dims);
    }

    private static QueueStatus status(CycleResult c, String queue) {
        for (QueueStatus q : c.queues()) if (q.queue().equals(queue)) return q;
        return null;
    }

    // ---- tables -----------------------------------------------------------------------------------------------

    /** A line of the decisions section: an idle or quiet stretch ({@code line}), or a cycle that decided something. */
    private record DecisionSlot(String line, DecisionCycle cycle) {}

    private record DecisionCycle(int number, String summary, List<DecisionRow> rows) {}

    private record DecisionRow(String kind, String decision, String pod, String node, String forPodGroup, String rule) {}

    private record RuleRow(String id, String sentence) {}

    private record Table(String name, List<String> head, List<Row> rows) {}

    private record Row(List<String> cells) {}

    /**
     * One {@code <details id="cycle-N">} per cycle that decided something (the markers open them), with an idle
     * line for each collapsed stretch; the rules' sentences come once, under their short ids.
     */
    private static List<DecisionSlot> decisionSlots(SimulationResult r, List<Slot> slots, RuleLegend rules) {
        List<DecisionSlot> out = new ArrayList<>();
        for (Slot s : slots) {
            CycleResult c = s.index() < 0 ? null : r.cycles().get(s.index());
            if (s.idle() || c == null || c.decidedNothing()) {
                out.add(new DecisionSlot("Cycle" + (s.from() == s.to() ? " " : "s ") + s.label()
                        + (s.idle() ? ": idle, nothing changed." : ": no bindings or evictions."), null));
                continue;
            }
            List<DecisionRow> rows = new ArrayList<>();
            for (Eviction e : c.evictions()) {
                rows.add(row("evict", "evict (" + e.action() + ")", e.pod(), e.node(), e.forPodGroup(), rules.id(e.rule())));
            }
            for (Binding b : c.bindings()) rows.add(row("bind", "bind", b.pod(), b.node(), "", rules.id(b.rule())));
            String summary = "Cycle " + c.cycle() + ": " + c.bindings().size() + " bound, " + c.evictions().size() + " evicted"
                    + (c.evictions().isEmpty() ? "" : " (" + evictionKinds(c) + ")");
            out.add(new DecisionSlot(null, new DecisionCycle(c.cycle(), printable(summary), rows)));
        }
        return out;
    }

    private static DecisionRow row(String kind, String decision, String pod, String node, String forGroup, String ruleId) {
        return new DecisionRow(kind, printable(decision), printable(pod), printable(node), printable(forGroup), printable(ruleId));
    }

    private static List<Table> finalTables(SimulationResult r, dev.arbiter.forecast.Forecast starts) {
        List<List<String>> pods = new ArrayList<>();
        for (PodOutcome p : r.pods()) pods.add(List.of(p.pod(), p.phase(), p.node() == null ? "" : p.node()));
        List<List<String>> groups = new ArrayList<>();
        for (PodGroupStatus g : r.podGroups()) {
            List<String> row = new ArrayList<>(List.of(g.podGroup(), g.queue(), g.phase(), g.running() + " (min " + g.minMember() + ")",
                    g.reason() == null ? "" : g.reason(), g.rule() == null ? "" : g.rule()));
            if (starts != null) {
                dev.arbiter.forecast.StartEstimate e = starts.of(g.podGroup());
                row.add(e == null ? "" : dev.arbiter.forecast.StartWords.line(e, starts, dev.arbiter.forecast.StartWords.Clock.SIMULATED));
            }
            groups.add(row);
        }
        List<String> groupHead = new ArrayList<>(List.of("PodGroup", "queue", "phase", "running", "reason", "rule"));
        if (starts != null) groupHead.add("estimated start");
        List<List<String>> queues = new ArrayList<>();
        for (QueueStatus q : r.queues()) {
            queues.add(List.of(q.queue(), Integer.toString(q.weight()), q.state(), compact(q.deserved()), compact(q.allocated())));
        }
        return List.of(table("pods", List.of("pod", "phase", "node"), pods),
                table("podgroups", groupHead, groups),
                table("queues", List.of("queue", "weight", "state", "deserved", "allocated"), queues));
    }

    private static Table table(String name, List<String> head, List<List<String>> rows) {
        return new Table(name, head, rows.stream().map(cells -> new Row(cells.stream().map(TimelineReport::printable).toList())).toList());
    }

    /** e.g. {@code cpu 32, mars-tech.com/gpu 10.6, memory 256Gi}; "-" when empty. */
    private static String compact(Resources r) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Long> e : r.asMilliMap().entrySet()) {
            if (e.getKey().equals("pods")) continue;
            sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(Quantity.human(e.getKey(), e.getValue()));
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static String resource(String name) {
        ClassLoader loader = TimelineReport.class.getClassLoader();
        String path = name.startsWith("META-INF/") ? name : "dev/arbiter/authoring/" + name;
        try (InputStream in = loader.getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("the report's " + path + " is missing from the classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Script text inlined unchanged; it must not hold {@code </script} or {@code <!--}, which would end or confuse the
     * element (neither ECharts' built file nor the page's script does).
     */
    static String scriptSafe(String script) {
        String lower = script.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("</script") || lower.contains("<!--")) {
            throw new IllegalStateException("a script to inline holds </script or <!--");
        }
        return script;
    }

    /** JSON inside a {@code <script>} element: every {@code <} (only ever inside strings) as {@code \u003c}. */
    static String jsonInScript(String json) {
        return json.replace("<", "\\u003c");
    }

    /**
     * Text as a page shows it: control characters (which HTML forbids and a browser would show as boxes) become
     * spaces; null is "". Escaping for HTML is Mustache's.
     */
    static String printable(String s) {
        if (s == null) return "";
        StringBuilder sb = new StringBuilder(s.length());
        for (char ch : s.toCharArray()) {
            sb.append((ch < 0x20 && ch != '\n' && ch != '\t') || (ch >= 0x7f && ch < 0xa0) ? ' ' : ch);
        }
        return sb.toString();
    }
}
