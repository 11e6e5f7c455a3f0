package dev.arbiter.runtime;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A read-only use of the cluster for {@code snapshot} and {@code explain --kubeconfig}. */
public final class KubeClients {
    private KubeClients() {}

    /** From {@code kubeconfig}, or when null auto-configured (KUBECONFIG / ~/.kube/config, else in-cluster). */
    public static KubernetesClient connect(Path kubeconfig) {
        try {
            Config config = kubeconfig == null ? Config.autoConfigure(null) : Config.fromKubeconfig(Files.readString(kubeconfig));
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException(kubeconfig + ": cannot read: " + e.getMessage(), e);
        }
    }
}
