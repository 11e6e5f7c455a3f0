package dev.arbiter.cli;

import dev.arbiter.authoring.Explainer;
import dev.arbiter.authoring.Explanation;
import dev.arbiter.authoring.ExplanationText;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.forecast.EndOfRun;
import dev.arbiter.forecast.Forecast;
import dev.arbiter.forecast.Forecaster;
import dev.arbiter.forecast.SnapshotTap;
import dev.arbiter.forecast.StartEstimate;
import dev.arbiter.forecast.StartWords;
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
 * {@code arbiter explain ns/name PATH...}: simulates the manifests (or a snapshot of the live cluster) and explains
 * why the pod or PodGroup ended where it did: the rules that fired, the queue numbers, gang progress, closest node.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = "Explain why a pod or PodGroup is pending, was evicted, or went where it did.")
final class ExplainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SimulationOptions sim;

    @Mixin
    RulesOption rules;

    @Mixin
    OutputOption output;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = ClusterFlags.NAMESPACE)
    String namespace;

    @Option(names = "--context", paramLabel = "NAME", description = ClusterFlags.CONTEXT)
    String context;

    @Option(names = "--kubeconfig", paramLabel = "PATH", description = "Explain on a snapshot of this kubeconfig's cluster instead of manifests.")
    Path kubeconfig;

    @Option(names = "--live", description = "Explain on a snapshot of the default cluster (KUBECONFIG, ~/.kube/config, or in-cluster).")
    boolean liveDefault;

    @Parameters(index = "0", paramLabel = "[NAMESPACE/]NAME",
            description = "A pod or a PodGroup, or a Volcano Job, PyTorchJob, MPIJob, LeaderWorkerSet or batch Job (its "
                    + "PodGroup is explained).")
    String subject;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "PATH", description = "Manifest files or folders.")
    List<Path> paths;

    @Override
    public Integer call() {
        boolean live = kubeconfig != null || liveDefault;
        if (live == (paths != null && !paths.isEmpty())) return Main.usage(spec, "give manifest PATHs or --kubeconfig/--live, not both and not neither");
        if (output.format.equals("text")) output.format = "table"; // explain's word before -o was kubectl's
        if (output.problem() != null) return Main.usage(spec, output.problem());
        if (context != null && !live) return Main.usage(spec, "--context is for --kubeconfig or --live");
        try {
            subject = ClusterFlags.qualify(subject, namespace, live, kubeconfig, context);
        } catch (ClusterFlags.BadSubject bad) {
            return Main.usage(spec, bad.getMessage());
        }
        if (sim.problem() != null) return Main.usage(spec, sim.problem());
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        Manifests manifests = live ? snapshot() : ManifestLoader.load(paths);
        try {
            Explainer.Resolved r = Explainer.resolve(manifests, subject);
            if (r.note() != null) {
                (output.table() ? spec.commandLine().getOut() : spec.commandLine().getErr()).println(r.note());
                subject = r.subject();
            }
        } catch (Explainer.UnknownSubjectException unknown) {
            return Main.usage(spec, unknown.getMessage());
        }
        RuleBook book = RuleBook.load(rules.folder);
        SchedulerConfig config = sim.schedulerConfig();
        SnapshotTap tap = new SnapshotTap();
        SimulationResult result = new Simulator(new Scheduler(book, config)).run(manifests, sim.simulation(false), tap);
        Main.warnIfUnsettled(spec, result, sim.maxCycles);
        Explanation e = withStart(Explainer.explain(manifests, result.cycles(), result.podGroups(), subject,
                config.schedulerNames()), manifests, result, tap, book, config, live);
        String document = output.document(() -> ExplanationText.json(e, manifests.notices()));
        if (document == null) {
            for (String n : manifests.notices()) spec.commandLine().getOut().println("notice: " + dev.arbiter.sim.TerminalText.safe(n));
            spec.commandLine().getOut().print(ExplanationText.render(e));
        } else {
            spec.commandLine().getOut().print(document);
        }
        spec.commandLine().getOut().flush();
        return 0;
    }

    /**
     * The explanation with the job's estimated start when it is still pending at the end of the run and some runtime
     * estimate exists (a pod's annotation or a policy default); as it is otherwise, so output without estimates is
     * unchanged.
     */
    private Explanation withStart(Explanation e, Manifests manifests, SimulationResult result, SnapshotTap tap,
                                  RuleBook book, SchedulerConfig config, boolean live) {
        Forecast f = EndOfRun.forecast(manifests, result, tap, new Forecaster(book, config, sim.forecast(false)),
                book.settings().runtime());
        if (f == null) return e;
        StartEstimate s = f.of(e.podGroup());
        if (s == null) return e;
        StartWords.Clock clock = live ? StartWords.Clock.rebasedAt(taken) : StartWords.Clock.SIMULATED;
        return e.withStart(new Explanation.Start(s, f, clock));
    }

    /** When the live snapshot was taken: its second 0. */
    private java.time.Instant taken;

    private Manifests snapshot() {
        taken = java.time.Instant.now();
        return ClusterFlags.snapshot(kubeconfig, context, taken);
    }
}
