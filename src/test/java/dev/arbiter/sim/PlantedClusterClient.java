package dev.arbiter.sim;

/** Planted for {@code ArchitectureTest}: the simulator holding a cluster client. Never used. */
public final class PlantedClusterClient {
    public io.fabric8.kubernetes.client.KubernetesClient client;
}
