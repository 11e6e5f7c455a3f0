package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.sim.KeptSessionCheck;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The steady-state cost of the rules phase against churn, with a fresh rules session per cycle and with one session
 * kept across cycles, on the same snapshots: after a first cycle, for each churn level (0 = the same snapshot again,
 * nothing changed, not even the clock; else that fraction of the pods churns and the clock moves on 30 s), a few
 * consecutive cycles, each decided by both schedulers, whose decisions must agree. Prints one line per level with the
 * medians of the rules phase (and its parts) and of the whole cycle in wall-clock milliseconds, the cycle's CPU
 * milliseconds (less sensitive to other load on the machine). Both schedulers are configured as {@code run} has them
 * (no per-subject rule trace). Then the no-change cycle of the live scheduler, and the backlog cycle: only new
 * pending work arrives, and the kept scheduler passes over the jobs it parked.
 *
 * <p>Usage: {@code java -Xmx8g -cp <classpath> dev.arbiter.bench.ChurnCurve [RULES_DIR NODES PODS QUEUES SEED [REPEATS]]}
 * (defaults: rules 10000 100000 20 7 3).
 */
public final class ChurnCurve {
    /** {@code -Darbiter.churnCurve.keptOnly=true}: only the kept session (for profiling it); the fresh columns repeat it. */
    private static final boolean KEPT_ONLY = Boolean.getBoolean("arbiter.churnCurve.keptOnly");
    /**
     * {@code -Darbiter.churnCurve.frozenClock=true}: every snapshot keeps the first one's clock (a diagnostic: with the
     * clock moving, every running task's {@code runningSeconds} changes, so a kept session updates every TaskFact).
     */
    private static final boolean FROZEN_CLOCK = Boolean.getBoolean("arbiter.churnCurve.frozenClock");
    private static final double[] LEVELS = {0, 0.001, 0.01, 0.1};

    private ChurnCurve() {}

    public static void main(String[] args) {
        Path rulesDir = Path.of(args.length > 0 ? args[0] : "rules");
        int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int pods = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        int queues = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 7;
        int repeats = args.length > 5 ? Integer.parseInt(args[5]) : 3;
        RuleBook rules = RuleBook.load(rulesDir);
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        warmUp(rules, config);

        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.fleet(nodes, pods, queues, seed));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        Scheduler fresh = new Scheduler(rules, config).withoutTrace(); // as `run` has it
        Scheduler kept = fresh.keepingSession().keepingWorkingCopy();
        Random rnd = new Random(seed + 1);
        ClusterSnapshot snap = world.snapshot();
        CycleResult first = fresh.schedule(snap, 1);
        CycleResult keptFirst = kept.schedule(snap, 1);
        check(first, keptFirst, "first cycle");
        System.out.printf(Locale.ROOT, "%d nodes x %d pending pods: first cycle, rules phase fresh %.0f ms, kept (building its session) %.0f ms%n",
                nodes, pods, first.phaseMillis().get("rules"), keptFirst.phaseMillis().get("rules"));
        world.apply(first);
        int cycle = 1;
        ClusterSnapshot last = snap;
        System.out.println(" churn  pods |  fresh: rules (insert/classify/fair-share/policy)  cycle    cpu |   kept: rules (insert/classify/fair-share/policy)  cycle    cpu");
        for (double level : LEVELS) {
            List<Map<String, Double>> f = new ArrayList<>();
            List<Map<String, Double>> k = new ArrayList<>();
            List<Double> fCpu = new ArrayList<>(), kCpu = new ArrayList<>();
            int churned = 0;
            for (int i = 0; i < repeats; i++) {
                ClusterSnapshot s;
                if (level == 0) {
                    s = last;
                } else {
                    churned += world.churn(level, rnd, generator);
                    s = FROZEN_CLOCK ? atTime(world.snapshot(), snap.now()) : world.snapshot();
                }
                cycle++;
                long c0 = CPU.getCurrentThreadCpuTime();
                CycleResult rf = KEPT_ONLY ? null : fresh.schedule(s, cycle);
                long c1 = CPU.getCurrentThreadCpuTime();
                CycleResult rk = kept.schedule(s, cycle);
                long c2 = CPU.getCurrentThreadCpuTime();
                if (rf == null) rf = rk;
                fCpu.add((c1 - c0) / 1e6);
                kCpu.add((c2 - c1) / 1e6);
                check(rf, rk, "cycle " + cycle);
                f.add(rf.phaseMillis());
                k.add(rk.phaseMillis());
                if (level != 0) world.apply(rf);
                last = s;
            }
            System.out.printf(Locale.ROOT, "%5.1f%% %5d | %s %6.0f | %s %6.0f%n", level * 100, churned / repeats,
                    line(f), median(fCpu), line(k), median(kCpu));
        }
        kept.dropSession();
        quiet(rulesDir, config, generator);
    }

    /**
     * The no-change cycle of the live scheduler ({@link Scheduler#answeringUnchanged}): on the same cluster under a
     * pack of these rules with the eviction actions off (so that it settles: with them, each cycle's own evictions
     * change the next snapshot), cycles until one binds and evicts nothing, then that cluster again one second later.
     */
    private static void quiet(Path rulesDir, SchedulerConfig config, ClusterGenerator generator) {
        RuleBook rules;
        try {
            Path pack = java.nio.file.Files.createTempDirectory("arbiter-quiet-pack");
            Path packFile = java.nio.file.Files.writeString(pack.resolve(RuleBook.PACK_FILE), "name: quiet\nextends: "
                    + rulesDir.toAbsolutePath() + "\n");
            Path settings = java.nio.file.Files.writeString(pack.resolve(RuleBook.SETTINGS_FILE), "cycle:\n  evictions: []\n");
            try {
                rules = RuleBook.load(pack);
            } finally {
                // The compiled rules are in memory: the pack's folder is not needed after loading.
                java.nio.file.Files.delete(packFile);
                java.nio.file.Files.delete(settings);
                java.nio.file.Files.delete(pack);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Scheduler live = new Scheduler(rules, config).withoutTrace().keepingSession().keepingWorkingCopy().answeringUnchanged();
        ClusterWorld world = new ClusterWorld(generator.manifests());
        ClusterSnapshot s = world.snapshot();
        int cycle = 0;
        CycleResult r;
        double decidedMs;
        do {
            long t = System.nanoTime();
            r = live.schedule(s, ++cycle);
            decidedMs = (System.nanoTime() - t) / 1e6;
            world.apply(r);
            if (!r.decidedNothing() || r.wakeAt() >= 0) s = world.snapshot();
        } while ((!r.decidedNothing() || r.wakeAt() >= 0) && cycle < 8);
        if (!r.decidedNothing() || r.wakeAt() >= 0) {
            System.out.println("no-change cycle: the cluster did not settle within 8 cycles");
            live.dropSession();
            return;
        }
        List<Double> answered = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            long t = System.nanoTime();
            CycleResult again = live.schedule(atTime(s, s.now() + i), ++cycle);
            answered.add((System.nanoTime() - t) / 1e6);
            if (!again.phaseMillis().containsKey("unchanged")) throw new IllegalStateException("a quiet cluster was decided again");
        }
        System.out.printf(Locale.ROOT, "no-change cycle (evictions off, settled after %d cycles): the last decision %.0f ms, "
                + "the same cluster a second later %.3f ms (median of 5)%n", cycle - 5, decidedMs, median(answered));
        live.dropSession();
        backlog(rules, config, generator, world, s, cycle);
    }

    /**
     * The backlog cycle: on the settled cluster of {@link #quiet} ({@code world}, whose last snapshot is {@code s}),
     * new gangs of GPU pods, about 0.1% of the pods, arrive and nothing else changes, five times; each such cycle is decided
     * by a kept scheduler (as {@code run} has it, without answering unchanged cycles: these are not), whose parked
     * jobs are passed over, and by a fresh one, whose decisions it must match. Prints the medians.
     */
    private static void backlog(RuleBook rules, SchedulerConfig config, ClusterGenerator generator, ClusterWorld world,
                                ClusterSnapshot s, int cycle) {
        Scheduler fresh = new Scheduler(rules, config).withoutTrace();
        Scheduler kept = fresh.keepingSession().keepingWorkingCopy();
        kept.schedule(s, ++cycle); // the settled cluster once more: every waiting job is walked, and parked
        int arrivals = Math.max(1, world.podCount() / 1000);
        int arrived = 0;
        List<Double> keptMs = new ArrayList<>(), freshMs = new ArrayList<>();
        List<Double> passed = new ArrayList<>(), bound = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Gangs of GPU pods, as a training backlog: in the settled cluster, they wait with the rest.
            List<ClusterGenerator.GeneratedJob> jobs = new ArrayList<>();
            int pods = 0;
            for (int round = 0; pods < arrivals && round < 100; round++) {
                for (ClusterGenerator.GeneratedJob j : generator.morePending(arrivals)) {
                    if (j.group() == null || j.group().minMember() < 2) continue;
                    if (!j.pods().stream().allMatch(p -> p.requests().milli(ClusterGenerator.GPU) > 0)) continue;
                    jobs.add(j);
                    pods += j.pods().size();
                }
            }
            arrived += world.arrive(jobs);
            ClusterSnapshot next = world.snapshot();
            cycle++;
            long t0 = System.nanoTime();
            CycleResult rf = fresh.schedule(next, cycle);
            long t1 = System.nanoTime();
            CycleResult rk = kept.schedule(next, cycle);
            long t2 = System.nanoTime();
            check(rf, rk, "backlog cycle " + cycle);
            freshMs.add((t1 - t0) / 1e6);
            keptMs.add((t2 - t1) / 1e6);
            passed.add((double) kept.parkedPasses());
            bound.add((double) rf.bindings().size());
            world.apply(rf);
        }
        System.out.printf(Locale.ROOT, "backlog cycle (GPU gangs of %d pods arrive, nothing else changes; evictions off): fresh %.0f ms, "
                + "kept %.0f ms, parked jobs passed over %.0f times, %.0f bound (medians of 5)%n", arrived / 5, median(freshMs),
                median(keptMs), median(passed), median(bound));
        kept.dropSession();
    }

    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    private static double median(List<Double> v) {
        List<Double> sorted = new ArrayList<>(v);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static String line(List<Map<String, Double>> runs) {
        return String.format(Locale.ROOT, "%6.0f (%5.0f/%4.0f/%4.0f/%5.0f) %6.0f", median(runs, "rules"), median(runs, "rules.insert"),
                median(runs, "rules.classify"), median(runs, "rules.fair-share"), median(runs, "rules.policy"), median(runs, null));
    }

    /** The median of one phase (null: the whole cycle) over the runs. */
    private static double median(List<Map<String, Double>> runs, String phase) {
        List<Double> v = new ArrayList<>();
        for (Map<String, Double> r : runs) {
            if (phase != null) {
                v.add(r.getOrDefault(phase, 0.0));
            } else {
                double sum = 0;
                for (Map.Entry<String, Double> e : r.entrySet()) if (!e.getKey().contains(".")) sum += e.getValue();
                v.add(sum);
            }
        }
        v.sort(null);
        return v.get(v.size() / 2);
    }

    private static ClusterSnapshot atTime(ClusterSnapshot s, long now) {
        return new ClusterSnapshot(s.nodes(), s.pods(), s.podGroups(), s.queues(), s.priorityClasses(), now, s.nominations(),
                s.namespaceLabels());
    }

    private static void check(CycleResult fresh, CycleResult kept, String where) {
        String d = KeptSessionCheck.firstDifference(fresh, kept);
        if (d != null) throw new IllegalStateException("the kept session decided differently at " + where + ": " + d);
    }

    private static void warmUp(RuleBook rules, SchedulerConfig config) {
        ClusterGenerator g = ClusterGenerator.create(SynthSpec.fleet(500, 5_000, 20, 3));
        ClusterWorld w = new ClusterWorld(g.manifests());
        Scheduler fresh = new Scheduler(rules, config);
        Scheduler kept = fresh.keepingSession().keepingWorkingCopy();
        Random rnd = new Random(3);
        for (int i = 1; i <= 6; i++) {
            ClusterSnapshot s = w.snapshot();
            CycleResult r = fresh.schedule(s, i);
            kept.schedule(s, i);
            w.apply(r);
            w.churn(0.01, rnd, g);
        }
        kept.dropSession();
    }
}
