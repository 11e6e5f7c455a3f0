package dev.arbiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.SimulationResult;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter snapshot} against fabric8's CRUD mock API server: scheduling fields only, loadable by the manifest
 * loader, and simulating like the cluster it came from. Also {@code explain --kubeconfig} and {@code whatif --kubeconfig}
 * on the same cluster.
 */
@EnableKubernetesMockClient(crud = true)
class LiveSnapshotTest {
    /** The mock server logs every request at INFO; held here so the setting is not garbage-collected. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** One mock API server for the class: the tests only read the cluster. */
    static KubernetesClient client;
    static KubernetesMockServer server;

    @TempDir
    Path dir;

    /** When the snapshot is taken: a day after the Queue's usage was sampled. */
    private static final java.time.Instant TAKEN = java.time.Instant.parse("2026-12-05T20:46:00Z");

    @BeforeAll
    static void aSmallGpuCluster() {
        for (String n : List.of("gpu-1", "gpu-2")) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(n).addToLabels("pool", "gpu")
                    .addToAnnotations("node.alpha.kubernetes.io/ttl", "0").endMetadata()
                    .withNewSpec().withPodCIDR("10.0.0.0/24").endSpec()
                    .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("8")).addToAllocatable("cpu", new Quantity("32"))
                    .addToCapacity("nvidia.com/gpu", new Quantity("8")).addNewCondition().withType("Ready").withStatus("True").endCondition()
                    .endStatus().build()).create();
        }
        client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("high")
                .endMetadata().withValue(1000).withDescription("important").build()).create();
        client.genericKubernetesResources(LiveSnapshot.QUEUES).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("scheduling.volcano.sh/v1beta1").withKind("Queue").withNewMetadata().withName("team")
                .addToAnnotations("arbiter.dev/usage", "2026-12-04T20:46:00Z nvidia.com/gpu=4").addToAnnotations("example.com/other", "x")
                .endMetadata()
                .addToAdditionalProperties("spec", Map.of("weight", 2, "reclaimable", true, "dequeueStrategy", "fifo",
                        "deserved", Map.of("nvidia.com/gpu", "8")))
                .addToAdditionalProperties("status", Map.of("state", "Open", "running", 1)).build()).create();
        GenericKubernetesResource pg = new GenericKubernetesResourceBuilder()
                .withApiVersion("scheduling.volcano.sh/v1beta1").withKind("PodGroup")
                .withNewMetadata().withName("train").withNamespace("ml").withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .addToAdditionalProperties("spec", Map.of("minMember", 2, "queue", "team", "priorityClassName", "high"))
                .addToAdditionalProperties("status", Map.of("phase", "Inqueue", "conditions", List.of(Map.of("type", "Unschedulable"))))
                .build();
        client.genericKubernetesResources(LiveSnapshot.POD_GROUPS).inNamespace("ml").resource(pg).create();
        client.genericKubernetesResources(LiveSnapshot.HYPER_NODES).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("topology.volcano.sh/v1alpha1").withKind("HyperNode").withNewMetadata().withName("rack-1")
                .endMetadata().addToAdditionalProperties("spec", Map.of("tier", 1, "members", List.of(Map.of("type", "Node",
                        "selector", Map.of("regexMatch", Map.of("pattern", "gpu-[0-9]"))))))
                .addToAdditionalProperties("status", Map.of("nodeCount", 2)).build()).create();
        client.pods().inNamespace("ml").resource(pod("train-0", "gpu-1", "2026-01-01T00:00:01Z")).create();
        client.pods().inNamespace("ml").resource(pod("train-1", null, "2026-01-01T00:00:02Z")).create();
        client.pods().inNamespace("ml").resource(new PodBuilder(pod("done", "gpu-2", "2026-01-01T00:00:00Z"))
                .editMetadata().withName("done").endMetadata().withNewStatus().withPhase("Succeeded").endStatus().build()).create();
    }

    private static Pod pod(String name, String node, String created) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("ml").withCreationTimestamp(created)
                .addToLabels("app", "train")
                .addToAnnotations("scheduling.k8s.io/group-name", "train")
                .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{\"env\":\"TOKEN=s3cr3t\"}")
                .endMetadata()
                .withNewSpec().withSchedulerName("volcano").withNodeName(node).withPriorityClassName("high")
                .withServiceAccountName("trainer")
                .addNewContainer().withName("main").withImage("registry.example/train:1").addNewEnv().withName("TOKEN").withValue("s3cr3t").endEnv()
                .withNewResources().addToRequests("nvidia.com/gpu", new Quantity("8")).addToRequests("cpu", new Quantity("4")).endResources()
                .addNewVolumeMount().withName("creds").withMountPath("/creds").endVolumeMount().endContainer()
                .addNewInitContainer().withName("proxy").withImage("registry.example/proxy:1").withRestartPolicy("Always")
                .addNewEnv().withName("PROXY_TOKEN").withValue("s3cr3t").endEnv()
                .withNewResources().addToRequests("cpu", new Quantity("1")).endResources().endInitContainer()
                .addNewVolume().withName("creds").withNewSecret().withSecretName("train-creds").endSecret().endVolume()
                .endSpec()
                .withNewStatus().withPhase(node == null ? "Pending" : "Running").withPodIP("10.0.0.7")
                .withStartTime(node == null ? null : "2026-01-01T00:00:01Z").endStatus()
                .build();
    }

    @Test
    void theSnapshotKeepsSchedulingFieldsOnly() {
        String yaml = LiveSnapshot.write(client);
        for (String banned : List.of("s3cr3t", "env", "volume", "secret", "image", "managedFields", "last-applied",
                "serviceAccount", "podIP", "podCIDR", "conditions", "description", "running: 1", "node.alpha")) {
            assertFalse(yaml.contains(banned), "snapshot contains " + banned + ":\n" + yaml);
        }
        assertFalse(yaml.contains("name: done"), "finished pods are left out");
        assertTrue(yaml.contains("scheduling.k8s.io/group-name: train"), yaml);
    }

    @Test
    void theSnapshotKeepsHyperNodesAndKueuesTopologyAnnotations() {
        Manifests m = ManifestLoader.parse(LiveSnapshot.write(client), "snapshot");
        assertEquals(List.of(new dev.arbiter.model.HyperNodeSpec("rack-1", 1, List.of(new dev.arbiter.model.HyperNodeSpec.Member(
                dev.arbiter.model.HyperNodeSpec.MemberType.NODE, null, "gpu-[0-9]", null)))), m.hyperNodes());
        assertTrue(LiveSnapshot.POD_ANNOTATIONS.contains("kueue.x-k8s.io/podset-required-topology"));
    }

    @Test
    void startTimesAreRebasedSoTheSnapshotMomentIsSecondZero() {
        String yaml = LiveSnapshot.write(client, java.time.Instant.parse("2026-01-01T00:10:01Z"));
        assertTrue(yaml.contains("startTime: '1969-12-31T23:50:00Z'"), yaml);
        PodSpec running = ManifestLoader.parse(yaml, "snapshot").pods().get(0);
        assertEquals(-600, running.startedAt(), "had run ten minutes when the snapshot was taken");
    }

    @Test
    void theSnapshotLoadsAndSimulatesLikeTheCluster() {
        Manifests m = ManifestLoader.parse(LiveSnapshot.write(client, TAKEN), "snapshot");
        assertEquals(List.of("gpu-1", "gpu-2"), m.nodes().stream().map(n -> n.name()).toList());
        assertEquals(8_000, m.nodes().get(0).allocatable().milli("nvidia.com/gpu"));
        assertEquals(32_000, m.nodes().get(0).allocatable().milli("cpu"));
        assertEquals(List.of("ml/train-0", "ml/train-1"), m.pods().stream().map(PodSpec::key).toList());
        assertEquals("gpu-1", m.pods().get(0).nodeName());
        assertEquals(Resources.of("nvidia.com/gpu", 8, "cpu", 5, "pods", 1), m.pods().get(0).requests(),
                "the sidecar init container's request is kept: it runs next to the main container");
        assertEquals("Inqueue", m.podGroups().get(0).phase());
        assertEquals(2, m.podGroups().get(0).minMember());
        assertEquals(PodSpec.UNKNOWN_START, m.pods().get(1).startedAt(), "a pending pod has not started");
        assertTrue(m.podGroups().get(0).creationOrder() < m.pods().get(0).creationOrder(), "oldest first");
        dev.arbiter.model.QueueSpec team = m.queues().stream().filter(q -> q.name().equals("team")).findFirst().orElseThrow();
        assertEquals(2, team.weight());
        // Its stored past usage comes along, its time rebased as start times are (other annotations are dropped).
        assertEquals(Map.of("team", new dev.arbiter.model.QueueUsage(Map.of("nvidia.com/gpu", 4000.0),
                java.time.Instant.parse("2026-12-04T20:46:00Z").getEpochSecond() - TAKEN.getEpochSecond())), m.queueUsage());
        assertEquals("fifo", team.dequeueStrategy());
        assertEquals(Resources.of("nvidia.com/gpu", 8), team.deserved());
        assertEquals("Open", team.state());
        assertEquals(1000, m.priorityClasses().get(0).value());

        SimulationResult r = Shipped.simulate(m);
        assertEquals("gpu-2", r.pods().stream().filter(p -> p.pod().equals("ml/train-1")).findFirst().orElseThrow().node(),
                "the pending member binds to the free node");
    }

    @Test
    void theCommandsReachTheClusterThroughAKubeconfig() throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: me, user: {token: test}}]
                contexts: [{name: mock, context: {cluster: mock, user: me}}]
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl()));
        CliRunner snap = CliRunner.run("snapshot", "--kubeconfig", kubeconfig.toString());
        assertEquals(0, snap.exit(), snap.err());
        Path saved = Files.writeString(dir.resolve("cluster.yaml"), snap.out());
        assertEquals(2, ManifestLoader.load(List.of(saved)).pods().size());
        CliRunner json = CliRunner.run("snapshot", "-o", "json", "--kubeconfig", kubeconfig.toString());
        assertEquals(0, json.exit(), json.err());
        assertTrue(json.out().startsWith("{"), json.out());
        Path savedJson = Files.writeString(dir.resolve("cluster.json"), json.out());
        Manifests fromJson = ManifestLoader.load(List.of(savedJson));
        Manifests fromYaml = ManifestLoader.load(List.of(saved));
        // Each snapshot rebases start times on its own moment: compare the rest.
        java.util.function.Function<Manifests, List<String>> pods = m -> m.pods().stream()
                .map(p -> p.key() + " " + p.nodeName() + " " + p.phase() + " " + p.requests() + " " + p.annotations()).toList();
        assertEquals(pods.apply(fromYaml), pods.apply(fromJson), "-o json is the same objects, as one v1 List the simulator reads");
        assertEquals(fromYaml.podGroups(), fromJson.podGroups());
        assertEquals(fromYaml.nodes(), fromJson.nodes());

        CliRunner explain = CliRunner.run("explain", "ml/train", "--kubeconfig", kubeconfig.toString());
        assertEquals(0, explain.exit(), explain.err());
        assertTrue(explain.out().contains("PodGroup ml/train (queue team)"), explain.out());
        assertTrue(explain.out().contains("bind   ml/train-1 -> gpu-2"), explain.out());

        CliRunner whatif = CliRunner.run("whatif", "ml/train", "--kubeconfig", kubeconfig.toString());
        assertEquals(0, whatif.exit(), whatif.err());
        assertTrue(whatif.out().contains("starts with no change: binds 1 pod in cycle 1"), whatif.out());

        assertEquals(2, CliRunner.run("snapshot", "--kubeconfig", dir.resolve("missing").toString()).exit());
    }
}
