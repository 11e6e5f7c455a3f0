package dev.arbiter.bench;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodSpec;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The soak: many cycles of the real engine on one generated fleet, as a long-running scheduler lives (its rules
 * session and working copy kept from cycle to cycle, as {@code arbiter run} keeps them) — each cycle's
 * nominations carried into the next snapshot, evicted pods recreated by their controllers, and a share of the pods
 * churning (jobs finish, new ones arrive) between cycles. Every cycle's decisions are checked before they are
 * executed: no pod bound twice, none bound that is not pending, none evicted that is not running, no pod both bound and
 * evicted; and after them, no node over its allocatable. The first cycle that breaks one stops the soak and is
 * reported. (The property tests check more promises, on small clusters.)
 */
public final class Soak {
    /** What to run: one fleet size, how many cycles, and the share of pods that churn between cycles. */
    public record Options(int nodes, int pendingPods, int queues, long seed, int cycles, double churn, Path rules,
                          int memoryDivisor) {}

    /** What happened: cycles run, decisions made, cycle times (median, 99th percentile, max), heap, and violations. */
    public record Result(Options options, int cycles, long bindings, long evictions, long nominations,
                         double medianMs, double p99Ms, double maxMs, long peakHeapMiB, List<String> violations,
                         String decisionDigest) {
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private final Options options;
    private final PrintWriter progress;

    public Soak(Options options, PrintWriter progress) {
        this.options = options;
        this.progress = progress;
    }

    public Result run() {
        Options o = options;
        say("generating " + o.nodes() + " nodes x " + o.pendingPods() + " pending pods, " + o.queues() + " queues, seed "
                + o.seed());
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.fleet(o.nodes(), o.pendingPods(), o.queues(), o.seed())
                .withMemoryDivisor(o.memoryDivisor()));
        ClusterWorld world = new ClusterWorld(generator.manifests()).withNominations().recreatingEvicted();
        // As `run` keeps it: one rules session and one working copy across every cycle, without the rule trace.
        Scheduler engine = new Scheduler(RuleBook.load(o.rules()), SchedulerConfig.simulatorDefault()).withoutTrace()
                .keepingSession().keepingWorkingCopy();
        Set<String> overAtStart = new HashSet<>(world.overCapacityNodes());
        Random churn = new Random(o.seed() * 31);
        List<String> violations = new ArrayList<>();
        double[] times = new double[o.cycles()];
        long bindings = 0, evictions = 0, nominations = 0;
        DecisionDigest digest = new DecisionDigest();
        Benchmark.gcAndResetPeaks();
        int ran = 0;
        for (int cycle = 1; cycle <= o.cycles() && violations.isEmpty(); cycle++) {
            ClusterSnapshot snap = world.snapshot();
            long t0 = System.nanoTime();
            CycleResult r = engine.schedule(snap, cycle);
            times[ran++] = (System.nanoTime() - t0) / 1e6;
            digest.add(r);
            violations.addAll(checkDecisions(snap, r));
            if (!violations.isEmpty()) break;
            world.apply(r);
            for (String node : world.overCapacityNodes()) {
                if (!overAtStart.contains(node)) violations.add("cycle " + cycle + ": node " + node + " is over capacity");
            }
            bindings += r.bindings().size();
            evictions += r.evictions().size();
            nominations += r.nominations().size();
            int churned = world.churn(o.churn(), churn, generator);
            if (cycle % 10 == 0 || cycle == 1) {
                say(String.format(Locale.ROOT, "cycle %d: %.0f ms, %d bound, %d evicted, %d nominated, %d pods churned",
                        cycle, times[cycle - 1], r.bindings().size(), r.evictions().size(), r.nominations().size(), churned));
            }
        }
        double[] sorted = Arrays.copyOf(times, ran);
        Arrays.sort(sorted);
        return new Result(o, ran, bindings, evictions, nominations, percentile(sorted, 50), percentile(sorted, 99),
                sorted.length == 0 ? 0 : sorted[sorted.length - 1], Benchmark.peakHeapMiB(), violations, digest.hex());
    }

    /** The decisions of one cycle against the snapshot it saw: each a one-line violation, or none. */
    public static List<String> checkDecisions(ClusterSnapshot snap, CycleResult r) {
        Map<String, PodSpec> pods = new HashMap<>();
        for (PodSpec p : snap.pods()) pods.put(p.key(), p);
        List<String> out = new ArrayList<>();
        Set<String> bound = new HashSet<>();
        for (Binding b : r.bindings()) {
            if (!bound.add(b.pod())) out.add("cycle " + r.cycle() + ": " + b.pod() + " bound twice");
            PodSpec p = pods.get(b.pod());
            if (p == null || p.isBound() || p.terminating()) {
                out.add("cycle " + r.cycle() + ": bound " + b.pod() + ", which is not pending");
            }
        }
        for (Eviction e : r.evictions()) {
            PodSpec p = pods.get(e.pod());
            if (p == null || !p.isBound()) out.add("cycle " + r.cycle() + ": evicted " + e.pod() + ", which is not running");
            if (bound.contains(e.pod())) out.add("cycle " + r.cycle() + ": " + e.pod() + " both bound and evicted");
        }
        return out;
    }

    private static double percentile(double[] sorted, int p) {
        if (sorted.length == 0) return 0;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    /** One line per result, for people. */
    public static String describe(Result r) {
        Options o = r.options();
        return String.format(Locale.ROOT, "soak %d nodes x %d pending pods, %d queues, seed %d, %.1f%% churn: %d cycles,"
                        + " %d bindings, %d evictions, %d nominations; cycle median %.0f ms, p99 %.0f ms, max %.0f ms;"
                        + " peak heap %d MiB; decision digest %s; %s", o.nodes(), o.pendingPods(), o.queues(), o.seed(), o.churn() * 100,
                r.cycles(), r.bindings(), r.evictions(), r.nominations(), r.medianMs(), r.p99Ms(), r.maxMs(),
                r.peakHeapMiB(), r.decisionDigest(), r.ok() ? "every invariant held" : "VIOLATED: " + String.join("; ", r.violations()));
    }

    private void say(String line) {
        progress.println("soak: " + line);
        progress.flush();
    }
}
