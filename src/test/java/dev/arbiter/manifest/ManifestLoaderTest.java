package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.pod;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static dev.arbiter.manifest.TestManifests.queue;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ManifestLoaderTest {
    private static final Path FIXTURES = Path.of("src/test/resources/manifests");

    private static List<String> nodeNames(Manifests m) {
        return m.nodes().stream().map(NodeSpec::name).toList();
    }

    @Test
    void walks_a_directory_recursively_in_path_order_skipping_hidden_and_non_yaml_files() {
        Manifests m = ManifestLoader.load(List.of(FIXTURES.resolve("walk")));
        assertEquals(List.of("from-a", "from-b-dir-nested", "from-c-1", "from-c-2"), nodeNames(m));
    }

    @Test
    void reads_paths_in_the_order_given() {
        Manifests m = ManifestLoader.load(List.of(FIXTURES.resolve("walk/c.yaml"), FIXTURES.resolve("walk/a.yaml")));
        assertEquals(List.of("from-c-1", "from-c-2", "from-a"), nodeNames(m));
    }

    @Test
    void a_directory_without_yaml_files_is_an_error() {
        Path dir = FIXTURES.resolve("empty-dir");
        ManifestException e = assertThrows(ManifestException.class, () -> ManifestLoader.load(List.of(dir)));
        assertEquals(dir + ": no Kubernetes object (no *.yaml or *.yml file in it has a document with apiVersion and kind)",
                e.getMessage());
    }

    @Test
    void an_empty_text_or_empty_documents_give_nothing_but_the_default_queue() {
        for (String yaml : List.of("", "# only a comment\n", "---\n---\n", "---\n~\n---\n")) {
            Manifests m = parse(yaml);
            assertAll(yaml, () -> assertEquals(List.of(QueueSpec.defaultQueue()), m.queues()),
                    () -> assertEquals(List.of(), m.nodes()), () -> assertEquals(List.of(), m.pods()));
        }
    }

    @Test
    void unpacks_a_List_and_a_typed_PodList_whose_items_omit_apiVersion_and_kind() {
        Manifests m = parse("""
                apiVersion: v1
                kind: List
                items:
                  - apiVersion: v1
                    kind: Node
                    metadata: {name: n1}
                  - apiVersion: v1
                    kind: PodList
                    items:
                      - metadata: {name: p1, namespace: team}
                """);
        assertEquals(List.of("n1"), nodeNames(m));
        assertEquals("p1", pod(m, "team/p1").name());
    }

    static Stream<Arguments> skippedKinds() {
        return Stream.of(
                Arguments.of("""
                        apiVersion: v1
                        kind: ConfigMap
                        metadata: {name: settings, namespace: team}
                        """, "test.yaml:1: skipped v1 ConfigMap team/settings: not a kind Arbiter schedules"),
                Arguments.of("""
                        # a comment line first
                        apiVersion: apps/v1
                        kind: Deployment
                        metadata: {name: web}
                        """, "test.yaml:2: skipped apps/v1 Deployment web: not a kind Arbiter schedules"),
                Arguments.of("""
                        apiVersion: scheduling.volcano.sh/v1alpha1
                        kind: Queue
                        metadata: {name: old}
                        """, "test.yaml:1: skipped scheduling.volcano.sh/v1alpha1 Queue old: not a kind Arbiter schedules"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("skippedKinds")
    void other_kinds_are_skipped_with_a_one_line_notice(String yaml, String notice) {
        Manifests m = parse(yaml);
        assertEquals(List.of(notice), m.notices());
        assertEquals(List.of(QueueSpec.defaultQueue()), m.queues());
    }

    @Test
    void adds_the_default_queue_first_only_when_no_manifest_defines_it() {
        Manifests added = parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: research}
                """);
        assertEquals(List.of("default", "research"), added.queues().stream().map(QueueSpec::name).toList());

        Manifests own = parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: default}
                spec: {weight: 4}
                """);
        assertEquals(1, own.queues().size());
        assertEquals(4, queue(own, "default").weight());
    }

    @Test
    void creation_order_counts_every_object_in_load_order() {
        Manifests m = parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: first}
                ---
                apiVersion: v1
                kind: Node
                metadata: {name: n}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: pg}
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: last}
                """);
        assertEquals(0, pod(m, "default/first").creationOrder());
        assertEquals(2, podGroup(m, "default/pg").creationOrder());
        assertEquals(3, pod(m, "default/last").creationOrder());
    }

    @Test
    void the_arrival_cycle_annotation_applies_to_every_kind_and_defaults_to_zero() {
        Manifests m = parse("""
                apiVersion: v1
                kind: Node
                metadata:
                  name: late-node
                  annotations: {simulation.arbiter.dev/arrival-cycle: "5"}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: late-pod
                  annotations: {simulation.arbiter.dev/arrival-cycle: "2"}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata:
                  name: late-queue
                  annotations: {simulation.arbiter.dev/arrival-cycle: "7"}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata:
                  name: late-group
                  annotations: {simulation.arbiter.dev/arrival-cycle: "4"}
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: early-pod}
                """);
        assertAll(() -> assertEquals(5, m.nodes().get(0).arrivalCycle()),
                () -> assertEquals(2, pod(m, "default/late-pod").arrivalCycle()),
                () -> assertEquals(7, queue(m, "late-queue").arrivalCycle()),
                () -> assertEquals(4, podGroup(m, "default/late-group").arrivalCycle()),
                () -> assertEquals(0, pod(m, "default/early-pod").arrivalCycle()));
    }

    @Test
    void an_instance_combines_files_and_texts_and_detects_duplicates_across_them() {
        ManifestLoader loader = new ManifestLoader()
                .addPath(FIXTURES.resolve("dup-1.yaml"))
                .addText("apiVersion: v1\nkind: Pod\nmetadata: {name: y, namespace: team}\n", "doc-string");
        assertEquals(List.of("team/x", "team/y"), loader.manifests().pods().stream().map(p -> p.key()).toList());

        ManifestException e = assertThrows(ManifestException.class,
                () -> loader.addText("apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: team}\n", "again"));
        assertEquals("again:1: duplicate Pod team/x (first at " + FIXTURES.resolve("dup-1.yaml") + ":1)", e.getMessage());
    }

    @Test
    void yaml_anchors_and_merge_keys_are_resolved() {
        Manifests m = parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p}
                spec:
                  containers:
                    - name: a
                      resources:
                        requests: &small {cpu: 500m, memory: 1Gi}
                    - name: b
                      resources:
                        requests:
                          <<: *small
                          cpu: "1"
                """);
        assertEquals(Resources.of("cpu", "1500m", "memory", "2Gi", "pods", 1), pod(m, "default/p").requests());
    }

    @Test
    void an_absent_queue_capability_is_null_meaning_unlimited() {
        Manifests m = parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: q}
                """);
        assertNull(queue(m, "q").capability());
    }
}
