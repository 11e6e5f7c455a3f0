package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes a simulation for people: each cycle's decisions with the rule behind them and a one-line view of the queues
 * whose allocated/deserved accelerators changed in that cycle, then kubectl-style tables of pods, PodGroups and
 * queues. Amounts read in the resource's own units ({@code 10.6} GPUs, {@code 256Gi}); names are printed
 * {@linkplain TerminalText#safe safe} for a terminal.
 *
 * <p>The default view fits {@value #WIDTH} columns: a decision names its rule by a short id ({@code [reclaim]}) and the
 * rules' sentences follow the cycles once, under "Rules:"; the queue table shows the accelerator shares only, and a
 * REASON too long for the line wraps within its column. {@code wide} ({@code -o wide}) prints every column, every resource,
 * each decision's whole sentence and whole reasons.
 */
public final class TableReport {
    /** The width the default view keeps to (a terminal of 120 columns). */
    public static final int WIDTH = 120;

    private TableReport() {}

    public static String write(SimulationResult r) {
        return write(r, false);
    }

    public static String write(SimulationResult r, boolean wide) {
        return write(r, wide, Map.of());
    }

    /**
     * {@link #write(SimulationResult, boolean)}, the PodGroups table with a START column before REASON when {@code
     * starts} (PodGroup to its estimated start in words, docs/estimates.md) is not empty.
     */
    public static String write(SimulationResult r, boolean wide, Map<String, String> starts) {
        StringBuilder sb = new StringBuilder();
        for (String n : r.notices()) sb.append("notice: ").append(TerminalText.safe(n)).append('\n');
        RuleLegend rules = RuleLegend.of(r.cycles());
        List<CycleResult> cycles = r.cycles();
        Set<String> dims = shareDimensions(cycles);
        List<QueueStatus> before = List.of();
        for (int i = 0; i < cycles.size(); i++) {
            CycleResult c = cycles.get(i);
            String changed = changedShares(before, c.queues(), dims);
            int quietUntil = i;
            while (quiet(c) && changed.isEmpty() && quietUntil + 1 < cycles.size() && quiet(cycles.get(quietUntil + 1))
                    && changedShares(c.queues(), cycles.get(quietUntil + 1).queues(), dims).isEmpty()) quietUntil++;
            before = c.queues();
            if (quietUntil > i + 1) {
                sb.append("Cycles ").append(c.cycle()).append("-").append(cycles.get(quietUntil).cycle()).append(": nothing to do\n");
                i = quietUntil;
                continue;
            }
            sb.append("Cycle ").append(c.cycle()).append(": ").append(c.bindings().size()).append(" bound, ")
                    .append(c.evictions().size()).append(" evicted").append(changed.isEmpty() ? "" : "  |  " + changed).append('\n');
            for (Binding b : c.bindings()) {
                sb.append("  bind   ").append(TerminalText.safe(b.pod())).append(" -> ").append(TerminalText.safe(b.node()))
                        .append("   [").append(rule(b.rule(), rules, wide)).append("]\n");
            }
            for (Eviction e : c.evictions()) {
                sb.append("  evict  ").append(TerminalText.safe(e.pod())).append(" from ").append(TerminalText.safe(e.node()))
                        .append(" (").append(TerminalText.safe(e.action())).append(" for ").append(TerminalText.safe(e.forPodGroup()))
                        .append(")   [").append(rule(e.rule(), rules, wide)).append("]\n");
            }
        }
        sb.append(ending(r)).append('\n');
        if (!wide && !rules.isEmpty()) {
            sb.append("\nRules:\n");
            int width = rules.entries().keySet().stream().mapToInt(String::length).max().orElse(0);
            rules.entries().forEach((id, sentence) -> sb.append("  ").append(TerminalText.safe(id))
                    .append(" ".repeat(width - id.length() + 3)).append(TerminalText.safe(sentence)).append('\n'));
        }
        sb.append('\n');

        List<String[]> pods = new ArrayList<>();
        pods.add(new String[] {"POD", "PHASE", "NODE"});
        for (PodOutcome p : r.pods()) pods.add(new String[] {p.pod(), p.phase(), p.node() == null ? "<none>" : p.node()});
        sb.append(table(pods)).append('\n');

        List<String[]> groups = new ArrayList<>();
        // The DOMAIN column appears only when some gang runs in a network domain (issue 15).
        boolean domains = r.podGroups().stream().anyMatch(g -> g.domain() != null);
        groups.add(domains ? new String[] {"PODGROUP", "STATUS", "MINMEMBER", "RUNNINGS", "QUEUE", "DOMAIN", "REASON"}
                : new String[] {"PODGROUP", "STATUS", "MINMEMBER", "RUNNINGS", "QUEUE", "REASON"});
        for (PodGroupStatus g : r.podGroups()) {
            String reason = g.reason() == null ? "" : g.reason();
            groups.add(domains ? new String[] {g.podGroup(), g.phase(), Integer.toString(g.minMember()),
                    Integer.toString(g.running()), g.queue(), g.domain() == null ? "" : g.domain(), reason}
                    : new String[] {g.podGroup(), g.phase(), Integer.toString(g.minMember()), Integer.toString(g.running()),
                    g.queue(), reason});
        }
        if (!starts.isEmpty()) groups = withColumnBeforeLast(groups, "START", starts);
        sb.append(wide ? table(groups) : fitted(groups)).append('\n');

        List<String[]> queues = new ArrayList<>();
        if (wide) {
            queues.add(new String[] {"QUEUE", "PARENT", "WEIGHT", "STATE", "PENDING", "INQUEUE", "RUNNING", "DESERVED", "ALLOCATED", "REASON"});
        } else {
            queues.add(new String[] {"QUEUE", "PARENT", "WEIGHT", "STATE", "PENDING", "INQUEUE", "RUNNING", "ALLOCATED/DESERVED", "REASON"});
        }
        for (QueueStatus q : r.queues()) {
            String parent = q.parent() == null ? "root" : q.parent();
            String reason = q.reason() == null ? "" : q.reason();
            queues.add(wide
                    ? new String[] {q.queue(), parent, Integer.toString(q.weight()), q.state(), Integer.toString(q.pendingJobs()),
                            Integer.toString(q.inqueueJobs()), Integer.toString(q.runningJobs()), compact(q.deserved()),
                            compact(q.allocated()), reason}
                    : new String[] {q.queue(), parent, Integer.toString(q.weight()), q.state(), Integer.toString(q.pendingJobs()),
                            Integer.toString(q.inqueueJobs()), Integer.toString(q.runningJobs()), share(q, dims), reason});
        }
        sb.append(wide ? table(queues) : fitted(queues));
        return sb.toString();
    }

    /**
     * The last line of the cycles, e.g. {@code Stable after cycle 63 (5 cycles run; idle cycles skipped).}: cycle
     * numbers count simulated time, and the simulator skips the idle ones, so the count of cycles run is smaller.
     */
    static String ending(SimulationResult r) {
        List<CycleResult> cycles = r.cycles();
        long last = cycles.isEmpty() ? 0 : cycles.get(cycles.size() - 1).cycle();
        String run = cycles.size() + (cycles.size() == 1 ? " cycle" : " cycles") + " run";
        boolean skipped = last > cycles.size();
        return (r.stable() ? "Stable after cycle " : "Stopped at the cycle limit after cycle ") + last
                + " (" + run + (skipped ? "; idle cycles skipped" : "") + ").";
    }

    private static String rule(String rule, RuleLegend rules, boolean wide) {
        return TerminalText.safe(wide ? rule : rules.id(rule));
    }

    private static boolean quiet(CycleResult c) {
        return c.bindings().isEmpty() && c.evictions().isEmpty();
    }

    /** The accelerator dimensions any queue holds or deserves in any cycle; cpu when there are none. */
    static Set<String> shareDimensions(List<CycleResult> cycles) {
        TreeSet<String> dims = new TreeSet<>();
        for (CycleResult c : cycles) {
            for (QueueStatus q : c.queues()) {
                for (String d : q.deserved().add(q.allocated()).asMilliMap().keySet()) if (isAccelerator(d)) dims.add(d);
            }
        }
        if (dims.isEmpty()) dims.add("cpu");
        return dims;
    }

    /**
     * The queues whose allocated or deserved amount of a share dimension differs from the cycle before (from nothing,
     * for the first cycle), e.g. {@code mars-tech.com/gpu allocated/deserved: tenanta 16/16 tenantb 16/16}; empty
     * when none changed.
     */
    static String changedShares(List<QueueStatus> before, List<QueueStatus> now, Set<String> dims) {
        Map<String, QueueStatus> previous = new HashMap<>();
        for (QueueStatus q : before) previous.put(q.queue(), q);
        StringBuilder sb = new StringBuilder();
        for (String d : dims) {
            StringBuilder line = new StringBuilder();
            for (QueueStatus q : now) {
                QueueStatus p = previous.get(q.queue());
                long allocatedBefore = p == null ? 0 : p.allocated().milli(d);
                long deservedBefore = p == null ? 0 : p.deserved().milli(d);
                if (q.allocated().milli(d) == allocatedBefore && q.deserved().milli(d) == deservedBefore) continue;
                line.append(' ').append(TerminalText.safe(q.queue())).append(' ').append(amount(q.allocated(), d)).append('/')
                        .append(amount(q.deserved(), d));
            }
            if (line.isEmpty()) continue;
            sb.append(sb.isEmpty() ? "" : ";  ").append(d).append(" allocated/deserved:").append(line);
        }
        return sb.toString();
    }

    /** A queue's share in the share dimensions, e.g. {@code mars-tech.com/gpu 16/16}. */
    private static String share(QueueStatus q, Set<String> dims) {
        StringBuilder sb = new StringBuilder();
        for (String d : dims) {
            sb.append(sb.isEmpty() ? "" : ", ").append(d).append(' ').append(amount(q.allocated(), d)).append('/')
                    .append(amount(q.deserved(), d));
        }
        return sb.toString();
    }

    private static boolean isAccelerator(String dim) {
        return dim.contains("gpu") || dim.contains("npu") || dim.contains("tpu") || dim.contains("neuron");
    }

    /** An amount in the resource's own units, e.g. {@code 10.6} GPUs rather than {@code 10591m}. */
    private static String amount(Resources r, String dim) {
        return Quantity.human(dim, r.milli(dim));
    }

    /** e.g. {@code cpu=32,mars-tech.com/gpu=10.6,memory=256Gi}; "-" when empty. */
    private static String compact(Resources r) {
        if (r.isEmpty()) return "-";
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Long> e : r.asMilliMap().entrySet()) {
            sb.append(sb.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(Quantity.human(e.getKey(), e.getValue()));
        }
        return sb.toString();
    }

    /**
     * {@link #table}, with the last column (a reason) wrapped at spaces onto lines of its own column where a row would
     * pass {@value #WIDTH} columns, so nothing of it is lost; {@code -o wide} prints it on one line.
     */
    static String fitted(List<String[]> rows) {
        int cols = rows.get(0).length;
        int[] width = new int[cols];
        for (String[] row : rows) for (int i = 0; i < cols - 1; i++) width[i] = Math.max(width[i], TerminalText.safe(row[i]).length());
        int before = 0;
        for (int i = 0; i < cols - 1; i++) before += width[i] + 3;
        int room = Math.max(WIDTH - before, 24);
        List<String[]> wrapped = new ArrayList<>(rows.size());
        for (String[] row : rows) {
            List<String> parts = wrap(row[cols - 1], room);
            for (int p = 0; p < parts.size(); p++) {
                String[] line = p == 0 ? row.clone() : blank(cols);
                line[cols - 1] = parts.get(p);
                wrapped.add(line);
            }
        }
        return table(wrapped);
    }

    /** The rows with a column {@code header} before their last, each row's cell {@code cells} of its first (or ""). */
    private static List<String[]> withColumnBeforeLast(List<String[]> rows, String header, Map<String, String> cells) {
        List<String[]> out = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            String[] row = rows.get(i);
            String[] wider = new String[row.length + 1];
            System.arraycopy(row, 0, wider, 0, row.length - 1);
            wider[row.length - 1] = i == 0 ? header : cells.getOrDefault(row[0], "");
            wider[row.length] = row[row.length - 1];
            out.add(wider);
        }
        return out;
    }

    /** {@code text} in pieces of at most {@code room} characters, broken at spaces where it can be. */
    static List<String> wrap(String text, int room) {
        List<String> parts = new ArrayList<>();
        String rest = text;
        while (TerminalText.safe(rest).length() > room) {
            int cut = rest.lastIndexOf(' ', room);
            if (cut <= 0) cut = room;
            parts.add(rest.substring(0, cut).stripTrailing());
            rest = rest.substring(cut).stripLeading();
        }
        parts.add(rest);
        return parts;
    }

    private static String[] blank(int cols) {
        String[] row = new String[cols];
        java.util.Arrays.fill(row, "");
        return row;
    }

    /**
     * Columns padded to their widest cell, three spaces apart (kubectl style); the first row is the header. Cells are
     * printed {@linkplain TerminalText#safe safe} for a terminal.
     */
    public static String table(List<String[]> rows) {
        int cols = rows.get(0).length;
        List<String[]> safe = new ArrayList<>(rows.size());
        for (String[] row : rows) {
            String[] s = new String[cols];
            for (int i = 0; i < cols; i++) s[i] = TerminalText.safe(row[i]);
            safe.add(s);
        }
        int[] width = new int[cols];
        for (String[] row : safe) for (int i = 0; i < cols; i++) width[i] = Math.max(width[i], row[i].length());
        StringBuilder sb = new StringBuilder();
        for (String[] row : safe) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < cols; i++) {
                line.append(row[i]);
                if (i < cols - 1) line.append(" ".repeat(width[i] - row[i].length() + 3));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
