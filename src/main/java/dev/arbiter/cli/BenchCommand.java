package dev.arbiter.cli;

import dev.arbiter.bench.Benchmark;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter bench}: the scale benchmark (see {@link Benchmark}). The full matrix takes many minutes and wants a
 * large heap ({@code ARBITER_JAVA_OPTS=-Xmx8g ./arbiter bench}); {@code --quick} runs one small size (500 nodes × 5k
 * pending pods) in under two minutes. Progress goes to stderr, the table to stdout, and {@code --json FILE} writes the numbers.
 * {@code --live} runs the live end-to-end benchmark instead ({@link LiveBenchOptions}).
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

    @Option(names = "--rules", paramLabel = "DIR", description = "Folder of .drl policy files (default: ${DEFAULT-VALUE}).")
    Path rules = RulesLocation.defaultFolder();

    @picocli.CommandLine.Mixin
    LiveBenchOptions live;

    @Override
    public Integer call() throws Exception {
        if (live.live) return live.run(spec, quick, rules, json);
        List<Benchmark.Size> matrix;
        if (sizes != null && !sizes.isEmpty()) {
            matrix = new ArrayList<>();
            for (String s : sizes) {
                String[] parts = s.toLowerCase(java.util.Locale.ROOT).split("x");
                try {
                    matrix.add(new Benchmark.Size(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()), queues));
                } catch (RuntimeException e) {
                    spec.commandLine().getErr().println("error: --size must look like 10000x100000, got " + s);
                    return Main.INVALID_INPUT;
                }
            }
        } else {
            matrix = quick ? Benchmark.quickMatrix() : Benchmark.fullMatrix();
            if (queues != 20) matrix = matrix.stream().map(z -> new Benchmark.Size(z.nodes(), z.pendingPods(), queues)).toList();
        }
        Benchmark bench = new Benchmark(new Benchmark.Options(matrix, seed, rules, !noColdStart, memoryDivisor, !noReclaimable),
                spec.commandLine().getErr());
        List<Benchmark.Row> rows = bench.run();
        String machine = Benchmark.machine();
        spec.commandLine().getOut().println("machine: " + machine);
        spec.commandLine().getOut().print(Benchmark.table(rows));
        spec.commandLine().getOut().flush();
        if (json != null) Files.writeString(json, Benchmark.json(rows, machine), StandardCharsets.UTF_8);
        return 0;
    }
}
