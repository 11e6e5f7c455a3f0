package dev.arbiter.cli;

import dev.arbiter.model.Manifests;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ManifestYamlWriter;
import dev.arbiter.synth.SynthSpec;
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

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE instead of stdout.")
    Path output;

    @Override
    public Integer call() throws Exception {
        SynthSpec s;
        try {
            s = new SynthSpec(nodes, pods, queues, seed, fill, maxGang, memoryDivisor);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return Main.INVALID_INPUT;
        }
        Manifests m = ClusterGenerator.generate(s);
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
                + m.pods().stream().filter(p -> !p.isBound()).count() + " pending), seed " + seed);
        return 0;
    }
}
