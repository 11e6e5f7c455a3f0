package dev.arbiter.cli;

import dev.arbiter.authoring.Explainer;
import dev.arbiter.authoring.Explanation;
import dev.arbiter.authoring.ExplanationText;
import dev.arbiter.runtime.KubeClients;
import dev.arbiter.runtime.LiveSnapshot;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
    String output;

    @Option(names = "--kubeconfig", paramLabel = "PATH", description = "Explain on a snapshot of this kubeconfig's cluster instead of manifests.")
    Path kubeconfig;

    @Option(names = "--live", description = "Explain on a snapshot of the default cluster (KUBECONFIG, ~/.kube/config, or in-cluster).")
    boolean liveDefault;

    @Parameters(index = "0", paramLabel = "NAMESPACE/NAME", description = "A pod or a PodGroup.")
    String subject;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "PATH", description = "Manifest files or folders.")
    List<Path> paths;

    @Override
    public Integer call() {
        boolean live = kubeconfig != null || liveDefault;
        if (live == (paths != null && !paths.isEmpty())) return Main.usage(spec, "give manifest PATHs or --kubeconfig/--live, not both and not neither");
        if (!output.equals("text") && !output.equals("json")) return Main.usage(spec, "--output must be text or json, got " + output);
        if (!subject.matches("[^/\\s]+/[^/\\s]+")) return Main.usage(spec, "expected namespace/name, got " + subject);
        if (sim.problem() != null) return Main.usage(spec, sim.problem());
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        Manifests manifests = live ? snapshot() : ManifestLoader.load(paths);
        try {
            Explainer.checkSubject(manifests, subject);
        } catch (Explainer.UnknownSubjectException unknown) {
            return Main.usage(spec, unknown.getMessage());
        }
        RuleBook book = RuleBook.load(rules.folder);
        SchedulerConfig config = sim.schedulerConfig();
        SimulationResult result = new Simulator(new Scheduler(book, config)).run(manifests, sim.simulation(false));
        Main.warnIfUnsettled(spec, result, sim.maxCycles);
        Explanation e = Explainer.explain(manifests, result.cycles(), result.podGroups(), subject, config.schedulerNames());
        if (output.equals("json")) {
            spec.commandLine().getOut().print(ExplanationText.json(e, manifests.notices()));
        } else {
            for (String n : manifests.notices()) spec.commandLine().getOut().println("notice: " + dev.arbiter.sim.TerminalText.safe(n));
            spec.commandLine().getOut().print(ExplanationText.render(e));
        }
        spec.commandLine().getOut().flush();
        return 0;
    }

    private Manifests snapshot() {
        try (KubernetesClient client = KubeClients.connect(kubeconfig)) {
            String yaml;
            try {
                yaml = LiveSnapshot.write(client);
            } catch (KubernetesClientException e) {
                throw KubeClients.unavailable(e, client.getMasterUrl().toString());
            }
            return ManifestLoader.parse(yaml, "snapshot of " + client.getMasterUrl());
        }
    }
}
