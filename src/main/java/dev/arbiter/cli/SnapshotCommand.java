package dev.arbiter.cli;

import dev.arbiter.runtime.KubeClients;
import dev.arbiter.runtime.LiveSnapshot;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter snapshot}: the live cluster's scheduling-relevant objects as manifests, on stdout. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = "Write the live cluster's Nodes, Pods, PriorityClasses, Queues and PodGroups as manifests "
                + "(scheduling fields only) that simulate, explain and diff accept.")
final class SnapshotCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "PATH", description = "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, or in-cluster).")
    Path kubeconfig;

    @Override
    public Integer call() {
        if (kubeconfig != null && !Files.isRegularFile(kubeconfig)) {
            spec.commandLine().getErr().println("error: " + kubeconfig + ": no such file");
            return Main.INVALID_INPUT;
        }
        try (KubernetesClient client = KubeClients.connect(kubeconfig)) {
            spec.commandLine().getOut().print(LiveSnapshot.write(client));
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
