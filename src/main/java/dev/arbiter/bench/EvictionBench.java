package dev.arbiter.bench;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.SynthSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code arbiter bench --evictions}: the {@link FleetAudit} on generated fleets. Each fleet is what
 * {@code arbiter generate --nodes N --pods P --seed S} prints (20 queues, half the GPUs busy, gangs up to 64), run as
 * {@code arbiter simulate --scoring MODE --max-cycles C} runs it (one-second cycles, idle stretches skipped to the next
 * arrival or wake-up, until settled or C cycles), with every cycle audited.
 */
public final class EvictionBench {
    /** One fleet: nodes × pending pods, seed, scoring mode. */
    public record Fleet(int nodes, int pods, long seed, String scoring) {
        public String size() {
            return nodes + "x" + pods;
        }
    }

    /** A fleet's counts, whether it settled within the cycle limit, and the wall time. */
    public record Row(Fleet fleet, FleetAudit.Counts counts, boolean settled, double seconds, List<String> findings) {}

    private final Path rules;
    private final int maxCycles;
    private final PrintWriter progress;

    public EvictionBench(Path rules, int maxCycles, PrintWriter progress) {
        this.rules = rules;
        this.maxCycles = maxCycles;
        this.progress = progress;
    }

    public List<Row> run(List<Fleet> fleets) {
        RuleBook book = RuleBook.load(rules);
        List<Row> rows = new ArrayList<>();
        for (Fleet f : fleets) {
            rows.add(run(book, f));
            Row last = rows.get(rows.size() - 1);
            progress.printf(Locale.ROOT, "%s seed %d %s: %d cycles, %.1f s%n", f.size(), f.seed(), f.scoring(),
                    last.counts().cycles(), last.seconds());
            for (String line : last.findings()) progress.println("  " + line);
            progress.flush();
        }
        return rows;
    }

    private Row run(RuleBook book, Fleet f) {
        long t0 = System.nanoTime();
        Manifests m = ClusterGenerator.generate(new SynthSpec(f.nodes(), f.pods(), 20, f.seed(), 0.5, 64, 1));
        Scheduler scheduler = new Scheduler(book,
                new SchedulerConfig(new LinkedHashSet<>(SchedulerConfig.DEFAULT_NAMES), dev.arbiter.policy.ScoringMode.parse(f.scoring())));
        FleetAudit audit = new FleetAudit(ClusterGenerator.GPU);
        SimulationResult result = new Simulator(scheduler).run(m, Simulator.Options.defaults(maxCycles), audit::observe);
        return new Row(f, audit.counts(), result.stable(), (System.nanoTime() - t0) / 1e9, audit.findings());
    }

    /** A row per fleet, then totals per size and scoring mode, then per scoring mode. */
    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        String fmt = "%-11s %-5s %-8s %9s %12s %12s %10s %11s %10s %10s %8s %7s %8s%n";
        sb.append(String.format(Locale.ROOT, fmt, "size", "seed", "scoring", "cycles", "reclaim(v)", "preempt(v)",
                "violation", "last-resort", "over-freed", "GPUs", "unneeded", "cpu>gpu", "seconds"));
        sb.append("(cycles: run/with evictions, + if not settled; reclaim(v), preempt(v): groups (victims); violation,"
                + " last-resort: victim queues left below their floor; over-freed, GPUs: groups freeing more than one"
                + " victim beyond need, and the GPUs beyond, reclaim/preempt; unneeded: plans with a victim that could"
                + " have stayed; cpu>gpu: CPU-only jobs evicting GPU pods)\n");
        Map<String, FleetAudit.Counts> bySize = new LinkedHashMap<>();
        Map<String, FleetAudit.Counts> byMode = new LinkedHashMap<>();
        Map<String, Double> secondsBySize = new LinkedHashMap<>();
        for (Row r : rows) {
            Fleet f = r.fleet();
            row(sb, fmt, f.size(), String.valueOf(f.seed()), f.scoring(), r.counts(), r.seconds(), r.settled());
            String k = f.size() + " " + f.scoring();
            bySize.merge(k, r.counts(), FleetAudit.Counts::plus);
            secondsBySize.merge(k, r.seconds(), Double::sum);
            byMode.merge(f.scoring(), r.counts(), FleetAudit.Counts::plus);
        }
        sb.append('\n');
        for (Map.Entry<String, FleetAudit.Counts> e : bySize.entrySet()) {
            String[] k = e.getKey().split(" ");
            row(sb, fmt, k[0], "all", k[1], e.getValue(), secondsBySize.get(e.getKey()), true);
        }
        for (Map.Entry<String, FleetAudit.Counts> e : byMode.entrySet()) {
            sb.append('\n').append("total, ").append(e.getKey()).append(":\n").append(e.getValue().render());
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String fmt, String size, String seed, String scoring, FleetAudit.Counts c,
                            double seconds, boolean settled) {
        sb.append(String.format(Locale.ROOT, fmt, size, seed, scoring,
                c.cycles() + "/" + c.evictingCycles() + (settled ? "" : "+"),
                c.reclaimGroups() + "(" + c.reclaimVictims() + ")", c.preemptGroups() + "(" + c.preemptVictims() + ")",
                c.floorViolations(), c.floorLastResort(), c.overFreedReclaim() + "/" + c.overFreedPreempt(),
                c.gpusBeyondReclaim() + "/" + c.gpusBeyondPreempt(), c.nonMinimalPlans(),
                c.cpuOnlyEvictingGpu(), String.format(Locale.ROOT, "%.1f", seconds)));
    }
}
