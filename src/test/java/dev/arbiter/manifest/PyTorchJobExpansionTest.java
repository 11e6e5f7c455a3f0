package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.pod;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static dev.arbiter.manifest.TestManifests.podNames;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("A PyTorchJob expands like Kubeflow's training operator with Volcano gang scheduling")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PyTorchJobExpansionTest {

    /** A job "train" in namespace "ml" with 1 master and {@code workers} workers, plus extra YAML under spec. */
    private static String job(int workers, String metadataExtra, String specExtra) {
        return """
                apiVersion: kubeflow.org/v1
                kind: PyTorchJob
                metadata:
                  name: train
                  namespace: ml
                %s
                spec:
                %s
                  pytorchReplicaSpecs:
                    Worker:
                      replicas: %d
                      template:
                        spec:
                          containers:
                            - name: pytorch
                              resources: {limits: {nvidia.com/gpu: "8"}}
                    Master:
                      replicas: 1
                      template:
                        metadata:
                          labels: {app: train}
                        spec:
                          priorityClassName: from-master
                          containers:
                            - name: pytorch
                              resources: {requests: {cpu: "4"}}
                """.formatted(metadataExtra.indent(2).stripTrailing(), specExtra.indent(2).stripTrailing(), workers);
    }

    @Test
    void names_the_master_and_the_workers_after_the_job_master_first() {
        Manifests m = parse(job(3, "", ""));
        assertEquals(List.of("train-master-0", "train-worker-0", "train-worker-1", "train-worker-2"), podNames(m));
        m.pods().forEach(p -> assertEquals("ml", p.namespace()));
    }

    @Test
    void labels_and_annotates_each_pod_for_volcano_and_kubeflow() {
        Manifests m = parse(job(2, "", ""));
        PodSpec master = pod(m, "ml/train-master-0");
        PodSpec worker = pod(m, "ml/train-worker-1");
        assertAll(
                () -> assertEquals(Map.of("app", "train",
                        "training.kubeflow.org/job-name", "train",
                        "training.kubeflow.org/replica-type", "master",
                        "training.kubeflow.org/replica-index", "0",
                        "training.kubeflow.org/job-role", "master"), master.labels()),
                () -> assertEquals(Map.of("scheduling.k8s.io/group-name", "train", "volcano.sh/task-spec", "master"),
                        master.annotations()),
                () -> assertEquals(Map.of("training.kubeflow.org/job-name", "train",
                        "training.kubeflow.org/replica-type", "worker",
                        "training.kubeflow.org/replica-index", "1"), worker.labels()),
                () -> assertEquals("worker", worker.taskRole()),
                () -> assertTrue(master.isLeader()),
                () -> assertFalse(worker.isLeader()),
                () -> assertEquals("volcano", worker.schedulerName()),
                () -> assertEquals(Resources.of("nvidia.com/gpu", 8, "pods", 1), worker.requests()),
                () -> assertEquals(Resources.of("cpu", 4, "pods", 1), master.requests()));
    }

    static Stream<Arguments> minMemberCases() {
        return Stream.of(
                Arguments.of("all replicas when minAvailable is unset", "", 4),
                Arguments.of("minAvailable when set", "runPolicy: {schedulingPolicy: {minAvailable: 2}}", 2));
    }

    @ParameterizedTest(name = "minMember is {0}")
    @MethodSource("minMemberCases")
    void min_member(String description, String specExtra, int expected) {
        assertEquals(expected, podGroup(parse(job(3, "", specExtra)), "ml/train").minMember());
    }

    static Stream<Arguments> queueCases() {
        return Stream.of(
                Arguments.of("\"default\" when nothing names one", "", "", "default"),
                Arguments.of("the job's queue-name annotation", "annotations: {scheduling.volcano.sh/queue-name: from-annotation}",
                        "", "from-annotation"),
                Arguments.of("schedulingPolicy.queue over the annotation",
                        "annotations: {scheduling.volcano.sh/queue-name: from-annotation}",
                        "runPolicy: {schedulingPolicy: {queue: from-policy}}", "from-policy"));
    }

    @ParameterizedTest(name = "the queue is {0}")
    @MethodSource("queueCases")
    void queue(String description, String metadataExtra, String specExtra, String expected) {
        assertEquals(expected, podGroup(parse(job(1, metadataExtra, specExtra)), "ml/train").queue());
    }

    @Test
    void the_queue_may_come_from_a_template_annotation() {
        String yaml = job(1, "", "").replace("labels: {app: train}",
                "annotations: {scheduling.volcano.sh/queue-name: from-template}");
        assertEquals("from-template", podGroup(parse(yaml), "ml/train").queue());
    }

    @Test
    void the_priority_class_comes_from_the_master_template_and_fills_in_for_templates_without_one() {
        Manifests m = parse(job(1, "", ""));
        assertEquals("from-master", podGroup(m, "ml/train").priorityClassName());
        assertEquals("from-master", pod(m, "ml/train-worker-0").priorityClassName());
    }

    @Test
    void scheduling_policy_priority_class_and_min_resources_win() {
        Manifests m = parse(job(1, "", """
                runPolicy:
                  schedulingPolicy:
                    priorityClass: from-policy
                    minResources: {nvidia.com/gpu: "16"}
                """));
        PodGroupSpec group = podGroup(m, "ml/train");
        assertAll(() -> assertEquals("from-policy", group.priorityClassName()),
                () -> assertEquals(Resources.of("nvidia.com/gpu", 16), group.minResources()),
                () -> assertEquals("from-master", pod(m, "ml/train-master-0").priorityClassName()),
                () -> assertEquals("from-policy", pod(m, "ml/train-worker-0").priorityClassName()));
    }

    @Test
    void the_pod_group_has_no_min_resources_unless_the_policy_sets_them() {
        assertNull(podGroup(parse(job(1, "", "")), "ml/train").minResources());
    }

    @Test
    void a_template_scheduler_name_wins_over_volcano() {
        String yaml = job(1, "", "").replaceFirst("( +)priorityClassName: from-master",
                "$1priorityClassName: from-master\n$1schedulerName: other");
        Manifests m = parse(yaml);
        assertEquals("other", pod(m, "ml/train-master-0").schedulerName());
        assertEquals("volcano", pod(m, "ml/train-worker-0").schedulerName());
    }

    @Test
    void the_job_arrival_cycle_propagates_unless_a_template_sets_its_own() {
        String yaml = job(1, "annotations: {simulation.arbiter.dev/arrival-cycle: \"4\"}", "")
                .replace("labels: {app: train}", "annotations: {simulation.arbiter.dev/arrival-cycle: \"6\"}");
        Manifests m = parse(yaml);
        assertAll(() -> assertEquals(4, podGroup(m, "ml/train").arrivalCycle()),
                () -> assertEquals(4, pod(m, "ml/train-worker-0").arrivalCycle()),
                () -> assertEquals(6, pod(m, "ml/train-master-0").arrivalCycle()));
    }

    @Test
    void generated_pods_then_the_pod_group_take_consecutive_creation_orders() {
        Manifests m = parse(job(2, "", ""));
        assertEquals(List.of(1L, 2L, 3L), m.pods().stream().map(PodSpec::creationOrder).toList());
        assertEquals(4L, podGroup(m, "ml/train").creationOrder());
    }

    @Test
    void a_job_without_a_namespace_lands_in_default() {
        Manifests m = parse(job(0, "", "").replace("  namespace: ml\n", ""));
        assertEquals(List.of("default/train-master-0"), m.pods().stream().map(PodSpec::key).toList());
        assertEquals(1, podGroup(m, "default/train").minMember());
    }
}
