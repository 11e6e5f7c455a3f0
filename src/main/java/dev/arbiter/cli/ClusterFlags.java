package dev.arbiter.cli;

/**
 * The help wording of the flags every command that reads a cluster shares, as kubectl words them, so {@code explain},
 * {@code snapshot} and {@code run} say the same thing of the same flag.
 */
final class ClusterFlags {
    private ClusterFlags() {}

    static final String KUBECONFIG = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else the in-cluster service"
            + " account).";
    static final String CONTEXT = "The kubeconfig context to use (default: its current one).";
    static final String NAMESPACE = "The namespace of a NAME given without one (default: the kubeconfig context's"
            + " namespace on a cluster, else default).";
}
