package dev.arbiter.cli;

import dev.arbiter.bench.Benchmark;
import dev.arbiter.live.Durations;
import dev.arbiter.livebench.LiveBenchmark;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The options of {@code arbiter bench --live} (a picocli mixin of {@code bench}): the real {@code arbiter run},
 * in-process, against a local API stand-in with a set round-trip latency ({@link LiveBenchmark}).
 */
final class LiveBenchOptions {
    @Option(names = "--live", description = "Run the live end-to-end benchmark instead: arbiter run against a local API stand-in.")
    boolean live;

    @Option(names = "--latency", paramLabel = "DURATION", split = ",",
            description = "With --live: round-trip latencies to measure at (default: 0ms,2ms,10ms).")
    List<String> latencies;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "5000", description = "With --live: nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--pods", paramLabel = "N", defaultValue = "10000",
            description = "With --live: single pods created in bursts (default: ${DEFAULT-VALUE}).")
    int pods;

    @Option(names = "--burst", paramLabel = "N", defaultValue = "1000",
            description = "With --live: pods per burst, 100 ms apart (default: ${DEFAULT-VALUE}).")
    int burst;

    @Option(names = "--gangs", paramLabel = "N", defaultValue = "1000",
            description = "With --live: PodGroups of 8 (default: ${DEFAULT-VALUE}).")
    int gangs;

    @Option(names = "--paced", paramLabel = "N", defaultValue = "10000",
            description = "With --live: pods created at a steady --rate (default: ${DEFAULT-VALUE}).")
    int paced;

    @Option(names = "--rate", paramLabel = "PODS_PER_S", defaultValue = "1250",
            description = "With --live: creation rate of the paced pods (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--no-warm-up", description = "With --live: skip the unreported warm-up (a fifth of each workload, then deleted) before each latency.")
    boolean noWarmUp;

    @Option(names = "--warm-up-rounds", paramLabel = "N", defaultValue = "1",
            description = "With --live: rounds of that warm-up before each latency (default: ${DEFAULT-VALUE}); a "
                    + "long-running scheduler has its hot code compiled, so more rounds measure closer to it.")
    int warmUpRounds;

    @Option(names = "--binders", paramLabel = "N", defaultValue = "32",
            description = "With --live: arbiter run's --binders (default: ${DEFAULT-VALUE}).")
    int binders;

    @Option(names = "--scheduler-process",
            description = "With --live: run arbiter run in a JVM of its own (same class path, this JVM's heap options), so "
                    + "its CPU per pod is measured apart from the stand-in's.")
    boolean schedulerProcess;

    /** Runs the live bench; {@code quick} shrinks it to a smoke size. */
    int run(CommandSpec spec, boolean quick, Path rules, Path json) throws Exception {
        LiveBenchmark.Options options;
        if (quick) {
            LiveBenchmark.Options q = LiveBenchmark.Options.quick(rules);
            options = new LiveBenchmark.Options(q.latencies(), q.nodes(), q.pods(), q.burst(), q.gangs(), q.gangSize(),
                    q.pacedPods(), q.rate(), q.rules(), q.binders(), q.timeout(), q.warmUpRounds(), schedulerProcess);
        } else {
            List<Duration> rtts = new ArrayList<>();
            try {
                for (String l : latencies == null ? List.of("0ms", "2ms", "10ms") : latencies) {
                    rtts.add(new Durations.Bounded(Duration.ZERO, Duration.ofSeconds(1)).parse("--latency", l));
                }
            } catch (IllegalArgumentException e) {
                return Main.usage(spec, e.getMessage());
            }
            if (nodes < 1 || pods < 1 || burst < 1 || gangs < 0 || paced < 0 || !(rate > 0) || binders < 1 || binders > 256
                    || warmUpRounds < 0 || warmUpRounds > 100) {
                return Main.usage(spec, "--nodes, --pods, --burst, --rate and --binders must be positive; --gangs, --paced and "
                        + "--warm-up-rounds at least 0 (--warm-up-rounds at most 100)");
            }
            options = new LiveBenchmark.Options(rtts, nodes, pods, burst, gangs, 8, paced, rate, rules, binders,
                    Duration.ofMinutes(3), noWarmUp ? 0 : warmUpRounds, schedulerProcess);
        }
        PrintWriter progress = spec.commandLine().getErr();
        PrintWriter quiet = new PrintWriter(Writer.nullWriter());
        LiveBenchmark bench = new LiveBenchmark(options, args -> Main.runEmbedded(args, quiet, quiet), Main.class, progress);
        List<LiveBenchmark.Row> rows = bench.run();
        String machine = Benchmark.machine();
        spec.commandLine().getOut().println("machine: " + machine);
        spec.commandLine().getOut().print(LiveBenchmark.table(rows));
        spec.commandLine().getOut().flush();
        if (json != null) Files.writeString(json, LiveBenchmark.json(rows, machine), StandardCharsets.UTF_8);
        return 0;
    }
}
