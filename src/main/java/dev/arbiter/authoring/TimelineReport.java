package dev.arbiter.authoring;

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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 */
public final class TimelineReport {
    /** Apache ECharts' built file, from the {@code org.webjars.npm:echarts} jar. */
    static final String ECHARTS = "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    static final String CONTENT_SECURITY_POLICY =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";

    private TimelineReport() {}

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
        StringBuilder sb = new StringBuilder(1_200_000);
        sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<meta http-equiv=\"Content-Security-Policy\" content=\"").append(CONTENT_SECURITY_POLICY).append("\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<title>").append(esc(title)).append("</title>\n<style>\n").append(resource("timeline-report.css"))
                .append("</style>\n</head>\n<body>\n<header>\n<h1>").append(esc(title)).append("</h1>\n");
        sb.append("<p class=\"summary\">").append(esc(overview(r, slots))).append("</p>\n");
        sb.append("<p class=\"summary\">").append(esc(summary(r))).append("</p>\n");
        for (String n : r.notices()) sb.append("<p class=\"notice\">notice: ").append(esc(n)).append("</p>\n");
        sb.append("</header>\n");

        sb.append("<section id=\"queues\">\n<h2>Allocated and deserved per queue</h2>\n")
                .append("<p class=\"help\">Solid: what the queue holds at the end of the cycle. Dashed: what it deserves. ")
                .append("Grey bands: idle stretches, collapsed. Markers below the lines: cycles that bound (&#9650;) or ")
                .append("evicted (&#9660;) pods; click one to open that cycle's decisions. Drag the slider or scroll to zoom; ")
                .append("click a queue in the legend to hide it, hover to pick it out.</p>\n")
                .append("<nav id=\"resources\" aria-label=\"resource\"></nav>\n")
                .append("<div id=\"timeline\" class=\"chart\" role=\"img\"></div>\n")
                .append("<h2>Each queue on its own</h2>\n<p class=\"help\">Same scale for every queue, same cycles as above.</p>\n")
                .append("<div id=\"multiples\"></div>\n</section>\n");

        sb.append("<section id=\"podgroups\">\n<h2>PodGroups over the cycles</h2>\n")
                .append("<p class=\"help\">The phase each cycle left the PodGroup in; while it is not running, the bar says why. ")
                .append("Hover a bar for the whole reason.</p>\n")
                .append("<div id=\"podgroup-timeline\" class=\"chart\" role=\"img\"></div>\n</section>\n");

        sb.append("<section id=\"decisions\">\n<h2>Decisions per cycle</h2>\n");
        decisions(sb, r, slots, rules);
        sb.append("</section>\n<section id=\"final\">\n<h2>Final state</h2>\n");
        finalTables(sb, r, starts);
        sb.append("</section>\n");

        sb.append("<script type=\"application/json\" id=\"report-data\">").append(jsonInScript(data(r, slots)))
                .append("</script>\n");
        sb.append("<script id=\"echarts-library\">\n").append(scriptSafe(resource(ECHARTS))).append("\n</script>\n");
        sb.append("<script id=\"report-script\">\n").append(scriptSafe(resource("timeline-report.js"))).append("</script>\n");
        return sb.append("</body>\n</html>\n").toString();
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

    /**
     * One {@code <details id="cycle-N">} per cycle that decided something (the markers open them), with an idle
     * line for each collapsed stretch, and the rules' sentences once, under their short ids.
     */
    private static void decisions(StringBuilder sb, SimulationResult r, List<Slot> slots, RuleLegend rules) {
        if (r.cycles().stream().allMatch(CycleResult::decidedNothing)) {
            sb.append("<p>No bindings or evictions.</p>\n");
            return;
        }
        for (Slot s : slots) {
            CycleResult c = s.index() < 0 ? null : r.cycles().get(s.index());
            if (s.idle() || c == null || c.decidedNothing()) {
                sb.append("<p class=\"idle-line\">Cycle").append(s.from() == s.to() ? " " : "s ").append(esc(s.label()))
                        .append(s.idle() ? ": idle, nothing changed.</p>\n" : ": no bindings or evictions.</p>\n");
                continue;
            }
            sb.append("<details class=\"cycle\" id=\"cycle-").append(c.cycle()).append("\" data-cycle=\"").append(c.cycle())
                    .append("\">\n<summary>Cycle ").append(c.cycle()).append(": ").append(c.bindings().size()).append(" bound, ")
                    .append(c.evictions().size()).append(" evicted").append(c.evictions().isEmpty() ? "" : " (" + esc(evictionKinds(c)) + ")")
                    .append("</summary>\n<table class=\"decisions\">\n<tr><th>decision</th><th>pod</th><th>node</th><th>for</th><th>rule</th></tr>\n");
            for (Eviction e : c.evictions()) {
                row(sb, "evict", "evict (" + e.action() + ")", e.pod(), e.node(), e.forPodGroup(), rules.id(e.rule()));
            }
            for (Binding b : c.bindings()) row(sb, "bind", "bind", b.pod(), b.node(), "", rules.id(b.rule()));
            sb.append("</table>\n</details>\n");
        }
        if (!rules.isEmpty()) {
            sb.append("<h3>Rules</h3>\n<table class=\"rules\">\n<tr><th>id</th><th>rule</th></tr>\n");
            rules.entries().forEach((id, rule) -> sb.append("<tr id=\"rule-").append(esc(id)).append("\"><td>").append(esc(id))
                    .append("</td><td>").append(esc(rule)).append("</td></tr>\n"));
            sb.append("</table>\n");
        }
    }

    private static void row(StringBuilder sb, String cls, String decision, String pod, String node, String forGroup, String ruleId) {
        sb.append("<tr class=\"").append(cls).append("\"><td>").append(esc(decision)).append("</td><td>").append(esc(pod))
                .append("</td><td>").append(esc(node)).append("</td><td>").append(esc(forGroup))
                .append("</td><td class=\"rule\">").append(esc(ruleId)).append("</td></tr>\n");
    }

    private static void finalTables(StringBuilder sb, SimulationResult r, dev.arbiter.forecast.Forecast starts) {
        List<String[]> pods = new ArrayList<>();
        for (PodOutcome p : r.pods()) pods.add(new String[] {p.pod(), p.phase(), p.node() == null ? "" : p.node()});
        table(sb, "pods", new String[] {"pod", "phase", "node"}, pods);
        List<String[]> groups = new ArrayList<>();
        for (PodGroupStatus g : r.podGroups()) {
            String[] row = {g.podGroup(), g.queue(), g.phase(), g.running() + " (min " + g.minMember() + ")",
                    g.reason() == null ? "" : g.reason(), g.rule() == null ? "" : g.rule()};
            if (starts != null) {
                dev.arbiter.forecast.StartEstimate e = starts.of(g.podGroup());
                row = java.util.Arrays.copyOf(row, row.length + 1);
                row[row.length - 1] = e == null ? "" : dev.arbiter.forecast.StartWords.line(e, starts,
                        dev.arbiter.forecast.StartWords.Clock.SIMULATED);
            }
            groups.add(row);
        }
        String[] head = {"PodGroup", "queue", "phase", "running", "reason", "rule"};
        if (starts != null) {
            head = java.util.Arrays.copyOf(head, head.length + 1);
            head[head.length - 1] = "estimated start";
        }
        table(sb, "podgroups", head, groups);
        List<String[]> queues = new ArrayList<>();
        for (QueueStatus q : r.queues()) {
            queues.add(new String[] {q.queue(), Integer.toString(q.weight()), q.state(), compact(q.deserved()), compact(q.allocated())});
        }
        table(sb, "queues", new String[] {"queue", "weight", "state", "deserved", "allocated"}, queues);
    }

    private static void table(StringBuilder sb, String cls, String[] head, List<String[]> rows) {
        sb.append("<table class=\"").append(cls).append("\">\n<tr>");
        for (String h : head) sb.append("<th>").append(esc(h)).append("</th>");
        sb.append("</tr>\n");
        for (String[] row : rows) {
            sb.append("<tr>");
            for (String c : row) sb.append("<td>").append(esc(c)).append("</td>");
            sb.append("</tr>\n");
        }
        sb.append("</table>\n");
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

    /** Escapes text and attribute values for HTML; control characters become spaces. */
    static String esc(String s) {
        if (s == null) return "";
        StringBuilder sb = new StringBuilder(s.length());
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> {
                    if ((ch < 0x20 && ch != '\n' && ch != '\t') || (ch >= 0x7f && ch < 0xa0)) sb.append(' ');
                    else sb.append(ch);
                }
            }
        }
        return sb.toString();
    }
}
