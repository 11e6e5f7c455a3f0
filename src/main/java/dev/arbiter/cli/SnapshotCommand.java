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
        description = "Write the live cluster's Nodes, Pods, PriorityClasses, Queues and PodGroups as manifests "
                + "(scheduling fields only) that simulate, explain and diff accept.")
final class SnapshotCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "PATH", description = "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, or in-cluster).")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context to use (default: its current one).")
    String context;

    @Override
    public Integer call() {
        try (KubernetesClient client = KubeClients.connect(kubeconfig, context)) {
            String yaml;
            try {
                yaml = LiveSnapshot.write(client);
            } catch (KubernetesClientException e) {
                throw KubeClients.unavailable(e, client.getMasterUrl().toString());
            }
            spec.commandLine().getOut().print(yaml);
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
