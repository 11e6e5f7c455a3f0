package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.errorOf;
import static dev.arbiter.manifest.TestManifests.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.model.Manifests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the Kubernetes API server would refuse is refused here too (one line, exit 2); what it accepts but is probably a
 * mistake gets a one-line notice; pods that finished hold nothing.
 */
@DisplayName("Manifests are checked as the API server checks them")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ApiServerChecksTest {
    private static final String LONG = "a".repeat(10_000);

    private static String pod(String metadata, String spec, String status) {
        return "apiVersion: v1\nkind: Pod\nmetadata: " + metadata + "\nspec:\n  containers:\n  - name: c\n    resources: "
                + spec + "\n" + (status == null ? "" : "status: " + status + "\n");
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("a pod phase the API does not define", pod("{name: p}", "{}", "{phase: Exploded}"),
                        "test.yaml:8: Pod default/p: status.phase: must be Pending, Running, Succeeded, Failed or Unknown, got \"Exploded\""),
                Arguments.of("a limit below the request", pod("{name: p}", "{requests: {cpu: \"2\"}, limits: {cpu: \"1\"}}", null),
                        "test.yaml:7: Pod default/p: spec.containers[0].resources.requests.cpu: must be less than or equal to"
                                + " cpu limit of 1, got \"2\""),
                Arguments.of("a memory limit below the request", pod("{name: p}", "{requests: {memory: 2Gi}, limits: {memory: 1Gi}}", null),
                        "test.yaml:7: Pod default/p: spec.containers[0].resources.requests.memory: must be less than or equal to"
                                + " memory limit of 1Gi, got \"2Gi\""),
                Arguments.of("an extended resource whose request differs from its limit",
                        pod("{name: p}", "{requests: {nvidia.com/gpu: \"1\"}, limits: {nvidia.com/gpu: \"2\"}}", null),
                        "test.yaml:7: Pod default/p: spec.containers[0].resources.requests[nvidia.com/gpu]: must be equal to"
                                + " nvidia.com/gpu limit of 2, got \"1\""),
                Arguments.of("half a GPU", pod("{name: p}", "{limits: {nvidia.com/gpu: 500m}}", null),
                        "test.yaml:7: Pod default/p: spec.containers[0].resources.limits[nvidia.com/gpu]: must be an integer, got \"500m\""),
                Arguments.of("a 10,000-character pod name", pod("{name: " + LONG + "}", "{}", null),
                        "test.yaml:3: Pod: metadata.name: must be no more than 253 characters, got 10000 (\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\")"),
                Arguments.of("a name with capitals and underscores", "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: Team_A}\n",
                        "test.yaml:3: Queue: metadata.name: must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.', starting"
                                + " and ending with a letter or digit), got \"Team_A\""),
                Arguments.of("a 64-character namespace", pod("{name: p, namespace: " + "n".repeat(64) + "}", "{}", null),
                        "test.yaml:3: Pod: metadata.namespace: must be no more than 63 characters, got 64 (\"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...\")"),
                Arguments.of("a label value longer than 63 characters", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: {pool: "
                        + "x".repeat(64) + "}\n", "test.yaml:5: Node n: metadata.labels.pool: must be no more than 63 characters, got 64"
                        + " (\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\")"),
                Arguments.of("an annotation key with a space", pod("{name: p, annotations: {\"my key\": v}}", "{}", null),
                        "test.yaml:3: Pod default/p: metadata.annotations[my key]: is not a valid key: a name of at most 63 letters,"
                                + " digits, '-', '_' or '.', optionally after a DNS subdomain prefix and '/' (e.g. example.com/my-key),"
                                + " got \"my key\""),
                Arguments.of("two global default priority classes", """
                        apiVersion: scheduling.k8s.io/v1
                        kind: PriorityClass
                        metadata: {name: a}
                        value: 1
                        globalDefault: true
                        ---
                        apiVersion: scheduling.k8s.io/v1
                        kind: PriorityClass
                        metadata: {name: b}
                        value: 2
                        globalDefault: true
                        """, "test.yaml:11: PriorityClass b: globalDefault: PriorityClass a (test.yaml:1) is already the global"
                        + " default; only one PriorityClass may be"),
                Arguments.of("a request above its limit in a PyTorchJob template", """
                        apiVersion: kubeflow.org/v1
                        kind: PyTorchJob
                        metadata: {name: train, namespace: ml}
                        spec:
                          pytorchReplicaSpecs:
                            Master:
                              replicas: 1
                              template:
                                spec:
                                  containers:
                                  - name: pytorch
                                    resources: {requests: {cpu: "8"}, limits: {cpu: "4"}}
                        """, "test.yaml:12: PyTorchJob ml/train: spec.pytorchReplicaSpecs.Master.template.spec.containers[0]"
                        + ".resources.requests.cpu: must be less than or equal to cpu limit of 4, got \"8\""));
    }

    @ParameterizedTest(name = "{0} is refused")
    @MethodSource("refused")
    void what_the_API_server_refuses_is_refused(String description, String yaml, String expected) {
        String message = errorOf(yaml);
        assertEquals(expected, message);
        assertFalse(message.contains("\n"));
        assertTrue(message.length() < 400, "one readable line, not the 10,000-character name: " + message.length());
    }

    @Test
    void what_the_API_server_accepts_loads_without_a_notice() {
        Manifests m = parse(pod("{name: p-1.a, namespace: team-a, labels: {app.kubernetes.io/name: x, tier: \"\"},"
                        + " annotations: {scheduling.k8s.io/group-name: g, note: \"free text: anything\"}}",
                "{requests: {cpu: 500m, nvidia.com/gpu: \"2\"}, limits: {cpu: \"1\", nvidia.com/gpu: \"2\"}}", "{phase: Pending}")
                + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n  - name: c\n"
                + "    resources: {limits: {example.com/fpga: \"1\"}}\n"
                + "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: team-a}\n");
        assertEquals(2, m.pods().size());
        assertEquals(List.of(), m.notices());
    }

    @Test
    void a_GPU_requested_without_a_limit_is_read_with_one_notice_for_all_such_pods() {
        Manifests m = parse(pod("{name: a}", "{requests: {nvidia.com/gpu: \"1\"}}", null) + "---\n"
                + pod("{name: b}", "{requests: {nvidia.com/gpu: \"1\"}}", null));
        assertEquals(List.of("test.yaml:7: Pod default/a: spec.containers[0].resources.limits: nvidia.com/gpu is requested"
                + " without a limit (and in 1 other pod or template); the API server refuses such a pod, since a resource that"
                + " cannot be overcommitted needs a limit equal to its request; simulated as if the limit were the request"), m.notices());
        assertEquals(1000, m.pods().get(0).requests().milli("nvidia.com/gpu"), "the request is read");
    }

    private static final String NODE = """
            apiVersion: v1
            kind: Node
            metadata: {name: n1}
            status: {allocatable: {cpu: "8", nvidia.com/gpu: "8"}}
            ---
            """;

    private static String boundPod(String name, String node, int gpus, String phase) {
        return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ns}\nspec:\n  schedulerName: arbiter\n"
                + "  nodeName: " + node + "\n  containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: \"" + gpus + "\"}}\n"
                + "status: {phase: " + phase + "}\n---\n";
    }

    @Test
    void a_pod_bound_to_a_node_that_does_not_exist_gets_a_notice() {
        Manifests m = parse(NODE + boundPod("lost", "node-9", 1, "Running"));
        assertEquals(List.of("test.yaml:6: Pod ns/lost: spec.nodeName: node \"node-9\" is not in the manifests; the pod is"
                + " bound there and holds nothing on any node that is"), m.notices());
    }

    @Test
    void a_node_already_over_capacity_gets_a_notice_and_finished_pods_do_not_count() {
        Manifests over = parse(NODE + boundPod("a", "n1", 8, "Running") + boundPod("b", "n1", 8, "Running"));
        assertEquals(List.of("test.yaml:1: Node n1: its bound pods already request more than it has (nvidia.com/gpu 16 of 8);"
                + " the simulator leaves it over capacity and places nothing more there"), over.notices());
        Manifests done = parse(NODE + boundPod("a", "n1", 8, "Running") + boundPod("b", "n1", 8, "Succeeded")
                + boundPod("c", "n1", 8, "Failed"));
        assertEquals(List.of(), done.notices(), "Succeeded and Failed pods hold nothing");
    }

    @Test
    void a_finished_pod_is_reported_as_finished_and_its_node_is_free(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("done.yaml"), NODE + boundPod("done", "n1", 8, "Succeeded")
                + "apiVersion: v1\nkind: Pod\nmetadata: {name: next, namespace: ns}\nspec:\n  schedulerName: arbiter\n"
                + "  containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: \"8\"}}\n");
        CliRunner r = CliRunner.run("simulate", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("bind   ns/next -> n1"), "the Succeeded pod's GPUs are free: " + r.out());
        assertTrue(r.out().matches("(?s).*ns/done\\s+Succeeded\\s+n1\\n.*"), "shown as Succeeded, not Running: " + r.out());
        assertFalse(r.out().contains("notice:"), r.out());
    }

    @Test
    void refusals_exit_2_with_one_line_and_notices_do_not_stop_the_run(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.yaml"), pod("{name: p}", "{}", "{phase: Exploded}"));
        CliRunner refused = CliRunner.run("simulate", bad.toString());
        assertEquals(2, refused.exit());
        assertEquals("error: " + bad + ":8: Pod default/p: status.phase: must be Pending, Running, Succeeded, Failed or Unknown,"
                + " got \"Exploded\"", refused.err().strip());
        Path odd = Files.writeString(dir.resolve("odd.yaml"), NODE + boundPod("lost", "node-9", 1, "Running"));
        CliRunner noticed = CliRunner.run("simulate", odd.toString());
        assertEquals(0, noticed.exit(), noticed.err());
        assertTrue(noticed.out().startsWith("notice: " + odd + ":6: Pod ns/lost: spec.nodeName: node \"node-9\" is not in the manifests"),
                noticed.out());
    }
}
