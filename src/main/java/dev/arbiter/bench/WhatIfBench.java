package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.sim.Simulator;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.SynthSpec;
import dev.arbiter.whatif.Answer;
import dev.arbiter.whatif.WhatIf;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The whatif benchmark ({@code arbiter bench --whatif}): a generated fleet ({@link SynthSpec#fleet}, default 1,000
 * nodes and 10,000 pending pods), its first cycle run, then {@code whatif} asked on the snapshot of cycle 2 for the
 * largest gang still pending there (its cycle-1 reason, its changes, the engine cycles they took), best of
 * {@code rounds} after one warm-up. One plain cycle on the same snapshot is timed beside it, as the unit a check
 * costs. The budget (issue 39) is an answer within 2 s.
 */
public final class WhatIfBench {
    /** What was measured. */
    public record Result(int nodes, int pods, String job, int jobPods, String verdict, int changes, int engineCycles,
                         long firstMillis, long bestMillis, long cycleMillis, long bestCpuMillis, long cycleCpuMillis,
                         double loadAverage, List<String> changeWords) {}

    private final Path rules;
    private final long seed;
    private final PrintWriter progress;

    public WhatIfBench(Path rules, long seed, PrintWriter progress) {
        this.rules = rules;
        this.seed = seed;
        this.progress = progress;
    }

    public Result run(int nodes, int pendingPods, int queues, int rounds) {
        Manifests m = ClusterGenerator.generate(SynthSpec.fleet(nodes, pendingPods, queues, seed));
        RuleBook book = RuleBook.load(rules);
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        Simulator sim = new Simulator(new Scheduler(book, config));
        progress.println("whatif bench: " + nodes + " nodes, " + m.pods().size() + " pods; running cycle 1");
        progress.flush();
        ClusterSnapshot state = sim.stateAt(m, Simulator.Options.defaults(1), 2);
        // The largest gang still pending at cycle 2 (ties: by name).
        Map<String, Integer> pendingOf = new HashMap<>();
        for (PodSpec p : state.pods()) if (!p.isBound()) pendingOf.merge(p.jobId(), 1, Integer::sum);
        String job = null;
        for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(pendingOf).entrySet()) {
            if (job == null || e.getValue() > pendingOf.get(job)) job = e.getKey();
        }
        if (job == null) throw new IllegalStateException("no job is pending after cycle 1");
        String asked = job;
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long c0 = System.nanoTime(), cpu0 = cpu.getCurrentThreadCpuTime();
        CycleResult plain = new Scheduler(book, config).withoutTrace().schedule(state, 2);
        long cycleMillis = (System.nanoTime() - c0) / 1_000_000;
        long cycleCpu = (cpu.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
        PodGroupStatus st = plain.podGroups().stream().filter(g -> g.podGroup().equals(asked)).findFirst().orElse(null);
        progress.println("whatif bench: asking about " + job + " (" + pendingOf.get(job) + " pods pending"
                + (st == null ? "" : ": " + st.reason()) + ")");
        progress.flush();
        WhatIf.Question q = new WhatIf.Question(state, 2, job, book, config, 1, 5);
        long first = -1, best = Long.MAX_VALUE, bestCpu = Long.MAX_VALUE;
        Answer a = null;
        for (int i = 0; i <= rounds; i++) {
            long t0 = System.nanoTime(), t0cpu = cpu.getCurrentThreadCpuTime();
            a = WhatIf.ask(q);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            long cpuMs = (cpu.getCurrentThreadCpuTime() - t0cpu) / 1_000_000;
            if (i == 0) first = ms;
            else {
                best = Math.min(best, ms);
                bestCpu = Math.min(bestCpu, cpuMs);
            }
            progress.println("whatif bench: round " + i + (i == 0 ? " (warm-up)" : "") + ": " + ms + " ms (" + cpuMs
                    + " ms of CPU), " + a.engineCycles() + " engine cycles");
            progress.flush();
        }
        List<String> words = new ArrayList<>();
        for (Answer.Remedy r : a.remedies()) words.add(r.change().words());
        return new Result(nodes, state.pods().size(), job, pendingOf.get(job), a.verdict().name(), a.remedies().size(),
                a.engineCycles(), first, rounds == 0 ? first : best, cycleMillis, bestCpu, cycleCpu,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), words);
    }

    /** The result as a few lines. */
    public static String describe(Result r) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "whatif at %,d nodes x %,d pods: job %s (%d pending pods): %s, %d change(s), %d engine cycles%n",
                r.nodes(), r.pods(), r.job(), r.jobPods(), r.verdict(), r.changes(), r.engineCycles()));
        sb.append(String.format(Locale.ROOT, "  answer: first %,d ms, best %,d ms (%,d ms of CPU; budget 2,000 ms); one plain cycle on the"
                + " same snapshot: %,d ms (%,d ms of CPU); load average %.1f%n", r.firstMillis(), r.bestMillis(), r.bestCpuMillis(),
                r.cycleMillis(), r.cycleCpuMillis(), r.loadAverage()));
        for (String w : r.changeWords()) sb.append("  - ").append(w).append('\n');
        return sb.toString();
    }
}
