package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.json.JsonWriter;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scale benchmark: for each size, on one generated snapshot, measures
 * <ol>
 *   <li>cold start: a fresh JVM (same classpath) from start to its first decision on that size ({@link FirstDecision}),
 *       once compiling the rules (a first start) and once reading them from the rules cache (a restart);</li>
 *   <li>the first full cycle of the Drools engine (placements per second) and the reference on the same snapshot;</li>
 *   <li>a steady-state cycle after 1% churn (finished jobs leave, new ones arrive), engine and reference; the engine
 *       as {@code run} has it, its rules session kept from cycles on the snapshots before (the first, then the first
 *       cycle's decisions executed), and, for comparison, with a fresh session;</li>
 *   <li>a 1,000-pod gang (1 GPU per pod, top priority, its own queue) arriving on that cluster: the cycle that decides it;</li>
 *   <li>peak heap across those cycles ({@link MemoryPoolMXBean} peaks of the heap pools, reset per size);</li>
 *   <li>the engine's per-phase timings (snapshot, rule firing, placement = admit + allocate, victim selection);</li>
 *   <li>whether engine and reference agreed on the first cycle (a differential test at scale);</li>
 *   <li>the first cycle of the same cluster with the placement-constraint mix ({@link MixRow}), and its placement
 *       rate as a share of the plain cluster's, from the same run.</li>
 * </ol>
 * Two JIT warm-up cycles on a small cluster run first, so the first-cycle numbers are not JIT start-up (cold start is
 * measured separately). Every cycle is pure (the same snapshot gives the same decisions), so each is also repeated on
 * its snapshot and the best of {@value #REPEATS} is reported beside the very first run. Progress goes to the
 * {@code progress} stream.
 */
public final class Benchmark {
    /** One size of the matrix. */
    public record Size(int nodes, int pendingPods, int queues) {}

    /** What to run. */
    public record Options(List<Size> sizes, long seed, Path rules, boolean coldStart, int memoryDivisor,
                          boolean reclaimableQueues, boolean constraintMix, boolean mixReference, boolean reference) {
        public Options(List<Size> sizes, long seed, Path rules, boolean coldStart, int memoryDivisor) {
            this(sizes, seed, rules, coldStart, memoryDivisor, true, true, false, true);
        }
    }

    /**
     * The first cycle of the same cluster with the placement-constraint mix ({@link SynthSpec.Constraints#MIX}: 30% of
     * jobs with required node affinity, 10% with required pod anti-affinity per hostname, 10% with a zone spread):
     * best of {@value #REPEATS} and first run, bindings, placements per second and their share of the plain cluster's
     * rate measured in the same run; the reference's time and agreement when it was asked to run on the mix.
     */
    public record MixRow(double firstMs, double bestMs, int bindings, double placementsPerSec, double shareOfPlain,
                        Double referenceMs, Integer disagreements, String firstDisagreement, Map<String, Double> phases) {}

    /** The measurements of one size; times in milliseconds, heap in MiB. */
    public record Row(Size size, int totalPods, int runningPods, long generateMs, Long coldStartMs, Long coldRulesMs,
                      Long coldCompileStartMs, Long coldCompileRulesMs,
                      double engineFirstMs, double engineFirstBestMs, int engineBindings, int engineEvictions, double placementsPerSec,
                      double referenceFirstMs, double ratio, int churnedPods, double engineSteadyMs, double freshSessionSteadyMs,
                      double referenceSteadyMs, double gangCycleMs, String gangOutcome, long peakHeapMiB, long peakLiveHeapMiB,
                      Map<String, Double> firstPhases, Map<String, Double> steadyPhases, int disagreements,
                      String firstDisagreement, MixRow mix) {}

    private final Options options;
    private final PrintWriter progress;
    private final HeapWatch heap = new HeapWatch();

    public Benchmark(Options options, PrintWriter progress) {
        this.options = options;
        this.progress = progress;
    }

    /** The full matrix: 1k, 5k, 10k nodes × 10k, 50k, 100k pending pods, 20 queues. */
    public static List<Size> fullMatrix() {
        List<Size> out = new ArrayList<>();
        for (int pods : new int[] {10_000, 50_000, 100_000}) {
            for (int nodes : new int[] {1_000, 5_000, 10_000}) out.add(new Size(nodes, pods, 20));
        }
        return out;
    }

    /** The quick size: 500 nodes × 5k pending pods, 20 queues (well under two minutes even on a busy machine). */
    public static List<Size> quickMatrix() {
        return List.of(new Size(500, 5_000, 20));
    }

    public List<Row> run() {
        RuleBook rules = RuleBook.load(options.rules());
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        // Configured as `arbiter run` configures it: without the per-subject rule trace that simulate and explain keep.
        Scheduler engine = new Scheduler(rules, config).withoutTrace();
        ReferenceScheduler reference = new ReferenceScheduler(config);
        warmUp(engine, reference, options.sizes().get(0));
        List<Row> rows = new ArrayList<>();
        try {
            for (Size size : options.sizes()) rows.add(measure(size, engine, reference));
        } finally {
            heap.close(); // the collectors' listeners go with this bench (BenchSmokeTest runs it in the test JVM)
        }
        return rows;
    }

    /**
     * Two cycles of each scheduler on a cluster a fifth of the first size (at most 200 nodes x 2000 pods), and two of
     * the engine on the same clusters with the constraint mix.
     */
    private void warmUp(Scheduler engine, ReferenceScheduler reference, Size first) {
        int nodes = Math.max(10, Math.min(200, first.nodes() / 5));
        int pods = Math.max(50, Math.min(2_000, first.pendingPods() / 5));
        say("warm-up: " + nodes + " nodes x " + pods + " pending pods");
        for (int i = 0; i < 2; i++) {
            SynthSpec spec = SynthSpec.fleet(nodes, pods, first.queues(), 99 + i).withMemoryDivisor(options.memoryDivisor());
            ClusterSnapshot s = new ClusterWorld(ClusterGenerator.generate(spec)).snapshot();
            engine.schedule(s, 1);
            if (options.reference()) reference.schedule(s, 1);
            if (options.constraintMix()) {
                // The constraint mix's code paths get the same warm-up as the plain ones.
                engine.schedule(new ClusterWorld(ClusterGenerator.generate(spec.withConstraints(SynthSpec.Constraints.MIX)))
                        .snapshot(), 1);
            }
        }
    }

    private Row measure(Size size, Scheduler engine, ReferenceScheduler reference) {
        String name = size.nodes() + " nodes x " + size.pendingPods() + " pending pods";
        say(name + ": generating");
        long g0 = System.nanoTime();
        SynthSpec spec = SynthSpec.fleet(size.nodes(), size.pendingPods(), size.queues(), options.seed())
                .withMemoryDivisor(options.memoryDivisor());
        if (!options.reclaimableQueues()) spec = spec.withoutReclaimableQueues();
        ClusterGenerator generator = ClusterGenerator.create(spec);
        Manifests m = generator.manifests();
        ClusterWorld world = new ClusterWorld(m);
        ClusterSnapshot first = world.snapshot();
        long generateMs = ms(g0);
        int running = (int) m.pods().stream().filter(PodSpec::isBound).count();

        Long[] cold = options.coldStart() ? coldStarts(size) : new Long[] {null, null, null, null};

        gcAndResetPeaks();
        heap.reset();
        say(name + ": engine first cycle");
        long e0 = System.nanoTime();
        CycleResult e1 = engine.schedule(first, 1);
        double engineFirst = msD(e0);
        // The same snapshot again: cycles are pure, so repeats measure the same work with less noise.
        say(String.format(Locale.ROOT, "%s: engine first cycle %.0f ms, %d bound, %d evicted, phases %s", name, engineFirst,
                e1.bindings().size(), e1.evictions().size(), new java.util.TreeMap<>(e1.phaseMillis())));
        double engineFirstBest = Math.min(engineFirst, best(REPEATS - 1, () -> engine.schedule(first, 1)));
        say(name + ": reference first cycle");
        say(name + ": first cycle decision digest " + DecisionDigest.of(e1));
        double refFirst = Double.NaN;
        List<String> diffs = List.of();
        if (options.reference()) {
            CycleResult ref1 = reference.schedule(first, 1);
            refFirst = best(REPEATS, () -> reference.schedule(first, 1));
            diffs = DecisionDiff.compare(first, e1, ref1);
        }

        world.apply(e1);
        ClusterSnapshot applied = world.snapshot();
        int churned = world.churn(0.01, new Random(options.seed() + 1), generator);
        ClusterSnapshot steady = world.snapshot();
        say(name + ": engine steady-state cycle after churning " + churned + " pods");
        CycleResult es = engine.schedule(steady, 2);
        double freshSteady = best(REPEATS, () -> engine.schedule(steady, 2));
        // As `run` has it: one rules session and working copy, kept from the cycles before. They see the first
        // snapshot, then the same cluster with the first cycle's decisions executed, then the timed one, which differs
        // from that by the 1% churn alone. (Dropped before each repeat, so that every timed cycle sees that change.)
        Scheduler kept = engine.keepingSession().keepingWorkingCopy();
        double engineSteady = Double.MAX_VALUE;
        for (int i = 0; i < REPEATS; i++) {
            kept.dropSession();
            kept.schedule(first, 1);
            kept.schedule(applied, 2);
            long t = System.nanoTime();
            CycleResult ks = kept.schedule(steady, 2);
            engineSteady = Math.min(engineSteady, msD(t));
            String differs = i == 0 ? dev.arbiter.sim.KeptSessionCheck.firstDifference(es, ks) : null;
            if (differs != null) say(name + ": the kept rules session and working copy DISAGREE with a fresh cycle on the steady cycle: " + differs);
        }
        kept.dropSession();
        say(name + ": steady cycle decision digest " + DecisionDigest.of(es));
        double refSteady = options.reference() ? best(REPEATS, () -> reference.schedule(steady, 2)) : Double.NaN;

        world.apply(es);
        ClusterSnapshot withGang = withBigGang(world.snapshot(), 1000, options.memoryDivisor());
        say(name + ": engine cycle with a 1000-pod gang");
        CycleResult eg = engine.schedule(withGang, 3);
        double gangMs = best(REPEATS, () -> engine.schedule(withGang, 3));
        say(name + ": gang cycle decision digest " + DecisionDigest.of(eg));
        long gangBound = eg.bindings().stream().filter(b -> b.pod().startsWith("bench/giant-")).count();
        String gangOutcome = gangBound >= 1000 ? "bound" : eg.podGroups().stream()
                .filter(g -> g.podGroup().equals("bench/giant")).map(g -> g.phase() + ": " + g.reason()).findFirst().orElse("?");
        long peak = peakHeapMiB();
        long peakLive = heap.peakLiveMiB();

        double plainRate = e1.bindings().size() / (engineFirstBest / 1000.0);
        MixRow mix = options.constraintMix() ? measureMix(name, spec, engine, reference, plainRate) : null;
        Row row = new Row(size, m.pods().size(), running, generateMs, cold[0], cold[1], cold[2], cold[3], engineFirst, engineFirstBest,
                e1.bindings().size(), e1.evictions().size(), plainRate, refFirst,
                engineFirstBest / refFirst,
                churned, engineSteady, freshSteady, refSteady, gangMs, gangOutcome, peak, peakLive, e1.phaseMillis(), es.phaseMillis(),
                diffs.size(), diffs.isEmpty() ? null : diffs.get(0), mix);
        say(String.format(Locale.ROOT, "%s: first %.0f ms (%d bound, %.0f/s), reference %.0f ms (x%.1f), steady %.0f ms "
                        + "(fresh session %.0f ms), gang %.0f ms (%s), peak heap %d MiB (live after a collection %d MiB)%s", name, engineFirst, row.engineBindings(),
                row.placementsPerSec(), refFirst, row.ratio(), engineSteady, freshSteady, gangMs, gangOutcome, peak, peakLive,
                !options.reference() ? ", reference not run" : diffs.isEmpty() ? ", engine and reference agree" : ", DISAGREE: " + diffs.get(0)));
        return row;
    }

    /** The first cycle of the same spec with the constraint mix, measured as the plain first cycle is. */
    private MixRow measureMix(String name, SynthSpec plain, Scheduler engine, ReferenceScheduler reference, double plainRate) {
        say(name + ": generating the constraint mix");
        ClusterSnapshot snap = new ClusterWorld(ClusterGenerator.generate(plain.withConstraints(SynthSpec.Constraints.MIX))).snapshot();
        say(name + ": engine first cycle with the constraint mix");
        long t = System.nanoTime();
        CycleResult r = engine.schedule(snap, 1);
        double first = msD(t);
        double bestMs = Math.min(first, best(REPEATS - 1, () -> engine.schedule(snap, 1)));
        double rate = r.bindings().size() / (bestMs / 1000.0);
        Double refMs = null;
        Integer disagreements = null;
        String firstDisagreement = null;
        if (options.mixReference()) {
            say(name + ": reference first cycle with the constraint mix");
            long t0 = System.nanoTime();
            CycleResult ref = reference.schedule(snap, 1);
            refMs = msD(t0);
            List<String> diffs = DecisionDiff.compare(snap, r, ref);
            disagreements = diffs.size();
            firstDisagreement = diffs.isEmpty() ? null : diffs.get(0);
        }
        MixRow mix = new MixRow(first, bestMs, r.bindings().size(), rate, rate / plainRate, refMs, disagreements,
                firstDisagreement, r.phaseMillis());
        say(String.format(Locale.ROOT, "%s: constraint mix first %.0f ms, best %.0f ms (%d bound, %.0f/s, %.0f%% of the plain"
                        + " mix's rate)%s", name, first, bestMs, mix.bindings(), rate, 100 * mix.shareOfPlain(),
                refMs == null ? "" : String.format(Locale.ROOT, ", reference %.0f ms, %s", refMs,
                        disagreements == 0 ? "engine and reference agree" : "DISAGREE: " + firstDisagreement)));
        return mix;
    }

    /** The snapshot plus a top-priority gang of {@code size} one-GPU pods in a new queue of weight 10. */
    static ClusterSnapshot withBigGang(ClusterSnapshot s, int size, int memoryDivisor) {
        List<PodGroupSpec> groups = new ArrayList<>(s.podGroups());
        List<PodSpec> pods = new ArrayList<>(s.pods());
        var queues = new ArrayList<>(s.queues());
        queues.add(new dev.arbiter.model.QueueSpec("bench-giant", 10, 0, null, Resources.NONE, true, "Open", null, 0));
        long order = Long.MAX_VALUE / 2;
        groups.add(new PodGroupSpec("bench", "giant", "bench-giant", size, Map.of(), null, "critical", "Pending", 0, order));
        Resources r = Resources.of(ClusterGenerator.GPU, 1, "cpu", 20, "memory", (160 * 1024 / memoryDivisor) + "Mi", "pods", 1);
        for (int i = 0; i < size; i++) {
            pods.add(new PodSpec("bench", "giant-" + i, ClusterGenerator.SCHEDULER, null, "Pending", "critical", null, null,
                    r, Map.of(), List.of(), Map.of(), Map.of(PodSpec.GROUP_ANNOTATION, "giant"), 0, order + 1 + i, false));
        }
        return new ClusterSnapshot(s.nodes(), pods, groups, queues, s.priorityClasses());
    }

    private static final Pattern COLD = Pattern.compile("cold-start rules=(\\d+) snapshot=(\\d+) decision=(\\d+) generate=(\\d+)");

    /**
     * Two fresh JVMs sharing a new, empty rules cache: the first compiles the rules (a first start), the second reads
     * them back (a restart). Their classes come as the image's do:
     * <ul>
     *   <li>on JDK 25 and later, from an AOT cache (classes loaded and linked, method profiles) that a training run
     *       of {@code train-jvm} writes before either start, as deploy/Dockerfile does at build time; both starts
     *       map it;</li>
     *   <li>on older JVMs, from a class-data archive the first start writes at its exit and the restart maps.</li>
     * </ul>
     * A classpath with directories (a Maven run) can be neither cached nor archived; the starts then load their classes
     * as usual. Returns {restart's total, restart's rules loaded, first start's total, first start's rules loaded},
     * each as {@link #coldStart} gives it.
     */
    private Long[] coldStarts(Size size) {
        Path cache = null;
        try {
            cache = java.nio.file.Files.createTempDirectory("arbiter-bench-rules-cache");
            Long[] compiling;
            String classData;
            if (aotCache()) {
                Path aot = cache.resolve("classes.aot");
                trainAotCache(aot);
                classData = java.nio.file.Files.isRegularFile(aot) ? "-XX:AOTCache=" + aot : "-Xshare:auto";
                compiling = coldStart(size, cache, classData, "compiling the rules, classes from the AOT cache");
            } else {
                Path classes = cache.resolve("classes.jsa");
                compiling = coldStart(size, cache, "-XX:ArchiveClassesAtExit=" + classes, "compiling the rules");
                // As the JDK 17 image did: the restart maps the classes the first start loaded.
                classData = java.nio.file.Files.isRegularFile(classes) ? "-XX:SharedArchiveFile=" + classes : "-Xshare:auto";
            }
            Long[] restart = coldStart(size, cache, classData, "restart, compiled rules and classes from the caches");
            return new Long[] {restart[0], restart[1], compiling[0], compiling[1]};
        } catch (java.io.IOException e) {
            say("cold start failed: " + e);
            return new Long[] {null, null, null, null};
        } finally {
            if (cache != null) {
                try (java.util.stream.Stream<Path> s = java.nio.file.Files.walk(cache)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (java.io.IOException ignored) {
                    // a temporary folder left behind
                }
            }
        }
    }

    /** True when the JVM running the bench writes AOT caches ({@code -XX:AOTCacheOutput}, JDK 25+), as the image's does. */
    static boolean aotCache() {
        return Runtime.version().feature() >= 25;
    }

    /** The image's training run (deploy/Dockerfile): {@code train-jvm} in a fresh JVM writing an AOT cache to {@code aot}. */
    private void trainAotCache(Path aot) {
        say("training an AOT cache in a fresh JVM (train-jvm, as the image's build does)");
        List<String> cmd = List.of(javaCommand(), heapFlag(), "-XX:AOTCacheOutput=" + aot, "-cp",
                System.getProperty("java.class.path"), "dev.arbiter.cli.Main", "train-jvm", "--rules",
                options.rules().toString());
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) p.destroyForcibly();
            else if (p.exitValue() != 0) say("AOT cache training failed (exit " + p.exitValue() + "); the starts load their classes as usual");
        } catch (Exception e) {
            say("AOT cache training failed: " + e);
        }
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String heapFlag() {
        return "-Xmx" + Math.max(2, Runtime.getRuntime().maxMemory() >> 30) + "g";
    }

    /** {total JVM start → first decision less cluster generation, JVM start → rules loaded}, or nulls on failure. */
    private Long[] coldStart(Size size, Path rulesCache, String classData, String what) {
        say(size.nodes() + " nodes x " + size.pendingPods() + " pending pods: cold start in a fresh JVM, " + what);
        List<String> cmd = List.of(javaCommand(), heapFlag(), "-Xlog:cds=off", "-Xlog:cds+dynamic=off", classData, "-Darbiter.rulesCache=" + rulesCache, "-cp",
                System.getProperty("java.class.path"), FirstDecision.class.getName(), options.rules().toString(),
                Integer.toString(size.nodes()), Integer.toString(size.pendingPods()), Integer.toString(size.queues()),
                Long.toString(options.seed()), Integer.toString(options.memoryDivisor()),
                options.reclaimableQueues() ? "reclaimable-queues" : "no-reclaimable-queues");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String found = null;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) if (line.startsWith("cold-start")) found = line;
            }
            if (!p.waitFor(10, TimeUnit.MINUTES)) p.destroyForcibly();
            Matcher mt = found == null ? null : COLD.matcher(found);
            if (mt == null || !mt.find()) {
                say("cold start: the probe printed no result (exit " + p.exitValue() + ")");
                return new Long[] {null, null};
            }
            long decision = Long.parseLong(mt.group(3));
            long generate = Long.parseLong(mt.group(4));
            return new Long[] {decision - generate, Long.parseLong(mt.group(1))};
        } catch (Exception e) {
            say("cold start failed: " + e);
            return new Long[] {null, null};
        }
    }

    static void gcAndResetPeaks() {
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) pool.resetPeakUsage();
        }
    }

    static long peakHeapMiB() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) sum += pool.getPeakUsage().getUsed();
        }
        return sum >> 20;
    }

    private void say(String line) {
        progress.println("bench: " + line);
        progress.flush();
    }

    /** Cycles are measured this many times on the same snapshot; the best time is reported. */
    static final int REPEATS = 3;

    private static double best(int times, Runnable r) {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < times; i++) {
            long t = System.nanoTime();
            r.run();
            best = Math.min(best, msD(t));
        }
        return best;
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private static double msD(long since) {
        return (System.nanoTime() - since) / 1e6;
    }

    // ---- reports ------------------------------------------------------------------------------------------------

    /** The table printed by {@code arbiter bench}. */
    public static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%6s %7s %7s | %7s | %9s %9s %7s %9s | %9s %6s | %8s %8s | %8s | %13s | %s | %s%n",
                "nodes", "pending", "running", "cold s", "first ms", "best ms", "bound", "placed/s", "ref ms", "ratio",
                "steady", "ref st.", "gang ms", "heap/live MiB", "phases ms: snapshot/rules/placement/victims", "agree"));
        for (Row r : rows) {
            Map<String, Double> p = r.firstPhases();
            b.append(String.format(Locale.ROOT, "%6d %7d %7d | %7s | %9.0f %9.0f %7d %9.0f | %9.0f %6.1f | %8.0f %8.0f | %8.0f | %13s | %s | %s%n",
                    r.size().nodes(), r.size().pendingPods(), r.runningPods(),
                    r.coldStartMs() == null ? "-" : String.format(Locale.ROOT, "%.1f/%.1f", r.coldStartMs() / 1000.0,
                            r.coldCompileStartMs() == null ? Double.NaN : r.coldCompileStartMs() / 1000.0),
                    r.engineFirstMs(), r.engineFirstBestMs(), r.engineBindings(), r.placementsPerSec(), r.referenceFirstMs(), r.ratio(),
                    r.engineSteadyMs(), r.referenceSteadyMs(), r.gangCycleMs(), r.peakHeapMiB() + "/" + r.peakLiveHeapMiB(),
                    String.format(Locale.ROOT, "%.0f/%.0f/%.0f/%.0f", get(p, "snapshot"), get(p, "rules"),
                            get(p, "enqueue") + get(p, "allocate"), get(p, "victims")),
                    Double.isNaN(r.referenceFirstMs()) ? "-" : r.disagreements() == 0 ? "yes" : "NO (" + r.disagreements() + ")"));
        }
        b.append(scaling(rows));
        if (rows.stream().anyMatch(r -> r.mix() != null)) {
            b.append(String.format(Locale.ROOT, "%nconstraint mix (30%% node affinity, 10%% anti-affinity per hostname, 10%%"
                    + " zone spread), first cycle:%n%6s %7s | %9s %9s %7s %9s %8s | %9s %6s | %s%n", "nodes", "pending",
                    "first ms", "best ms", "bound", "placed/s", "of plain", "ref ms", "agree",
                    "phases ms: snapshot/rules/placement/victims"));
            for (Row r : rows) {
                MixRow x = r.mix();
                if (x == null) continue;
                b.append(String.format(Locale.ROOT, "%6d %7d | %9.0f %9.0f %7d %9.0f %7.0f%% | %9s %6s | %.0f/%.0f/%.0f/%.0f%n",
                        r.size().nodes(), r.size().pendingPods(), x.firstMs(), x.bestMs(), x.bindings(), x.placementsPerSec(),
                        100 * x.shareOfPlain(), x.referenceMs() == null ? "-" : String.format(Locale.ROOT, "%.0f", x.referenceMs()),
                        x.disagreements() == null ? "-" : x.disagreements() == 0 ? "yes" : "NO (" + x.disagreements() + ")",
                        get(x.phases(), "snapshot"), get(x.phases(), "rules"),
                        get(x.phases(), "enqueue") + get(x.phases(), "allocate"), get(x.phases(), "victims")));
            }
        }
        return b.toString();
    }

    /** For each pending-pod count measured at 1k and 10k nodes: the growth of the first cycle against n log n. */
    static String scaling(List<Row> rows) {
        Map<Integer, Map<Integer, Double>> byPods = new HashMap<>();
        for (Row r : rows) byPods.computeIfAbsent(r.size().pendingPods(), k -> new java.util.TreeMap<>()).put(r.size().nodes(), r.engineFirstBestMs());
        StringBuilder b = new StringBuilder();
        for (Map.Entry<Integer, Map<Integer, Double>> e : new java.util.TreeMap<>(byPods).entrySet()) {
            Map<Integer, Double> curve = e.getValue();
            if (curve.size() < 2) continue;
            List<Integer> ns = new ArrayList<>(curve.keySet());
            int lo = ns.get(0), hi = ns.get(ns.size() - 1);
            double growth = curve.get(hi) / curve.get(lo);
            double nlogn = (hi * Math.log(hi)) / (lo * Math.log(lo));
            b.append(String.format(Locale.ROOT, "scaling at %d pending pods: first cycle %s; %d -> %d nodes grows x%.2f "
                            + "(n log n would be x%.2f): %s%n", e.getKey(), curve, lo, hi, growth, nlogn,
                    growth <= nlogn ? "within n log n" : "WORSE than n log n"));
        }
        return b.toString();
    }

    private static double get(Map<String, Double> m, String k) {
        Double v = m.get(k);
        return v == null ? 0 : v;
    }

    /** The rows as JSON, one row per line; times with one decimal. */
    public static String json(List<Row> rows, String machine) {
        JsonWriter w = JsonWriter.compact().startObject().field("machine", machine).name("rows").startArray();
        for (Row r : rows) {
            w.nextLine(1).startObject().field("nodes", r.size().nodes()).field("pendingPods", r.size().pendingPods())
                    .field("queues", r.size().queues()).field("totalPods", r.totalPods())
                    .field("runningPods", r.runningPods()).field("generateMs", r.generateMs())
                    .field("coldStartMs", r.coldStartMs()).field("coldRulesLoadedMs", r.coldRulesMs())
                    .field("coldStartCompilingMs", r.coldCompileStartMs())
                    .field("coldCompilingRulesLoadedMs", r.coldCompileRulesMs());
            num(w, "engineFirstCycleMs", r.engineFirstMs());
            num(w, "engineFirstCycleBestMs", r.engineFirstBestMs());
            w.field("engineBindings", r.engineBindings()).field("engineEvictions", r.engineEvictions());
            num(w, "placementsPerSecond", r.placementsPerSec());
            num(w, "referenceFirstCycleMs", r.referenceFirstMs());
            num(w, "engineToReferenceRatio", r.ratio());
            w.field("churnedPods", r.churnedPods());
            num(w, "engineSteadyCycleMs", r.engineSteadyMs());
            num(w, "freshSessionSteadyCycleMs", r.freshSessionSteadyMs());
            num(w, "referenceSteadyCycleMs", r.referenceSteadyMs());
            num(w, "gang1000CycleMs", r.gangCycleMs());
            w.field("gang1000Outcome", r.gangOutcome()).field("peakHeapMiB", r.peakHeapMiB())
                    .field("peakLiveHeapMiB", r.peakLiveHeapMiB());
            phases(w.name("firstCyclePhasesMs"), r.firstPhases());
            phases(w.name("steadyCyclePhasesMs"), r.steadyPhases());
            w.field("disagreements", r.disagreements()).field("firstDisagreement", r.firstDisagreement());
            MixRow x = r.mix();
            if (x != null) {
                w.name("constraintMix").startObject();
                num(w, "firstCycleMs", x.firstMs());
                num(w, "firstCycleBestMs", x.bestMs());
                w.field("bindings", x.bindings());
                num(w, "placementsPerSecond", x.placementsPerSec());
                w.name("shareOfPlainPlacementsPerSecond").decimal(x.shareOfPlain(), 3);
                if (x.referenceMs() == null) w.name("referenceFirstCycleMs").nullValue();
                else num(w, "referenceFirstCycleMs", x.referenceMs());
                w.field("disagreements", x.disagreements() == null ? null : (long) x.disagreements())
                        .field("firstDisagreement", x.firstDisagreement());
                phases(w.name("firstCyclePhasesMs"), x.phases());
                w.endObject();
            }
            w.endObject();
        }
        return w.nextLine(0).endArray().endObject().nextLine(0).toString();
    }

    private static void phases(JsonWriter w, Map<String, Double> p) {
        w.startObject();
        new java.util.TreeMap<>(p).forEach((k, v) -> num(w, k, v));
        w.endObject();
    }

    private static void num(JsonWriter w, String name, double d) {
        w.name(name).decimal(d, 1);
    }

    /** One line describing the machine: cores, max heap, JVM, OS, load average when the report is written. */
    public static String machine() {
        Runtime rt = Runtime.getRuntime();
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return rt.availableProcessors() + " cores, -Xmx " + (rt.maxMemory() >> 20) + " MiB, Java "
                + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + "), "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                + String.format(Locale.ROOT, ", load average %.1f", load);
    }
}
