package dev.arbiter.cli;

import dev.arbiter.authoring.Explainer;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.Simulator;
import dev.arbiter.whatif.Answer;
import dev.arbiter.whatif.WhatIf;
import dev.arbiter.whatif.WhatIfState;
import dev.arbiter.whatif.WhatIfText;
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
 * {@code arbiter whatif ns/name PATH...}: what would start a pending job, each change checked by running the real
 * engine on the changed cluster ({@link WhatIf}). The state asked about: with {@code --at-cycle N}, the simulation's
 * snapshot of cycle N (a job that arrives later is brought in at N, and a note says so); without it, the end of the
 * simulation when the job is still pending there; live, the cluster now.
 */
@Command(name = "whatif", mixinStandardHelpOptions = true,
        description = "What would start a pending job: the smallest changes (quota, policy, its own constraints, jobs "
                + "ending, nodes), each checked with the engine, cheapest first.")
final class WhatIfCommand implements Callable<Integer> {
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

    @Option(names = "--kubeconfig", paramLabel = "PATH", description = "Ask about a snapshot of this kubeconfig's cluster instead of manifests.")
    Path kubeconfig;

    @Option(names = "--at-cycle", paramLabel = "N",
            description = "Ask at the start of simulated cycle N (a job that arrives later is brought in at N). Default: "
                    + "the end of the simulation.")
    Integer atCycle;

    @Option(names = "--top", paramLabel = "N", defaultValue = "5", description = "Show at most N changes (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--all", description = "Show every change found.")
    boolean all;

    @Parameters(index = "0", paramLabel = "[NAMESPACE/]NAME",
            description = "A PodGroup or a pod, or a Volcano Job, PyTorchJob, MPIJob, LeaderWorkerSet or batch Job (its PodGroup).")
    String subject;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "PATH", description = "Manifest files or folders.")
    List<Path> paths;

    @Override
    public Integer call() {
        boolean live = kubeconfig != null;
        if (live == (paths != null && !paths.isEmpty())) return Main.usage(spec, "give manifest PATHs or --kubeconfig, not both and not neither");
        if (output.problem() != null) return Main.usage(spec, output.problem());
        if (context != null && !live) return Main.usage(spec, "--context is for --kubeconfig");
        if (top < 1) return Main.usage(spec, "--top must be at least 1, got " + top);
        if (atCycle != null && atCycle < 1) return Main.usage(spec, "--at-cycle must be at least 1, got " + atCycle);
        if (atCycle != null && live) return Main.usage(spec, "--at-cycle is for manifests (live, the cluster is asked as it is now)");
        try {
            subject = ClusterFlags.qualify(subject, namespace, live, kubeconfig, context);
        } catch (ClusterFlags.BadSubject bad) {
            return Main.usage(spec, bad.getMessage());
        }
        if (sim.problem() != null) return Main.usage(spec, sim.problem());
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        Manifests manifests = live ? snapshot() : ManifestLoader.load(paths);
        String note = null;
        try {
            Explainer.Resolved r = Explainer.resolve(manifests, subject);
            note = r.note();
            subject = r.subject();
        } catch (Explainer.UnknownSubjectException unknown) {
            return Main.usage(spec, unknown.getMessage());
        }
        RuleBook book = RuleBook.load(rules.folder);
        SchedulerConfig config = sim.schedulerConfig();
        Simulator simulator = new Simulator(new Scheduler(book, config));
        Simulator.Options options = sim.simulation(false);
        WhatIfState.At at = live ? WhatIfState.now(simulator, manifests, options, subject)
                : atCycle != null ? WhatIfState.atCycle(simulator, manifests, options, subject, atCycle)
                : WhatIfState.whereStillPending(simulator, manifests, options, subject);
        if (at.note() != null) note = note == null ? at.note() : note + "\n" + at.note();
        int max = all ? -1 : top;
        Answer a;
        try {
            a = at.answer() != null ? at.answer()
                    : WhatIf.ask(new WhatIf.Question(at.state(), at.cycle(), at.job(), book, config, options.cycleSeconds(), max));
        } catch (IllegalArgumentException e) {
            return Main.usage(spec, e.getMessage());
        }
        String doc = output.document(() -> WhatIfText.json(a, max, at.note() == null ? null : at.note()));
        spec.commandLine().getOut().print(doc != null ? doc : WhatIfText.render(a, max, note));
        spec.commandLine().getOut().flush();
        return 0;
    }

    private Manifests snapshot() {
        return ClusterFlags.snapshot(kubeconfig, context, java.time.Instant.now());
    }
}
