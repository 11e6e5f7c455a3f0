package dev.arbiter.cli;

/**
 * The help wording of the flags every command that reads a cluster shares, as kubectl words them, so {@code explain},
 * {@code snapshot} and {@code run} say the same thing of the same flag.
 */
final class ClusterFlags {
    private ClusterFlags() {}

    /** A command-line mistake, worded for {@link Main#usage}. */
    static final class BadSubject extends Exception {
        BadSubject(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * {@code subject} as {@code namespace/name}: a bare name takes {@code namespace}, else (on a cluster) the
     * kubeconfig context's namespace, else {@code default}; a qualified one must agree with {@code namespace} when
     * both are given. Shared by {@code explain} and {@code whatif}.
     */
    static String qualify(String subject, String namespace, boolean live, java.nio.file.Path kubeconfig, String context)
            throws BadSubject {
        String out = subject;
        if (subject.matches("[^/\\s]+")) {
            String ns = namespace;
            if (ns == null && live) {
                try (io.fabric8.kubernetes.client.KubernetesClient client = dev.arbiter.runtime.KubeClients.connect(kubeconfig, context)) {
                    ns = client.getNamespace();
                }
            }
            out = (ns == null || ns.isBlank() ? "default" : ns) + "/" + subject;
        } else if (namespace != null && !subject.startsWith(namespace + "/")) {
            throw new BadSubject(subject + " names its namespace; -n " + namespace + " says another");
        }
        if (!out.matches("[^/\\s]+/[^/\\s]+")) throw new BadSubject("expected [namespace/]name, got " + out);
        return out;
    }

    /**
     * The scheduling-relevant objects of the cluster {@code kubeconfig} and {@code context} name, taken at
     * {@code taken}, as manifests; an unreachable cluster is one line ({@link dev.arbiter.runtime.KubeClients#unavailable}).
     */
    static dev.arbiter.model.Manifests snapshot(java.nio.file.Path kubeconfig, String context, java.time.Instant taken) {
        try (io.fabric8.kubernetes.client.KubernetesClient client = dev.arbiter.runtime.KubeClients.connect(kubeconfig, context)) {
            String yaml;
            try {
                yaml = dev.arbiter.runtime.LiveSnapshot.write(client, taken);
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                throw dev.arbiter.runtime.KubeClients.unavailable(e, client.getMasterUrl().toString());
            }
            return dev.arbiter.manifest.ManifestLoader.parse(yaml, "snapshot of " + client.getMasterUrl());
        }
    }

    static final String KUBECONFIG = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else the in-cluster service"
            + " account).";
    static final String CONTEXT = "The kubeconfig context to use (default: its current one).";
    static final String NAMESPACE = "The namespace of a NAME given without one (default: the kubeconfig context's"
            + " namespace on a cluster, else default).";
}
