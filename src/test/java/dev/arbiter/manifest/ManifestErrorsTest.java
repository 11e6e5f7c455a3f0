package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.errorOf;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Invalid manifests fail with a one-line message naming file, line, object and field")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ManifestErrorsTest {
    private static final Path FIXTURES = Path.of("src/test/resources/manifests");

    private static void assertOneLine(String message) {
        assertAll(() -> assertFalse(message.contains("\n"), "multi-line: " + message),
                () -> assertFalse(message.contains("Exception"), "mentions an exception: " + message));
    }

    static Stream<Arguments> invalidTexts() {
        return Stream.of(
                Arguments.of("malformed YAML", """
                        apiVersion: v1
                        kind: Pod
                        metadata:
                          name: p: q
                        """, "test.yaml:4: invalid YAML: mapping values are not allowed here"),
                Arguments.of("an unterminated quote", """
                        apiVersion: v1
                        kind: "Pod
                        """, "test.yaml:3: invalid YAML: found unexpected end of stream"
                        + " (while scanning a quoted scalar at line 2)"),
                Arguments.of("a document that is not a mapping", """
                        apiVersion: v1
                        kind: Node
                        metadata: {name: n}
                        ---
                        - just
                        - a list
                        """, "test.yaml:5: object: a manifest must be a mapping with apiVersion, kind and metadata,"
                        + " got a list"),
                Arguments.of("a missing apiVersion", """
                        kind: Pod
                        metadata: {name: p}
                        """, "test.yaml:1: Pod: apiVersion: is required"),
                Arguments.of("a missing kind", """
                        apiVersion: v1
                        metadata: {name: p}
                        """, "test.yaml:1: object: kind: is required"),
                Arguments.of("a missing name", """
                        apiVersion: v1
                        kind: Pod
                        metadata:
                          namespace: team
                        """, "test.yaml:4: Pod: metadata.name: is required"),
                Arguments.of("a bad container quantity", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: p1, namespace: team}
                        spec:
                          containers:
                            - name: main
                              resources:
                                requests:
                                  cpu: 12x
                        """, "test.yaml:9: Pod team/p1: spec.containers[0].resources.requests.cpu: \"12x\" is not a"
                        + " Kubernetes quantity (expected e.g. 500m, 2, 96Gi, 1G)"),
                Arguments.of("a negative extended-resource quantity", """
                        apiVersion: v1
                        kind: Node
                        metadata: {name: n1}
                        status:
                          allocatable:
                            mars-tech.com/gpu: "-8"
                        """, "test.yaml:6: Node n1: status.allocatable[mars-tech.com/gpu]: must not be negative, got -8"),
                Arguments.of("a bad quantity in a PyTorchJob template", """
                        apiVersion: kubeflow.org/v1
                        kind: PyTorchJob
                        metadata: {name: job, namespace: ml}
                        spec:
                          pytorchReplicaSpecs:
                            Worker:
                              template:
                                spec:
                                  containers:
                                    - resources: {limits: {memory: lots}}
                        """, "test.yaml:10: PyTorchJob ml/job: spec.pytorchReplicaSpecs.Worker.template.spec"
                        + ".containers[0].resources.limits.memory: \"lots\" is not a Kubernetes quantity"
                        + " (expected e.g. 500m, 2, 96Gi, 1G)"),
                Arguments.of("a negative queue weight", """
                        apiVersion: scheduling.volcano.sh/v1beta1
                        kind: Queue
                        metadata:
                          name: tenanta
                        spec:
                          weight: -1
                        """, "test.yaml:6: Queue tenanta: spec.weight: must be a positive integer, got -1"),
                Arguments.of("a zero queue weight", """
                        apiVersion: scheduling.volcano.sh/v1beta1
                        kind: Queue
                        metadata: {name: tenanta}
                        spec: {weight: 0}
                        """, "test.yaml:4: Queue tenanta: spec.weight: must be a positive integer, got 0"),
                Arguments.of("a non-integer queue weight", """
                        apiVersion: scheduling.volcano.sh/v1beta1
                        kind: Queue
                        metadata: {name: tenanta}
                        spec: {weight: 1.5}
                        """, "test.yaml:4: Queue tenanta: spec.weight: must be a positive integer, got 1.5"),
                Arguments.of("a negative minMember", """
                        apiVersion: scheduling.volcano.sh/v1beta1
                        kind: PodGroup
                        metadata: {name: pg, namespace: team}
                        spec:
                          queue: research
                          minMember: -2
                        """, "test.yaml:6: PodGroup team/pg: spec.minMember: must be a non-negative integer, got -2"),
                Arguments.of("a negative minAvailable", """
                        apiVersion: kubeflow.org/v1
                        kind: PyTorchJob
                        metadata: {name: job, namespace: ml}
                        spec:
                          runPolicy: {schedulingPolicy: {minAvailable: -1}}
                          pytorchReplicaSpecs:
                            Master: {template: {spec: {containers: [{name: c}]}}}
                        """, "test.yaml:5: PyTorchJob ml/job: spec.runPolicy.schedulingPolicy.minAvailable: must be a"
                        + " non-negative integer, got -1"),
                Arguments.of("an unknown PyTorchJob replica type", """
                        apiVersion: kubeflow.org/v1
                        kind: PyTorchJob
                        metadata: {name: job}
                        spec:
                          pytorchReplicaSpecs:
                            Chief:
                              template: {spec: {containers: [{name: c}]}}
                        """, "test.yaml:7: PyTorchJob default/job: spec.pytorchReplicaSpecs.Chief: unknown replica type"
                        + " (a PyTorchJob has Master and Worker replicas)"),
                Arguments.of("a non-integer priority class value", """
                        apiVersion: scheduling.k8s.io/v1
                        kind: PriorityClass
                        metadata: {name: high}
                        value: very
                        """, "test.yaml:4: PriorityClass high: value: must be an integer, got \"very\""),
                Arguments.of("a priority class without a value", """
                        apiVersion: scheduling.k8s.io/v1
                        kind: PriorityClass
                        metadata: {name: high}
                        globalDefault: true
                        """, "test.yaml:1: PriorityClass high: value: is required"),
                Arguments.of("a duplicate pod", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: x, namespace: team}
                        ---
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: x, namespace: team}
                        """, "test.yaml:5: duplicate Pod team/x (first at test.yaml:1)"),
                Arguments.of("a generated pod colliding with a listed pod", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: job-worker-0, namespace: team}
                        ---
                        apiVersion: kubeflow.org/v1
                        kind: PyTorchJob
                        metadata: {name: job, namespace: team}
                        spec:
                          pytorchReplicaSpecs:
                            Worker: {replicas: 1, template: {spec: {containers: [{name: c}]}}}
                        """, "test.yaml:5: PyTorchJob team/job: duplicate Pod team/job-worker-0 (first at test.yaml:1)"),
                Arguments.of("a duplicate key", """
                        apiVersion: v1
                        kind: Node
                        metadata:
                          name: n1
                          name: n2
                        """, "test.yaml:5: Node: metadata.name: duplicate key (first at line 4)"),
                Arguments.of("a negative arrival cycle", """
                        apiVersion: v1
                        kind: Pod
                        metadata:
                          name: p
                          annotations:
                            simulation.arbiter.dev/arrival-cycle: "-1"
                        """, "test.yaml:6: Pod default/p: metadata.annotations[simulation.arbiter.dev/arrival-cycle]:"
                        + " must be a non-negative integer, got \"-1\""),
                Arguments.of("a field of the wrong shape", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: p}
                        spec:
                          containers:
                            name: main
                        """, "test.yaml:6: Pod default/p: spec.containers: must be a list, got a mapping"),
                Arguments.of("a non-boolean flag", """
                        apiVersion: v1
                        kind: Node
                        metadata: {name: n1}
                        spec: {unschedulable: maybe}
                        """, "test.yaml:4: Node n1: spec.unschedulable: must be true or false, got \"maybe\""),
                Arguments.of("an unknown preemption policy", """
                        apiVersion: scheduling.k8s.io/v1
                        kind: PriorityClass
                        metadata: {name: high}
                        value: 10
                        preemptionPolicy: Sometimes
                        """, "test.yaml:5: PriorityClass high: preemptionPolicy: must be PreemptLowerPriority or Never,"
                        + " got \"Sometimes\""),
                Arguments.of("a LeaderWorkerSet without a worker template", """
                        apiVersion: leaderworkerset.x-k8s.io/v1
                        kind: LeaderWorkerSet
                        metadata: {name: serve}
                        spec:
                          leaderWorkerTemplate: {size: 2}
                        """, "test.yaml:5: LeaderWorkerSet default/serve: spec.leaderWorkerTemplate.workerTemplate:"
                        + " is required"),
                Arguments.of("node quantities whose cluster total overflows", """
                        apiVersion: v1
                        kind: Node
                        metadata: {name: n1}
                        status: {allocatable: {cpu: "9000000000000000"}}
                        ---
                        apiVersion: v1
                        kind: Node
                        metadata: {name: n2}
                        status: {allocatable: {cpu: "9000000000000000"}}
                        """, "test.yaml:9: Node n2: status.allocatable.cpu: with this node the cluster's total cpu passes"
                        + " the largest amount Arbiter can count; is the quantity right?"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidTexts")
    void is_reported_exactly(String description, String yaml, String expected) {
        String message = errorOf(yaml);
        assertEquals(expected, message);
        assertOneLine(message);
    }

    @Test
    void a_missing_path_is_reported_as_such() {
        Path missing = FIXTURES.resolve("no-such-dir/none.yaml");
        ManifestException e = assertThrows(ManifestException.class, () -> ManifestLoader.load(List.of(missing)));
        assertEquals(missing + ": no such file or directory", e.getMessage());
    }

    @Test
    void an_error_in_a_file_names_the_file_and_the_line_of_the_field() {
        Path file = FIXTURES.resolve("bad-weight.yaml");
        ManifestException e = assertThrows(ManifestException.class, () -> ManifestLoader.load(List.of(file)));
        assertEquals(file + ":8: Queue tenanta: spec.weight: must be a positive integer, got -1", e.getMessage());
    }

    @Test
    void a_duplicate_across_files_names_both_files() {
        Path first = FIXTURES.resolve("dup-1.yaml");
        Path second = FIXTURES.resolve("dup-2.yaml");
        ManifestException e = assertThrows(ManifestException.class, () -> ManifestLoader.load(List.of(first, second)));
        assertEquals(second + ":2: duplicate Pod team/x (first at " + first + ":1)", e.getMessage());
    }

    @Test
    void a_multi_line_message_is_folded_into_one_line() {
        assertEquals("a: b c", new ManifestException("a:\n  b\r\n c\n").getMessage());
    }
}
