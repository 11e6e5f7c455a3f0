package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes a simulation for people: each cycle's decisions with the rule behind them and a one-line view of every
 * queue's allocated/deserved accelerators, then kubectl-style tables of pods, PodGroups and queues. Amounts read in
 * the resource's own units ({@code 10.6} GPUs, {@code 256Gi}); names are printed {@linkplain TerminalText#safe safe}
 * for a terminal.
 *
 * <p>A decision names its rule by a short id ({@code [reclaim]}) and the rules' sentences follow the cycles once,
 * under "Rules:"; {@code wide} prints each decision's whole sentence instead.
 */
public final class TableReport {
    private TableReport() {}

    public static String write(SimulationResult r) {
        return write(r, false);
    }

    public static String write(SimulationResult r, boolean wide) {
        StringBuilder sb = new StringBuilder();
        for (String n : r.notices()) sb.append("notice: ").append(TerminalText.safe(n)).append('\n');
        RuleLegend rules = RuleLegend.of(r.cycles());
        List<CycleResult> cycles = r.cycles();
        for (int i = 0; i < cycles.size(); i++) {
            CycleResult c = cycles.get(i);
            int quietUntil = i;
            while (quietUntil + 1 < cycles.size() && quiet(cycles.get(quietUntil + 1))
                    && shares(cycles.get(quietUntil + 1).queues()).equals(shares(c.queues())) && quiet(c)) quietUntil++;
            if (quietUntil > i + 1) {
                sb.append("Cycles ").append(c.cycle()).append("-").append(cycles.get(quietUntil).cycle())
                        .append(": nothing to do  |  ").append(shares(c.queues())).append('\n');
                i = quietUntil;
                continue;
            }
            sb.append("Cycle ").append(c.cycle()).append(": ").append(c.bindings().size()).append(" bound, ")
                    .append(c.evictions().size()).append(" evicted  |  ").append(shares(c.queues())).append('\n');
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
        sb.append(r.stable() ? "Stable after " : "Stopped (cycle limit) after ").append(r.cycles().size()).append(" cycle(s).\n");
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
        sb.append(table(groups)).append('\n');

        List<String[]> queues = new ArrayList<>();
        queues.add(new String[] {"QUEUE", "PARENT", "WEIGHT", "STATE", "PENDING", "INQUEUE", "RUNNING", "DESERVED", "ALLOCATED", "REASON"});
        for (QueueStatus q : r.queues()) {
            queues.add(new String[] {q.queue(), q.parent() == null ? "root" : q.parent(), Integer.toString(q.weight()), q.state(),
                    Integer.toString(q.pendingJobs()), Integer.toString(q.inqueueJobs()), Integer.toString(q.runningJobs()),
                    compact(q.deserved()), compact(q.allocated()), q.reason() == null ? "" : q.reason()});
        }
        sb.append(table(queues));
        return sb.toString();
    }

    private static String rule(String rule, RuleLegend rules, boolean wide) {
        return TerminalText.safe(wide ? rule : rules.id(rule));
    }

    private static boolean quiet(CycleResult c) {
        return c.bindings().isEmpty() && c.evictions().isEmpty();
    }

    /** e.g. {@code tenanta mars-tech.com/gpu 0/16, tenantb mars-tech.com/gpu 32/16} for the accelerator dimensions. */
    static String shares(List<QueueStatus> queues) {
        TreeSet<String> dims = new TreeSet<>();
        for (QueueStatus q : queues) {
            for (String d : q.deserved().add(q.allocated()).asMilliMap().keySet()) if (isAccelerator(d)) dims.add(d);
        }
        if (dims.isEmpty()) dims.add("cpu");
        StringBuilder sb = new StringBuilder();
        for (String d : dims) {
            sb.append(d).append(" allocated/deserved:");
            for (QueueStatus q : queues) {
                sb.append(' ').append(TerminalText.safe(q.queue())).append(' ').append(amount(q.allocated(), d)).append('/')
                        .append(amount(q.deserved(), d));
            }
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
