package dev.arbiter.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.arbiter.model.Manifests;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 38's silent mistakes, with the inputs the issue names: each now gives the line a user needs. */
class MistakesTest {
    @TempDir
    Path dir;

    private static final String QUEUE = """
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: research}
            spec: {weight: 1}
            ---
            """;

    private static String pod(String name, String namespace, String annotations) {
        return """
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  annotations: {%s}
                spec:
                  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
                """.formatted(name, namespace, annotations);
    }

    private static List<String> notices(String yaml) {
        return ManifestLoader.parse(yaml, "m.yaml").notices();
    }

    @Test
    void minMemeberIsAnUnknownFieldWithADidYouMean() {
        List<String> n = notices(QUEUE + """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMemeber: 2, queue: research}
                """);
        assertEquals(List.of("m.yaml:9: PodGroup team-a/train: spec.minMemeber: unknown field, ignored (did you mean minMember?)"), n);
    }

    @Test
    void unknownFieldsOfKubeflowVolcanoAndLwsObjectsAreNamedAtTheirPath() {
        String yaml = """
                apiVersion: kubeflow.org/v1
                kind: PyTorchJob
                metadata: {name: pt, namespace: ml}
                spec:
                  runPolicy: {schedulingPolicy: {minAvailabel: 2}}
                  pytorchReplicaSpecs:
                    Master:
                      replica: 1
                      template: {spec: {containers: [{name: c, image: x}]}}
                ---
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: vj, namespace: ml}
                spec:
                  minAvailable: 1
                  tasks:
                  - {name: w, replicas: 1, minAvaliable: 1, template: {spec: {containers: [{name: c, image: x}]}}}
                ---
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: lws, namespace: ml}
                spec:
                  replicas: 1
                  leaderWorkerTemplate:
                    sise: 2
                    workerTemplate: {spec: {containers: [{name: c, image: x}]}}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: q}
                spec: {wieght: 2, colour: blue}
                """;
        List<String> n = notices(yaml).stream().filter(l -> l.contains("unknown field")).toList();
        assertEquals(List.of(
                "m.yaml:5: PyTorchJob ml/pt: spec.runPolicy.schedulingPolicy.minAvailabel: unknown field, ignored (did you mean minAvailable?)",
                "m.yaml:8: PyTorchJob ml/pt: spec.pytorchReplicaSpecs.Master.replica: unknown field, ignored (did you mean replicas?)",
                "m.yaml:17: Job ml/vj: spec.tasks[0].minAvaliable: unknown field, ignored (did you mean minAvailable?)",
                "m.yaml:25: LeaderWorkerSet ml/lws: spec.leaderWorkerTemplate.sise: unknown field, ignored (did you mean size?)",
                "m.yaml:31: Queue q: spec.wieght: unknown field, ignored (did you mean weight?)",
                "m.yaml:31: Queue q: spec.colour: unknown field, ignored"), n);
    }

    @Test
    void aNearMissOfTheQueueAnnotationSaysWhichKeyWasMeant() {
        List<String> n = notices(QUEUE + pod("p1", "team-a", "scheduling.volcano.sh/queue: research"));
        assertEquals(List.of("m.yaml:12: Pod team-a/p1: metadata.annotations[scheduling.volcano.sh/queue]: not an annotation"
                + " Arbiter reads, ignored (did you mean scheduling.volcano.sh/queue-name?)"), n);
    }

    @Test
    void nearMissKeysAreFoundInTemplatesAndLabelsButKnownAndForeignKeysAreNot() {
        assertEquals("scheduling.k8s.io/group-name", Mistakes.nearMiss("scheduling.k8s.io/group-nmae"));
        assertEquals("volcano.sh/preemptable", Mistakes.nearMiss("volcano.sh/preemtable"));
        assertEquals("kueue.x-k8s.io/podset-required-topology", Mistakes.nearMiss("kueue.x-k8s.io/podset-required"));
        assertNull(Mistakes.nearMiss("scheduling.volcano.sh/queue-name"));
        assertNull(Mistakes.nearMiss("app.kubernetes.io/name"));
        assertNull(Mistakes.nearMiss("kueue.x-k8s.io/queue-name"));
        assertNull(Mistakes.nearMiss("volcano.sh/task"), "task-spec or task-index: not clear which");
        List<String> n = notices("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: vj, namespace: ml}
                spec:
                  tasks:
                  - name: w
                    replicas: 1
                    template:
                      metadata: {labels: {volcano.sh/preemtable: "true"}}
                      spec: {containers: [{name: c, image: x}]}
                """);
        assertEquals(List.of("m.yaml:9: Job ml/vj: spec.tasks[0].template.metadata.labels[volcano.sh/preemtable]: not a label"
                + " Arbiter reads, ignored (did you mean volcano.sh/preemptable?)"), n);
    }

    @Test
    void aPodGroupInAnotherNamespaceThanItsPodsIsNamedWithBothNamespaces() {
        String yaml = QUEUE + """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-b}
                spec: {minMember: 2, queue: research}
                """ + pod("p1", "team-a", "scheduling.k8s.io/group-name: train")
                + pod("p2", "team-a", "scheduling.k8s.io/group-name: train");
        assertEquals(List.of("m.yaml:16: Pods team-a/p1, team-a/p2: metadata.annotations[scheduling.k8s.io/group-name]:"
                + " PodGroup team-a/train does not exist: a PodGroup train exists only in namespace team-b, and a PodGroup"
                + " gathers the pods of its own namespace alone, so they stay pending"), notices(yaml));
    }

    @Test
    void aQueueTypoOffersTheQueueMeant() {
        String yaml = QUEUE + """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMember: 1, queue: reserch}
                """ + pod("p1", "team-a", "scheduling.k8s.io/group-name: train")
                + pod("lone", "team-a", "scheduling.volcano.sh/queue-name: researh");
        assertEquals(List.of(
                "m.yaml:9: PodGroup team-a/train: spec.queue: queue \"reserch\" does not exist (did you mean research?); its"
                        + " pods stay pending",
                "m.yaml:25: Pod team-a/lone: metadata.annotations[scheduling.volcano.sh/queue-name]: queue \"researh\" does"
                        + " not exist (did you mean research?); it stays pending"), notices(yaml));
    }

    @Test
    void aQueueFarFromEveryQueueIsStillNamedButWithoutAGuess() {
        String yaml = QUEUE + """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {queue: gpu-pool}
                """;
        assertEquals(List.of("m.yaml:9: PodGroup team-a/train: spec.queue: queue \"gpu-pool\" does not exist; its pods stay"
                + " pending"), notices(yaml));
    }

    @Test
    void aQueueMissingFromAnExpandedJobIsNamedAtTheJob() {
        String yaml = QUEUE + """
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: vj, namespace: ml}
                spec:
                  queue: reseach
                  tasks:
                  - {name: w, replicas: 1, template: {spec: {containers: [{name: c, image: x}]}}}
                """;
        assertEquals(List.of("m.yaml:6: Job ml/vj: queue \"reseach\" does not exist (did you mean research?); its pods stay"
                + " pending"), notices(yaml));
    }

    @Test
    void aPodNamingAPodGroupThatExistsNowhereIsNamedAtItsAnnotationWithTheGroupMeant() {
        String yaml = QUEUE + """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMember: 1, queue: research}
                """ + pod("p1", "team-a", "scheduling.k8s.io/group-name: trian")
                + pod("w1", "team-b", "scheduling.k8s.io/group-name: eval")
                + pod("w2", "team-b", "scheduling.k8s.io/group-name: eval");
        assertEquals(List.of(
                "m.yaml:16: Pod team-a/p1: metadata.annotations[scheduling.k8s.io/group-name]: PodGroup \"trian\" does not"
                        + " exist (did you mean train?); it stays pending",
                "m.yaml:25: Pods team-b/w1, team-b/w2: metadata.annotations[scheduling.k8s.io/group-name]: PodGroup \"eval\""
                        + " does not exist; they stay pending"), notices(yaml));
    }

    @Test
    void aWorkloadApiPodNamingAMissingPodGroupIsNamedAtItsSchedulingGroup() {
        String yaml = """
                apiVersion: v1
                kind: Pod
                metadata: {name: p1, namespace: team-a}
                spec:
                  schedulingGroup: {podGroupName: gone}
                  containers: [{name: c, image: x}]
                """;
        assertEquals(List.of("m.yaml:5: Pod team-a/p1: spec.schedulingGroup.podGroupName: PodGroup \"gone\" does not"
                + " exist; it stays pending"), notices(yaml));
    }

    @Test
    void filesSkippedInAFolderAreCountedOneLinePerKind() throws IOException {
        Files.writeString(dir.resolve("00-queue.yaml"), QUEUE);
        Files.writeString(dir.resolve("a.json"), "{\"a\": 1}");
        Files.writeString(dir.resolve("b.json"), "{\"b\": 1}");
        Files.writeString(dir.resolve("notes.md"), "# notes\n");
        Files.writeString(dir.resolve("README.md"), "# a folder's README is its documentation: no notice\n");
        Files.write(dir.resolve("blob.bin"), new byte[] {1, 0, 2, 3});
        Files.write(dir.resolve("noext"), new byte[] {0});
        Files.writeString(dir.resolve("notes"), "text\n");
        Files.writeString(dir.resolve(".hidden.json"), "{}");
        Manifests m = ManifestLoader.load(List.of(dir));
        String reads = " (only *.yaml and *.yml files are read)";
        assertEquals(List.of(dir + ": skipped 1 file without an extension" + reads, dir + ": skipped 2 .json files" + reads,
                dir + ": skipped 1 .md file" + reads, dir + ": skipped 2 binary files" + reads), m.notices());
    }

    @Test
    void aPathHoldingNoKubernetesObjectIsAnError() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Files.writeString(empty.resolve("a.json"), "{}");
        ManifestException folder = assertThrows(ManifestException.class, () -> ManifestLoader.load(List.of(empty)));
        assertEquals(empty + ": no Kubernetes object (no *.yaml or *.yml file in it has a document with apiVersion and kind)",
                folder.getMessage());
        Path comments = Files.writeString(dir.resolve("c.yaml"), "# only a comment\n---\n");
        ManifestException file = assertThrows(ManifestException.class, () -> ManifestLoader.load(List.of(comments)));
        assertEquals(comments + ": no Kubernetes object (no document with apiVersion and kind)", file.getMessage());
    }

    @Test
    void didYouMeanOffersOnlyAClearlyClosestCandidate() {
        assertEquals("minMember", DidYouMean.among("minMemeber", List.of("minMember", "minResources", "queue")));
        assertEquals("research", DidYouMean.among("reserch", List.of("default", "research")));
        assertEquals("weight", DidYouMean.among("wieght", List.of("weight", "priority")), "a swap of neighbours is one edit");
        assertEquals("minMember", DidYouMean.among("MinMember", List.of("minMember")), "case costs nothing");
        assertNull(DidYouMean.among("gpu", List.of("cpu")), "one edit in three letters is not a typo but another word");
        assertNull(DidYouMean.among("team-c", List.of("team-a", "team-b")), "two equally close: no guess");
        assertNull(DidYouMean.among("colour", List.of("capability", "weight")));
        assertEquals(1, DidYouMean.distance("ab", "ba"));
        assertEquals(3, DidYouMean.distance("kitten", "sitting"));
    }

    @Test
    void aRuntimeEstimateThatIsNoDurationIsANotice() {
        List<String> n = notices(QUEUE + pod("p1", "team", "arbiter.dev/runtime-estimate: 2hours")
                + pod("p2", "team", "arbiter.dev/runtime-estimate: 1h30m, simulation.arbiter.dev/runtime: \"1.5h\""));
        assertEquals(List.of("m.yaml:12: Pod team/p1: metadata.annotations[arbiter.dev/runtime-estimate]: \"2hours\" is not "
                        + "a duration such as 45m, 2h, 1h30m or 1d (at most 366d), ignored (the job has no runtime estimate of its own)",
                "m.yaml:21: Pod team/p2: metadata.annotations[simulation.arbiter.dev/runtime]: \"1.5h\" is not a duration such "
                        + "as 45m, 2h, 1h30m or 1d (at most 366d), ignored (the pod runs to the end of the run)"), n);
        assertEquals(List.of("metadata.annotations[arbiter.dev/runtime-estimate]: \"2hours\" is not a duration such as 45m, "
                        + "2h, 1h30m or 1d (at most 366d), ignored (the job has no runtime estimate of its own)"),
                Mistakes.nearMissKeys(java.util.Map.of("arbiter.dev/runtime-estimate", "2hours"), java.util.Map.of()),
                "live says the same through the LikelyMistake path");
        assertEquals(List.of(), Mistakes.nearMissKeys(java.util.Map.of("arbiter.dev/runtime-estimate", "2h"), java.util.Map.of()));
    }

    @Test
    void theShippedExamplesGiveNoNotice() {
        for (String example : List.of("seed", "workloads", "workload-api", "estimates")) {
            assertEquals(List.of(), ManifestLoader.load(List.of(Path.of("deploy/examples", example))).notices(), example);
        }
    }
}
