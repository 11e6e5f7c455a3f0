package dev.arbiter.cli;

import dev.arbiter.bench.Benchmark;
import dev.arbiter.bench.Soak;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter bench}: the scale benchmark (see {@link Benchmark}). The full matrix takes many minutes and wants a
 * large heap ({@code ARBITER_JAVA_OPTS=-Xmx8g ./arbiter bench}); {@code --quick} runs one small size (500 nodes × 5k
 * pending pods) in under two minutes. Progress goes to stderr, the table to stdout, and {@code --json FILE} writes the numbers.
 * {@code --live} runs the live end-to-end benchmark instead ({@link LiveBenchOptions}), {@code --apiserver} Arbiter
 * against kube-scheduler on a real API server ({@link ApiServerBenchOptions}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure the engine at scale against the plain-Java reference (cold start, first and steady cycles, heap).")
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "One small size (500 nodes x 5k pending pods) instead of the full matrix.")
    boolean quick;

    @Option(names = "--size", paramLabel = "NODESxPODS", description = "Run only these sizes, e.g. 10000x100000 (repeatable).")
    List<String> sizes;

    @Option(names = "--queues", paramLabel = "N", defaultValue = "20", description = "Queues (default: ${DEFAULT-VALUE}).")
    int queues;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "7", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON to FILE.")
    Path json;

    @Option(names = "--no-cold-start", description = "Skip the fresh-JVM cold-start measurement.")
    boolean noColdStart;

    @Option(names = "--memory-divisor", paramLabel = "N", defaultValue = "1",
            description = "Divide node and pod memory by N (default: ${DEFAULT-VALUE}, realistic; memory is counted in whole"
                    + " bytes, so a 10,000-node fleet of 2 TiB nodes fits).")
    int memoryDivisor;

    @Option(names = "--no-reclaimable-queues",
            description = "Diagnostic workload: the same clusters with no queue reclaimable, so reclaim has nothing to take.")
    boolean noReclaimable;

    @Option(names = "--no-constraint-mix",
            description = "Skip the second first cycle on the same cluster with placement constraints (30%% of jobs with"
                    + " required node affinity, 10%% with pod anti-affinity per hostname, 10%% with a zone spread).")
    boolean noConstraintMix;

    @Option(names = "--no-reference",
            description = "Skip the plain-Java reference scheduler (its first and steady cycles take minutes at fleet"
                    + " size): the engine's figures and its decision digests only.")
    boolean noReference;

    @Option(names = "--mix-reference",
            description = "Also run the reference on the constraint mix and compare (slow at fleet size: it recounts the"
                    + " pods on the nodes for every question).")
    boolean mixReference;

    @Mixin
    RulesOption rules;

    @Option(names = "--topology", description = "Run the topology benchmark instead: a 1,000-pod hard gang on a 3-tier"
            + " fleet (the one --size names, default 10000x10000), and fragmentation with and without topology-aware"
            + " placement.")
    boolean topology;

    @Option(names = "--whatif", description = "Run the whatif benchmark instead: the answer for the largest gang still"
            + " pending after the first cycle on a generated fleet (the one --size names, default 1000x10000), best of 3.")
    boolean whatif;

    @Option(names = "--soak", paramLabel = "CYCLES",
            description = "Soak instead: run CYCLES cycles on one fleet (the one --size names, default 1000x10000) with"
                    + " churn between cycles, checking every cycle's invariants; exit 1 if one breaks.")
    Integer soak;

    @Option(names = "--churn", paramLabel = "FRACTION", defaultValue = "0.01",
            description = "With --soak: the share of pods that churn between cycles (default: ${DEFAULT-VALUE}).")
    double churn;

    @Option(names = "--evictions", description = "Audit evictions instead (issue 35): generated fleets (as arbiter generate"
            + " makes them; --size, default 200x3000 and 1000x10000; --seeds, default 1-5), simulated with each --scoring"
            + " mode until settled or --max-cycles; per fleet and in total, reclaim and preempt groups, victim queues left"
            + " below their floor, groups freeing more than one victim beyond need, plans with an unneeded victim, CPU-only"
            + " jobs evicting GPU pods.")
    boolean evictions;

    @Option(names = "--estimates", description = "Measure start-time estimates instead (issue 39): generated fleets (--size,"
            + " default 200x3000; --seeds, default 1-3) whose jobs carry a runtime estimate and a real runtime of estimate"
            + " x lognormal noise (--estimate-noise); the forecast at time 0 against the simulation with the real runtimes:"
            + " mean and median absolute error of the starts, and the jobs with none.")
    boolean estimates;

    @Option(names = "--estimate-noise", paramLabel = "LIST", split = ",", description = "With --estimates: the noise's sigma"
            + " (of the log), e.g. 0,0.25,0.5 (default); 0 makes the estimates exact.")
    List<Double> estimateNoise;

    @Option(names = "--seeds", paramLabel = "LIST", description = "With --evictions or --estimates: seeds, e.g. 1-5 or 1,3,7 (default: 1-5;"
            + " --seed N means just N).")
    String seeds;

    @Option(names = "--scoring", paramLabel = "LIST", split = ",", description = "With --evictions: scoring modes, binpack"
            + " and/or spread (default: binpack,spread).")
    List<String> scorings;

    @Option(names = "--max-cycles", paramLabel = "N", defaultValue = "100",
            description = "With --evictions: stop a fleet's simulation after N cycles, as simulate (default: ${DEFAULT-VALUE}).")
    int maxCycles;

    @Mixin
    LiveBenchOptions live;

    @Mixin
    ApiServerBenchOptions apiServer;

    @Override
    public Integer call() throws Exception {
        if (apiServer.apiserver) return apiServer.run(spec, quick, rules.folder, json);
        if (live.live) return live.run(spec, quick, rules.folder, json);
        if (soak != null) return soak();
        if (evictions) return evictions();
        if (estimates) return estimates();
        if (topology) return topology();
        if (whatif) return whatif();
        List<Benchmark.Size> matrix;
        if (sizes != null && !sizes.isEmpty()) {
            matrix = new ArrayList<>();
            for (String s : sizes) {
                Benchmark.Size size = parseSize(s);
                if (size == null) return Main.usage(spec, "--size must look like 10000x100000, got " + s);
                matrix.add(size);
            }
        } else {
            matrix = quick ? Benchmark.quickMatrix() : Benchmark.fullMatrix();
            if (queues != 20) matrix = matrix.stream().map(z -> new Benchmark.Size(z.nodes(), z.pendingPods(), queues)).toList();
        }
        Benchmark bench = new Benchmark(new Benchmark.Options(matrix, seed, rules.folder, !noColdStart, memoryDivisor, !noReclaimable,
                !noConstraintMix, mixReference, !noReference),
                spec.commandLine().getErr());
        List<Benchmark.Row> rows = bench.run();
        String machine = Benchmark.machine();
        spec.commandLine().getOut().println("machine: " + machine);
        spec.commandLine().getOut().print(Benchmark.table(rows));
        spec.commandLine().getOut().flush();
        if (json != null) Files.writeString(json, Benchmark.json(rows, machine), StandardCharsets.UTF_8);
        return 0;
    }

    private Integer whatif() {
        if (sizes != null && sizes.size() > 1) return Main.usage(spec, "--whatif runs one --size, got " + sizes.size());
        Benchmark.Size size = new Benchmark.Size(1_000, 10_000, queues);
        if (sizes != null && !sizes.isEmpty()) {
            size = parseSize(sizes.get(0));
            if (size == null) return Main.usage(spec, "--size must look like 1000x10000, got " + sizes.get(0));
        }
        dev.arbiter.bench.WhatIfBench.Result r = new dev.arbiter.bench.WhatIfBench(rules.folder, seed, spec.commandLine().getErr())
                .run(size.nodes(), size.pendingPods(), queues, 3);
        spec.commandLine().getOut().println("machine: " + Benchmark.machine());
        spec.commandLine().getOut().print(dev.arbiter.bench.WhatIfBench.describe(r));
        spec.commandLine().getOut().flush();
        return 0;
    }

    private Integer soak() {
        if (soak < 1) return Main.usage(spec, "--soak must be at least 1 cycle, got " + soak);
        if (!(churn >= 0 && churn <= 1)) return Main.usage(spec, "--churn must be a fraction between 0 and 1, got " + churn);
        if (sizes != null && sizes.size() > 1) return Main.usage(spec, "--soak runs one --size, got " + sizes.size());
        Benchmark.Size size = new Benchmark.Size(1_000, 10_000, queues);
        if (sizes != null && !sizes.isEmpty()) {
            size = parseSize(sizes.get(0));
            if (size == null) return Main.usage(spec, "--size must look like 10000x100000, got " + sizes.get(0));
        }
        Soak.Result r = new Soak(new Soak.Options(size.nodes(), size.pendingPods(), queues, seed, soak, churn, rules.folder,
                memoryDivisor), spec.commandLine().getErr()).run();
        spec.commandLine().getOut().println("machine: " + Benchmark.machine());
        spec.commandLine().getOut().println(Soak.describe(r));
        spec.commandLine().getOut().flush();
        return r.ok() ? 0 : 1;
    }

    /** A flag's value the bench cannot use, worded for {@link Main#usage}. */
    private static final class BadFlag extends Exception {
        BadFlag(String message) {
            super(message, null, false, false);
        }
    }

    /** The fleets {@code --size} names (repeatable), or {@code defaults}. */
    private List<Benchmark.Size> sizeMatrix(List<String> defaults) throws BadFlag {
        List<Benchmark.Size> matrix = new ArrayList<>();
        for (String s : sizes == null || sizes.isEmpty() ? defaults : sizes) {
            Benchmark.Size size = parseSize(s);
            if (size == null || size.nodes() < 1 || size.pendingPods() < 1) {
                throw new BadFlag("--size must look like 200x3000 (positive numbers), got " + s);
            }
            matrix.add(size);
        }
        return matrix;
    }

    /** The seeds {@code --seeds} names, else the one {@code --seed} names, else {@code defaults}. */
    private List<Long> seedList(List<Long> defaults) throws BadFlag {
        if (seeds != null) {
            List<Long> out = parseSeeds(seeds);
            if (out == null) throw new BadFlag("--seeds must look like 1-5 or 1,3,7, got " + seeds);
            return out;
        }
        return spec.commandLine().getParseResult().hasMatchedOption("--seed") ? List.of(seed) : defaults;
    }

    private Integer evictions() {
        List<Benchmark.Size> matrix;
        List<Long> seedList;
        try {
            matrix = sizeMatrix(List.of("200x3000", "1000x10000"));
            seedList = seedList(List.of(1L, 2L, 3L, 4L, 5L));
        } catch (BadFlag bad) {
            return Main.usage(spec, bad.getMessage());
        }
        List<String> modes = scorings == null || scorings.isEmpty() ? List.of("binpack", "spread") : scorings;
        for (String m : modes) {
            if (dev.arbiter.policy.ScoringMode.named(m) == null) return Main.usage(spec, "--scoring must be binpack or spread, got " + m);
        }
        if (maxCycles < 1) return Main.usage(spec, "--max-cycles must be at least 1, got " + maxCycles);
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        List<dev.arbiter.bench.EvictionBench.Fleet> fleets = new ArrayList<>();
        for (Benchmark.Size size : matrix) {
            for (long s : seedList) {
                for (String m : modes) fleets.add(new dev.arbiter.bench.EvictionBench.Fleet(size.nodes(), size.pendingPods(), s, m));
            }
        }
        List<dev.arbiter.bench.EvictionBench.Row> rows = new dev.arbiter.bench.EvictionBench(rules.folder, maxCycles,
                spec.commandLine().getErr()).run(fleets);
        spec.commandLine().getOut().println("machine: " + Benchmark.machine());
        spec.commandLine().getOut().print(dev.arbiter.bench.EvictionBench.table(rows));
        spec.commandLine().getOut().flush();
        return 0;
    }

    private Integer estimates() {
        List<Benchmark.Size> matrix;
        List<Long> seedList;
        try {
            matrix = sizeMatrix(List.of("200x3000"));
            seedList = seedList(List.of(1L, 2L, 3L));
        } catch (BadFlag bad) {
            return Main.usage(spec, bad.getMessage());
        }
        List<Double> noise = estimateNoise == null || estimateNoise.isEmpty() ? List.of(0.0, 0.25, 0.5) : estimateNoise;
        for (double n : noise) {
            if (!(n >= 0 && n <= 3)) return Main.usage(spec, "--estimate-noise must be between 0 and 3, got " + n);
        }
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        List<dev.arbiter.bench.EstimateAccuracy.Fleet> fleets = new ArrayList<>();
        for (Benchmark.Size size : matrix) {
            for (long sd : seedList) {
                for (double n : noise) fleets.add(new dev.arbiter.bench.EstimateAccuracy.Fleet(size.nodes(), size.pendingPods(), sd, n));
            }
        }
        List<dev.arbiter.bench.EstimateAccuracy.Row> rows = new dev.arbiter.bench.EstimateAccuracy(rules.folder, 10, 5_000,
                spec.commandLine().getErr()).run(fleets);
        spec.commandLine().getOut().println("machine: " + Benchmark.machine());
        spec.commandLine().getOut().print(dev.arbiter.bench.EstimateAccuracy.table(rows));
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** {@code 1-5} or {@code 1,3,7} (or both, {@code 1-3,9}), or null. */
    static List<Long> parseSeeds(String s) {
        List<Long> out = new ArrayList<>();
        try {
            for (String part : s.split(",", -1)) {
                String p = part.trim();
                int dash = p.indexOf('-', 1);
                if (dash < 0) {
                    out.add(Long.parseLong(p));
                    continue;
                }
                long from = Long.parseLong(p.substring(0, dash).trim()), to = Long.parseLong(p.substring(dash + 1).trim());
                if (to < from || to - from >= 1000) return null;
                for (long k = from; k <= to; k++) out.add(k);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return out.isEmpty() ? null : out;
    }

    private Integer topology() {
        Benchmark.Size size = new Benchmark.Size(10_000, 10_000, queues);
        if (sizes != null && !sizes.isEmpty()) {
            size = parseSize(sizes.get(0));
            if (size == null) return Main.usage(spec, "--size must look like 10000x100000, got " + sizes.get(0));
        }
        dev.arbiter.bench.TopologyBench.Result r = new dev.arbiter.bench.TopologyBench(rules.folder, seed,
                spec.commandLine().getErr()).run(size.nodes(), size.pendingPods());
        spec.commandLine().getOut().println("machine: " + Benchmark.machine());
        spec.commandLine().getOut().print(dev.arbiter.bench.TopologyBench.table(r));
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** {@code 10000x100000}, or null. */
    private Benchmark.Size parseSize(String s) {
        String[] parts = s.toLowerCase(java.util.Locale.ROOT).split("x");
        try {
            return new Benchmark.Size(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()), queues);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
