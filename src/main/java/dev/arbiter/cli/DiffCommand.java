package dev.arbiter.cli;

import dev.arbiter.authoring.PolicyDiff;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter diff --rules OLD --candidate NEW PATH...}: simulates the same manifests under both policies to a
 * stable state and prints what differs. Exit 0 (with {@code --exit-code}: 1 when anything differs); 3 when either
 * policy does not compile.
 */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = "Run two policies on the same manifests and print the pods, evictions and queue shares that differ.")
final class DiffCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SimulationOptions sim;

    @Option(names = "--rules", paramLabel = "OLD_DIR", description = "The running policy (default: ${DEFAULT-VALUE}).")
    Path rules = RulesLocation.defaultFolder();

    @Option(names = "--candidate", required = true, paramLabel = "NEW_DIR", description = "The policy to compare.")
    Path candidate;

    @Mixin
    OutputOption output;

    @Option(names = "--exit-code", description = "Exit 1 when the policies differ (for CI).")
    boolean exitCode;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Manifest files or folders.")
    List<Path> paths;

    @Override
    public Integer call() {
        if (output.problem() != null) return Main.usage(spec, output.problem());
        if (sim.problem() != null) return Main.usage(spec, sim.problem());
        if (RulesLocation.problem("--rules", rules) != null) return Main.usage(spec, RulesLocation.problem("--rules", rules));
        if (RulesLocation.problem("--candidate", candidate) != null) {
            return Main.usage(spec, RulesLocation.problem("--candidate", candidate));
        }
        Manifests manifests = ManifestLoader.load(paths);
        RuleBook newBook = RuleBook.load(candidate); // the side being edited: if it is broken, say so first
        RuleBook oldBook = RuleBook.load(rules);
        PolicyDiff diff = PolicyDiff.compare(rules.toString(), simulate(oldBook, manifests),
                candidate.toString(), simulate(newBook, manifests));
        String document = output.document(diff::json);
        spec.commandLine().getOut().print(document != null ? document : diff.table());
        spec.commandLine().getOut().flush();
        return exitCode && !diff.isEmpty() ? 1 : 0;
    }

    private SimulationResult simulate(RuleBook book, Manifests manifests) {
        SimulationResult r = new Simulator(new Scheduler(book, sim.schedulerConfig())).run(manifests, sim.simulation(false));
        Main.warnIfUnsettled(spec, r, sim.maxCycles);
        return r;
    }
}
