package dev.arbiter.authoring;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A simulation as one self-contained HTML page: per resource, an SVG chart of every queue's allocated (solid) and
 * deserved (dashed) amount over the cycles (a step line, on a cycle-number axis: the simulator skips idle cycles),
 * with the cycles that evicted marked; then each cycle's decisions with
 * their rules; then the final pods, PodGroups and queues.
 *
 * <p>Inline CSS and inline SVG only: no scripts, no fonts, no links, no URLs, so it opens offline and leaks nothing.
 * The markup is well-formed XML (XHTML syntax without namespace declarations, which HTML parsers do not need), so it
 * can be checked by an XML parser. The {@code pods} resource is not charted (it counts pod slots).
 */
public final class TimelineReport {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
            "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int W = 720, H = 260, LEFT = 60, RIGHT = 150, TOP = 20, BOTTOM = 40;
    /** Longer runs get lines without a marker (and tooltip) per cycle, to keep the page light. */
    private static final int MAX_POINTS = 200;

    private TimelineReport() {}

    public static String write(SimulationResult r, String title) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n")
                .append("<meta charset=\"utf-8\"/>\n<title>").append(esc(title)).append("</title>\n<style>\n")
                .append("body{font-family:sans-serif;margin:2em;color:#222}")
                .append("table{border-collapse:collapse;margin:0.5em 0 1.5em}")
                .append("th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:13px}")
                .append("th{background:#f3f3f3}.evict{color:#b00}.rule{color:#555;font-size:12px}")
                .append("svg{display:block;margin:0.5em 0 1.5em}svg text{font-size:11px}")
                .append("\n</style>\n</head>\n<body>\n<h1>").append(esc(title)).append("</h1>\n");
        sb.append("<p>").append(r.cycles().size()).append(" cycle(s), ").append(r.stable() ? "stable" : "stopped at the cycle limit")
                .append(r.lastCycle() == null ? "" : ", rules generation " + esc(r.lastCycle().rulesGeneration())).append(".</p>\n");
        sb.append("<p>").append(esc(summary(r))).append("</p>\n");
        for (String n : r.notices()) sb.append("<p>notice: ").append(esc(n)).append("</p>\n");

        sb.append("<h2>Allocated vs deserved per queue</h2>\n<p>Solid: allocated at the end of the cycle. Dashed: deserved. ")
                .append("Red lines: cycles that evicted pods. The lines step: nothing changes between two simulated cycles.</p>\n");
        List<String> queues = queueNames(r);
        for (String dim : dimensions(r)) sb.append(chart(r, dim, queues));

        sb.append("<h2>Decisions per cycle</h2>\n");
        decisions(sb, r);
        sb.append("<h2>Final state</h2>\n");
        finalTables(sb, r);
        return sb.append("</body>\n</html>\n").toString();
    }

    /** e.g. {@code 6 bindings; 2 evictions: 2 reclaim in cycle 61}. */
    static String summary(SimulationResult r) {
        int binds = 0;
        Map<String, Integer> byAction = new java.util.TreeMap<>();
        Map<String, java.util.TreeSet<Integer>> cycles = new java.util.TreeMap<>();
        for (CycleResult c : r.cycles()) {
            binds += c.bindings().size();
            for (Eviction e : c.evictions()) {
                byAction.merge(e.action(), 1, Integer::sum);
                cycles.computeIfAbsent(e.action(), k -> new java.util.TreeSet<>()).add(c.cycle());
            }
        }
        StringBuilder sb = new StringBuilder().append(binds).append(binds == 1 ? " binding; " : " bindings; ");
        int evictions = byAction.values().stream().mapToInt(Integer::intValue).sum();
        sb.append(evictions).append(evictions == 1 ? " eviction" : " evictions");
        String sep = ": ";
        for (Map.Entry<String, Integer> e : byAction.entrySet()) {
            java.util.TreeSet<Integer> in = cycles.get(e.getKey());
            sb.append(sep).append(e.getValue()).append(' ').append(e.getKey()).append(in.size() == 1 ? " in cycle " : " in cycles ")
                    .append(String.join(", ", in.stream().map(String::valueOf).toList()));
            sep = ", ";
        }
        return sb.append('.').toString();
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

    private static String chart(SimulationResult r, String dim, List<String> queues) {
        List<CycleResult> cycles = r.cycles();
        long max = 1;
        for (CycleResult c : cycles) {
            for (QueueStatus q : c.queues()) max = Math.max(max, Math.max(q.deserved().milli(dim), q.allocated().milli(dim)));
        }
        int plotW = W - LEFT - RIGHT, plotH = H - TOP - BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append("<h3>").append(esc(dim)).append("</h3>\n");
        sb.append("<svg class=\"chart\" data-resource=\"").append(esc(dim)).append("\" width=\"").append(W)
                .append("\" height=\"").append(H).append("\" viewBox=\"0 0 ").append(W).append(' ').append(H)
                .append("\" role=\"img\" aria-label=\"").append(esc(dim)).append(" allocated and deserved per queue\">\n");
        sb.append("<title>").append(esc(dim)).append(": allocated (solid) and deserved (dashed) per queue, by cycle</title>\n");
        // Axes, the y range, and cycle ticks.
        sb.append(line(LEFT, TOP, LEFT, TOP + plotH, "#444", null)).append(line(LEFT, TOP + plotH, LEFT + plotW, TOP + plotH, "#444", null));
        sb.append(text(LEFT - 6, TOP + 4, "end", Quantity.format(dim, max)));
        sb.append(text(LEFT - 6, TOP + plotH + 4, "end", "0"));
        sb.append(text(LEFT + plotW / 2, H - 6, "middle", "cycle"));
        int first = cycles.get(0).cycle(), last = cycles.get(cycles.size() - 1).cycle();
        sb.append(text(x(first, first, last, plotW), TOP + plotH + 16, "middle", Integer.toString(first)));
        if (last != first) sb.append(text(x(last, first, last, plotW), TOP + plotH + 16, "middle", Integer.toString(last)));
        // Cycles that evicted, labelled with their number.
        for (CycleResult c : cycles) {
            List<Eviction> ev = c.evictions();
            if (ev.isEmpty()) continue;
            double xc = x(c.cycle(), first, last, plotW);
            sb.append("<g class=\"evictions\">").append(line(xc, TOP, xc, TOP + plotH, "#d00", "2,2"))
                    .append(text(xc + 3, TOP + 10, "start", "cycle " + c.cycle() + ": " + ev.size() + " " + ev.get(0).action()))
                    .append("</g>\n");
        }
        // One series per queue: allocated (solid, with points) and deserved (dashed).
        for (int qi = 0; qi < queues.size(); qi++) {
            String q = queues.get(qi);
            String color = COLORS[qi % COLORS.length];
            StringBuilder alloc = new StringBuilder(), deserved = new StringBuilder(), points = new StringBuilder();
            double prevA = Double.NaN, prevD = Double.NaN;
            for (int i = 0; i < cycles.size(); i++) {
                QueueStatus s = status(cycles.get(i), q);
                if (s == null) continue;
                double xi = x(cycles.get(i).cycle(), first, last, plotW);
                double ya = y(s.allocated().milli(dim), max, plotH), yd = y(s.deserved().milli(dim), max, plotH);
                // Steps: nothing changes between two simulated cycles (idle cycles are skipped).
                if (!Double.isNaN(prevA)) {
                    alloc.append(fmt(xi)).append(',').append(fmt(prevA)).append(' ');
                    deserved.append(fmt(xi)).append(',').append(fmt(prevD)).append(' ');
                }
                alloc.append(fmt(xi)).append(',').append(fmt(ya)).append(' ');
                deserved.append(fmt(xi)).append(',').append(fmt(yd)).append(' ');
                prevA = ya;
                prevD = yd;
                if (cycles.size() <= MAX_POINTS) {
                    points.append(point(xi, ya, color, q + " cycle " + cycles.get(i).cycle() + ": allocated "
                            + Quantity.format(dim, s.allocated().milli(dim)) + ", deserved "
                            + Quantity.format(dim, s.deserved().milli(dim))));
                }
            }
            sb.append("<g class=\"series\" data-queue=\"").append(esc(q)).append("\">\n")
                    .append("<polyline class=\"allocated\" fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"2\" points=\"")
                    .append(alloc.toString().trim()).append("\"><title>").append(esc(q)).append(" allocated</title></polyline>\n")
                    .append("<polyline class=\"deserved\" fill=\"none\" stroke=\"").append(color)
                    .append("\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\" points=\"").append(deserved.toString().trim())
                    .append("\"><title>").append(esc(q)).append(" deserved</title></polyline>\n")
                    .append(points).append('\n');
            int ly = TOP + 12 + qi * 16;
            sb.append(line(W - RIGHT + 10, ly - 4, W - RIGHT + 30, ly - 4, color, null))
                    .append(text(W - RIGHT + 34, ly, "start", q)).append("</g>\n");
        }
        return sb.append("</svg>\n").toString();
    }

    /** A marker with a tooltip. */
    private static String point(double x, double y, String color, String tooltip) {
        return "<circle cx=\"" + fmt(x) + "\" cy=\"" + fmt(y) + "\" r=\"2.5\" fill=\"" + color + "\"><title>" + esc(tooltip)
                + "</title></circle>";
    }

    private static QueueStatus status(CycleResult c, String queue) {
        for (QueueStatus q : c.queues()) if (q.queue().equals(queue)) return q;
        return null;
    }

    /** Cycle {@code c} on an axis from {@code first} to {@code last}. */
    private static double x(int c, int first, int last, int plotW) {
        return LEFT + (last == first ? plotW / 2.0 : (double) (c - first) * plotW / (last - first));
    }

    private static double y(long v, long max, int plotH) {
        return TOP + plotH - (double) v * plotH / max;
    }

    private static String line(double x1, double y1, double x2, double y2, String color, String dash) {
        return "<line x1=\"" + fmt(x1) + "\" y1=\"" + fmt(y1) + "\" x2=\"" + fmt(x2) + "\" y2=\"" + fmt(y2) + "\" stroke=\""
                + color + "\"" + (dash == null ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>";
    }

    private static String text(double x, double y, String anchor, String s) {
        return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" text-anchor=\"" + anchor + "\">" + esc(s) + "</text>";
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    private static void decisions(StringBuilder sb, SimulationResult r) {
        List<String[]> rows = new ArrayList<>();
        for (CycleResult c : r.cycles()) {
            for (Eviction e : c.evictions()) {
                rows.add(new String[] {Integer.toString(c.cycle()), "evict (" + e.action() + ")", e.pod(), e.node(),
                        e.forPodGroup(), e.rule()});
            }
            for (Binding b : c.bindings()) rows.add(new String[] {Integer.toString(c.cycle()), "bind", b.pod(), b.node(), "", b.rule()});
        }
        if (rows.isEmpty()) {
            sb.append("<p>No bindings or evictions.</p>\n");
            return;
        }
        sb.append("<table class=\"decisions\">\n<tr><th>cycle</th><th>decision</th><th>pod</th><th>node</th><th>for</th><th>rule</th></tr>\n");
        for (String[] row : rows) {
            sb.append("<tr").append(row[1].startsWith("evict") ? " class=\"evict\"" : "").append(">");
            for (int i = 0; i < row.length; i++) {
                sb.append(i == 5 ? "<td class=\"rule\">" : "<td>").append(esc(row[i])).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table>\n");
    }

    private static void finalTables(StringBuilder sb, SimulationResult r) {
        List<String[]> pods = new ArrayList<>();
        for (PodOutcome p : r.pods()) pods.add(new String[] {p.pod(), p.phase(), p.node() == null ? "" : p.node()});
        table(sb, "pods", new String[] {"pod", "phase", "node"}, pods);
        List<String[]> groups = new ArrayList<>();
        for (PodGroupStatus g : r.podGroups()) {
            groups.add(new String[] {g.podGroup(), g.queue(), g.phase(), g.running() + "/" + g.minMember(),
                    g.reason() == null ? "" : g.reason(), g.rule() == null ? "" : g.rule()});
        }
        table(sb, "podgroups", new String[] {"PodGroup", "queue", "phase", "running/minMember", "reason", "rule"}, groups);
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

    private static String compact(Resources r) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : r.asQuantities().entrySet()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }

    /** Escapes text and attribute values for XML. */
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
                    if (ch < 0x20 && ch != '\n' && ch != '\t') sb.append(' ');
                    else sb.append(ch);
                }
            }
        }
        return sb.toString();
    }
}
