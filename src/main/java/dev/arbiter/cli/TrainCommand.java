package dev.arbiter.cli;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RulesCache;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.live.WarmUp;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter train-jvm} (hidden): the training run of the image's ahead-of-time cache (deploy/Dockerfile, on JDK
 * 25: {@code java -XX:AOTCacheOutput=... -jar arbiter.jar train-jvm}). It does, on a synthetic cluster, what a start of
 * {@code run} does before and in its first cycles, so that the JVM records those classes and method profiles: compile
 * the rules into a rules cache (a first start) and read them back (a restart), check them as {@code run} does, run the
 * warm-up's cycles ({@link WarmUp}: more of the engine's paths, profiled on a small cluster; a JVM that maps the
 * cache then does without a warm-up of its own), then a few cycles of {@code run}'s scheduler (untraced, kept session
 * and working copy) at {@code --nodes} x {@code --pods}, each applied before the next. Writes nothing but a temporary
 * rules cache, deleted at the end; prints one line.
 */
@Command(name = "train-jvm", hidden = true, mixinStandardHelpOptions = true,
        description = "Do what a start of run does, on a synthetic cluster: the training run of an AOT cache or class-data archive.")
final class TrainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RulesOption rules;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1000", description = "Nodes of the synthetic cluster (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--pods", paramLabel = "N", defaultValue = "10000", description = "Pending pods (default: ${DEFAULT-VALUE}).")
    int pods;

    @Option(names = "--cycles", paramLabel = "N", defaultValue = "3", description = "Cycles at that size (default: ${DEFAULT-VALUE}).")
    int cycles;

    @Option(names = "--warm-up-cycles", paramLabel = "N", defaultValue = "10",
            description = "Warm-up cycles before them, at most (default: ${DEFAULT-VALUE}, as run's warm-up).")
    int warmUpCycles;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        if (nodes < 1 || pods < 0 || cycles < 1 || warmUpCycles < 0) {
            return Main.usage(spec, "--nodes and --cycles must be at least 1, --pods and --warm-up-cycles at least 0");
        }
        Path cache = Files.createTempDirectory("arbiter-train-rules");
        try {
            RuleBook.load(rules.folder, RulesCache.at(cache)); // compiles and writes the cache, as a first start does
            RuleBook book = RuleBook.load(rules.folder, RulesCache.at(cache)); // reads it back, as a restart does
            Integer broken = Main.brokenRules(spec, book);
            if (broken != null) return broken;
            SchedulerConfig config = new SchedulerConfig(Set.of(ClusterGenerator.SCHEDULER), null);
            WarmUp.Plan standard = WarmUp.Plan.standard();
            WarmUp warmUp = WarmUp.start(book, config, true, new WarmUp.Plan(standard.cluster(), warmUpCycles,
                    standard.maxTime()), () -> false);
            warmUp.awaitEnd(Duration.ofMinutes(5));
            ClusterWorld world = new ClusterWorld(ClusterGenerator.generate(SynthSpec.fleet(nodes, pods, 20, 7)
                    .withConstraints(SynthSpec.Constraints.MIX))).recreatingEvicted();
            Scheduler scheduler = new Scheduler(book, config).withoutTrace().answeringUnchanged().keepingSession()
                    .keepingWorkingCopy();
            int bound = 0;
            for (int n = 1; n <= cycles; n++) {
                CycleResult r = scheduler.schedule(world.snapshot(), n);
                bound += r.bindings().size();
                world.apply(r);
            }
            scheduler.dropSession();
            spec.commandLine().getOut().println("trained: rules " + book.generation() + " compiled and read back, "
                    + warmUp.cycles() + " warm-up cycles, " + cycles + " cycles at " + nodes + " x " + pods + " (" + bound + " bindings)");
            spec.commandLine().getOut().flush();
            return 0;
        } finally {
            try (Stream<Path> s = Files.walk(cache)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
