package dev.arbiter.cli;

import dev.arbiter.model.Manifests;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ManifestYamlWriter;
import dev.arbiter.synth.SynthSpec;
import dev.arbiter.synth.TieredFleet;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter generate}: a seeded synthetic cluster as Kubernetes YAML, loadable by {@code simulate}. The same
 * options always print the same manifests.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = "Print a synthetic cluster (nodes, queues, priority classes, running and pending jobs) as YAML.")
final class GenerateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "100", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--pods", paramLabel = "N", defaultValue = "1000", description = "Pending pods, at least (default: ${DEFAULT-VALUE}).")
    int pods;

    @Option(names = "--queues", paramLabel = "N", defaultValue = "20", description = "Queues (default: ${DEFAULT-VALUE}).")
    int queues;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--fill", paramLabel = "F", defaultValue = "0.5", description = "Fraction of GPUs busy with running jobs (default: ${DEFAULT-VALUE}).")
    double fill;

    @Option(names = "--max-gang", paramLabel = "N", defaultValue = "64", description = "Largest gang (default: ${DEFAULT-VALUE}).")
    int maxGang;

    @Option(names = "--memory-divisor", paramLabel = "N", defaultValue = "1",
            description = "Divide node and pod memory by N (default: ${DEFAULT-VALUE}, realistic; the benchmark uses 8).")
    int memoryDivisor;

    @Option(names = "--file", paramLabel = "FILE", description = "Write to FILE instead of stdout.")
    Path output;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "yaml",
            description = "yaml, the only format generate writes (default: ${DEFAULT-VALUE}); a file is --file.")
    String format;

    @Option(names = "--rack-size", paramLabel = "N", defaultValue = "0",
            description = "Put the nodes in network tiers: N nodes per rack (default: ${DEFAULT-VALUE}, no tiers).")
    int rackSize;

    @Option(names = "--block-size", paramLabel = "N", defaultValue = "8",
            description = "Racks per block, with --rack-size (default: ${DEFAULT-VALUE}).")
    int blockSize;

    @Option(names = "--topology", paramLabel = "SOURCE", defaultValue = "hypernodes",
            description = "How tiers are stated, with --rack-size: hypernodes (Volcano HyperNodes), labels (node labels "
                    + "topology.arbiter.dev/block and /rack, for the policy's topology.levels) or both "
                    + "(default: ${DEFAULT-VALUE}).")
    String topology;

    @Option(names = "--estimate-noise", paramLabel = "SIGMA",
            description = "Give each job a runtime estimate (arbiter.dev/runtime-estimate, 10m to 8h) and a real runtime in the"
                    + " simulator (simulation.arbiter.dev/runtime) of estimate x exp(SIGMA x N(0,1)), seeded; 0: exact"
                    + " estimates (default: none of either).")
    Double estimateNoise;

    @Override
    public Integer call() throws Exception {
        if (!format.equals("yaml")) {
            return Main.usage(spec, "-o/--output is the format, and generate writes yaml; to write a file, use --file "
                    + format);
        }
        SynthSpec s;
        try {
            s = new SynthSpec(nodes, pods, queues, seed, fill, maxGang, memoryDivisor);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
        }
        Manifests m = ClusterGenerator.generate(s);
        if (estimateNoise != null) {
            try {
                m = dev.arbiter.synth.JobRuntimes.withRuntimes(m, seed, estimateNoise);
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return Main.INVALID_INPUT;
            }
        }
        if (rackSize > 0) {
            TieredFleet.Source source = switch (topology) {
                case "hypernodes" -> TieredFleet.Source.HYPERNODES;
                case "labels" -> TieredFleet.Source.LABELS;
                case "both" -> TieredFleet.Source.BOTH;
                default -> null;
            };
            if (source == null || blockSize < 1) {
                spec.commandLine().getErr().println("error: " + (source == null ? "--topology must be hypernodes, labels or"
                        + " both, got " + topology : "--block-size must be at least 1, got " + blockSize));
                return Main.INVALID_INPUT;
            }
            m = TieredFleet.tiered(m, rackSize, blockSize, source);
        } else if (rackSize < 0) {
            spec.commandLine().getErr().println("error: --rack-size must not be negative, got " + rackSize);
            return Main.INVALID_INPUT;
        }
        if (output != null) {
            try (Writer w = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                ManifestYamlWriter.write(m, w);
            }
        } else {
            PrintWriter out = spec.commandLine().getOut();
            ManifestYamlWriter.write(m, out);
            out.flush();
        }
        spec.commandLine().getErr().println("generated " + m.nodes().size() + " nodes, " + m.queues().size() + " queues, "
                + m.podGroups().size() + " PodGroups, " + m.pods().size() + " pods ("
                + m.pods().stream().filter(p -> !p.isBound()).count() + " pending)"
                + (m.hyperNodes().isEmpty() ? "" : ", " + m.hyperNodes().size() + " HyperNodes") + ", seed " + seed);
        return 0;
    }
}
