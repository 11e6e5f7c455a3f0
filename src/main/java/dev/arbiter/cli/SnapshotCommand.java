package dev.arbiter.cli;

import dev.arbiter.runtime.KubeClients;
import dev.arbiter.runtime.LiveSnapshot;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter snapshot}: the live cluster's scheduling-relevant objects as manifests, on stdout. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = {"Write the live cluster's Nodes, Pods, PriorityClasses, Queues and PodGroups as manifests "
                + "(scheduling fields only) that simulate, explain and diff accept.",
                "Always every namespace (no -n): the other namespaces' pods hold node capacity and queue shares, so a"
                        + " snapshot of one namespace would not simulate what the cluster decides."})
final class SnapshotCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "PATH", description = ClusterFlags.KUBECONFIG)
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = ClusterFlags.CONTEXT)
    String context;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "yaml",
            description = "yaml (one document per object) or json (one v1 List of them) (default: ${DEFAULT-VALUE}).")
    String format;

    @Override
    public Integer call() {
        if (!format.equals("yaml") && !format.equals("json")) {
            return Main.usage(spec, "--output must be yaml or json, got " + format);
        }
        try (KubernetesClient client = KubeClients.connect(kubeconfig, context)) {
            LiveSnapshot.Taken taken;
            try {
                taken = LiveSnapshot.take(client);
            } catch (KubernetesClientException e) {
                throw KubeClients.unavailable(e, client.getMasterUrl().toString());
            }
            if (format.equals("json")) {
                for (String n : taken.notes()) spec.commandLine().getErr().println("note: " + n);
                spec.commandLine().getOut().print(taken.json());
            } else {
                spec.commandLine().getOut().print(taken.yaml());
            }
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
