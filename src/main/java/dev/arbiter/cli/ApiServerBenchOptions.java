package dev.arbiter.cli;

import dev.arbiter.realcluster.ApiServerBenchmark;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The options of {@code arbiter bench --apiserver} (a picocli mixin of {@code bench}): Arbiter against kube-scheduler
 * on a real kube-apiserver and etcd ({@link ApiServerBenchmark}).
 */
final class ApiServerBenchOptions {
    private static final Pattern SIZE = Pattern.compile("(\\d+)x(\\d+)(?:\\+(\\d+))?");

    @Option(names = "--apiserver", description = "Run Arbiter and kube-scheduler of the same release on a real kube-apiserver"
            + " and etcd (built from the Go module proxy by .ci/cluster-binaries, or found cached), alternating: cold"
            + " backlog, warm burst, gangs, and the API server's ceiling.")
    boolean apiserver;

    @Option(names = "--apiserver-size", paramLabel = "NODESxPODS[+BOUND]",
            description = "With --apiserver: sizes to run, e.g. 200x3000 or 1000x10000+27000 (BOUND pods already bound);"
                    + " repeatable (default: 200x3000 and 1000x10000).")
    List<String> sizes;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
            description = "With --apiserver: rounds per size, the schedulers alternating (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--no-gangs", description = "With --apiserver: skip Arbiter's PodGroups of 8 and 64.")
    boolean noGangs;

    @Option(names = "--workloads", paramLabel = "LIST", split = ",",
            description = "With --apiserver: which of cold, warm, gangs, ceiling to run (default: all). Warm and gangs"
                    + " without cold meet a process that has just started, its code not yet compiled.")
    List<String> workloads;

    @Option(names = "--apiserver-schedulers", paramLabel = "LIST", split = ",",
            description = "With --apiserver: which of kube-scheduler, arbiter to run (default: both).")
    List<String> schedulers;

    @Option(names = "--creators", paramLabel = "N", defaultValue = "8",
            description = "With --apiserver: client threads creating pods (default: ${DEFAULT-VALUE}).")
    int creators;

    @Option(names = "--arbiter-java", paramLabel = "PATH",
            description = "With --apiserver: the java that runs Arbiter (default: this one).")
    Path arbiterJava;

    @Option(names = "--arbiter-jvm-arg", paramLabel = "ARG", parameterConsumer = Verbatim.class,
            description = "With --apiserver: one more flag of the JVM that runs Arbiter (after $ARBITER_JAVA_OPTS), e.g."
                    + " --arbiter-jvm-arg=-XX:AOTCache=FILE to run it as the image does; repeatable.")
    List<String> arbiterJvmArgs;

    @Option(names = "--arbiter-arg", paramLabel = "ARG", parameterConsumer = Verbatim.class,
            description = "With --apiserver: one more argument of arbiter run, e.g. --arbiter-arg=--no-warm-up; repeatable.")
    List<String> arbiterArgs;

    @Option(names = "--apiserver-binders", paramLabel = "N", defaultValue = "32",
            description = "With --apiserver: arbiter run's --binders (default: ${DEFAULT-VALUE}).")
    int binders;

    /**
     * Takes the next argument as it is, even when it looks like an option ({@code --arbiter-arg --no-warm-up}), as
     * {@code --arbiter-arg=--no-warm-up} does.
     */
    static final class Verbatim implements picocli.CommandLine.IParameterConsumer {
        @Override
        @SuppressWarnings("unchecked")
        public void consumeParameters(java.util.Stack<String> args, picocli.CommandLine.Model.ArgSpec argSpec,
                                      CommandSpec commandSpec) {
            if (args.isEmpty()) throw new picocli.CommandLine.ParameterException(commandSpec.commandLine(),
                    "Missing required parameter for option '" + ((picocli.CommandLine.Model.OptionSpec) argSpec).longestName() + "'");
            List<String> values = argSpec.getValue();
            List<String> next = values == null ? new ArrayList<>() : new ArrayList<>(values);
            next.add(args.pop());
            argSpec.setValue(next);
        }
    }

    int run(CommandSpec spec, boolean quick, Path rules, Path json) throws Exception {
        List<ApiServerBenchmark.Size> list = new ArrayList<>();
        List<String> given = sizes != null && !sizes.isEmpty() ? sizes : quick ? List.of("50x500") : List.of("200x3000", "1000x10000");
        for (String s : given) {
            Matcher m = SIZE.matcher(s.trim());
            if (!m.matches()) return Main.usage(spec, "--apiserver-size must look like 200x3000 or 1000x10000+27000, got " + s);
            int nodes = Integer.parseInt(m.group(1)), pods = Integer.parseInt(m.group(2));
            int bound = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
            if (nodes < 1 || pods < 1) return Main.usage(spec, "--apiserver-size needs at least 1 node and 1 pod, got " + s);
            if ((long) nodes * 110 < (long) pods + bound) {
                return Main.usage(spec, "--apiserver-size " + s + ": " + nodes + " nodes hold at most " + nodes * 110L + " pods");
            }
            list.add(new ApiServerBenchmark.Size(nodes, pods, bound));
        }
        int r = quick ? 1 : rounds;
        if (r < 1) return Main.usage(spec, "--rounds must be at least 1, got " + rounds);
        if (binders < 1 || binders > 256) return Main.usage(spec, "--apiserver-binders must be 1..256, got " + binders);
        if (arbiterJava != null && !Files.isExecutable(arbiterJava)) return Main.usage(spec, "--arbiter-java: " + arbiterJava + " is not an executable file");
        if (creators < 1 || creators > 256) return Main.usage(spec, "--creators must be 1..256, got " + creators);
        List<String> w = workloads == null || workloads.isEmpty() ? ApiServerBenchmark.WORKLOADS : workloads;
        if (noGangs) w = w.stream().filter(x -> !x.equals("gangs")).toList();
        for (String x : w) {
            if (!ApiServerBenchmark.WORKLOADS.contains(x)) {
                return Main.usage(spec, "--workloads takes " + String.join(", ", ApiServerBenchmark.WORKLOADS) + "; got " + x);
            }
        }
        List<String> sch = schedulers == null || schedulers.isEmpty() ? ApiServerBenchmark.SCHEDULERS : schedulers;
        for (String x : sch) {
            if (!ApiServerBenchmark.SCHEDULERS.contains(x)) {
                return Main.usage(spec, "--apiserver-schedulers takes " + String.join(", ", ApiServerBenchmark.SCHEDULERS) + "; got " + x);
            }
        }
        var err = spec.commandLine().getErr();
        List<ApiServerBenchmark.Figure> figures;
        try {
            figures = new ApiServerBenchmark(new ApiServerBenchmark.Options(list, r, w, sch, creators, rules.toAbsolutePath(), binders,
                    arbiterJava, arbiterJvmArgs == null ? List.of() : arbiterJvmArgs, arbiterArgs == null ? List.of() : arbiterArgs), err).run();
        } catch (IllegalStateException e) {
            err.println("arbiter bench --apiserver: " + e.getMessage());
            return 1;
        }
        var out = spec.commandLine().getOut();
        out.println("machine: " + dev.arbiter.bench.Benchmark.machine());
        out.print(ApiServerBenchmark.table(figures));
        out.flush();
        if (json != null) Files.writeString(json, ApiServerBenchmark.json(figures), StandardCharsets.UTF_8);
        return 0;
    }
}
