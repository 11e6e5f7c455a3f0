package dev.arbiter.cli;

import dev.arbiter.authoring.TimelineReport;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.forecast.EndOfRun;
import dev.arbiter.forecast.Forecast;
import dev.arbiter.forecast.Forecaster;
import dev.arbiter.forecast.SnapshotTap;
import dev.arbiter.forecast.StartWords;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.JsonReport;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import dev.arbiter.sim.TableReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code arbiter simulate}: runs the real scheduler on manifests, cycle after cycle, with no cluster. Exit 0 when the
 * cluster settled; 4 (after printing everything, with a warning on stderr) when {@code --max-cycles} stopped it first.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Run scheduling cycles on manifests (files or folders of YAML) until nothing changes.")
final class SimulateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SimulationOptions sim;

    @Mixin
    RulesOption rules;

    @Mixin
    OutputOption output;

    @Option(names = "--recreate-evicted", description = "Evicted pods come back pending, as their controllers would recreate them (constant demand).")
    boolean recreateEvicted;

    @Option(names = "--report", paramLabel = "FILE", description = "Also write a self-contained HTML timeline report to FILE.")
    Path report;

    @Option(names = "--wide", description = "The same as -o wide: every column, and each decision's whole rule sentence instead of its short id and a legend.")
    boolean wide;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Manifest files or folders.")
    List<Path> paths;

    @Override
    public Integer call() {
        if (output.problem() != null) return Main.usage(spec, output.problem());
        if (sim.problem() != null) return Main.usage(spec, sim.problem());
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        Manifests manifests = ManifestLoader.load(paths);
        RuleBook book = RuleBook.load(rules.folder);
        SchedulerConfig config = sim.schedulerConfig();
        SnapshotTap tap = new SnapshotTap();
        SimulationResult result = new Simulator(new Scheduler(book, config))
                .run(manifests, sim.simulation(recreateEvicted), tap);
        // Start-time estimates of the jobs pending at the end, when any runtime estimate exists (docs/estimates.md).
        Forecast starts = EndOfRun.forecast(manifests, result, tap,
                new Forecaster(book, config, sim.forecast(recreateEvicted)), book.settings().runtime());
        if (report != null && !writeReport(result, starts)) return 1;
        String document = output.document(() -> JsonReport.write(result,
                starts == null ? null : w -> EndOfRun.json(w, starts, StartWords.Clock.SIMULATED)));
        spec.commandLine().getOut().print(document != null ? document
                : TableReport.write(result, wide || output.wide(), starts == null ? java.util.Map.of() : EndOfRun.cells(starts)));
        spec.commandLine().getOut().flush();
        return Main.warnIfUnsettled(spec, result, sim.maxCycles) ? Main.CYCLE_LIMIT : 0;
    }

    /** Writes the HTML timeline report; false (with one line on stderr) when the file cannot be written. */
    private boolean writeReport(SimulationResult result, Forecast starts) {
        String title = "Arbiter simulation of " + String.join(", ", paths.stream().map(Path::toString).toList());
        try {
            Files.writeString(report, TimelineReport.write(result, title, starts), StandardCharsets.UTF_8);
            spec.commandLine().getErr().println("wrote report " + report.toAbsolutePath().normalize() + " ("
                    + result.cycles().size() + " cycles, " + result.queues().size() + " queues, "
                    + result.podGroups().size() + " PodGroups)");
            spec.commandLine().getErr().flush();
            return true;
        } catch (IOException e) {
            spec.commandLine().getErr().println("error: cannot write report " + report + ": " + e.getMessage());
            return false;
        }
    }
}
