package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.errorOf;
import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.pod;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static dev.arbiter.manifest.TestManifests.podNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayName("Volcano Jobs, batch Jobs, MPIJobs and exclusive LeaderWorkerSets expand as their controllers do")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkloadKindsExpansionTest {
    private static final String VOLCANO_JOB = """
            apiVersion: batch.volcano.sh/v1alpha1
            kind: Job
            metadata:
              name: tf
              namespace: ml
              uid: 1b2c3d4e-aaaa-4bbb-8ccc-000000000001
              annotations: {volcano.sh/preemptable: "false"}
            spec:
              queue: research
              priorityClassName: high
              tasks:
              - name: ps
                replicas: 2
                minAvailable: 1
                template:
                  spec:
                    containers: [{name: c, image: i, resources: {requests: {cpu: "4"}}}]
              - replicas: 3
                template:
                  metadata: {labels: {tier: worker}}
                  spec:
                    schedulerName: arbiter
                    containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
            """;

    @Test
    void a_volcano_job_names_pods_job_task_index_task_by_task() {
        assertEquals(List.of("tf-ps-0", "tf-ps-1", "tf-default1-0", "tf-default1-1", "tf-default1-2"), podNames(parse(VOLCANO_JOB)));
    }

    @Test
    void a_volcano_jobs_pod_group_is_named_after_its_uid_with_the_webhooks_defaults() {
        PodGroupSpec g = podGroup(parse(VOLCANO_JOB), "ml/tf-1b2c3d4e-aaaa-4bbb-8ccc-000000000001");
        assertEquals("research", g.queue());
        assertEquals(4, g.minMember(), "the sum of the tasks' minAvailable: ps 1, default1 3 (its replicas)");
        assertEquals(Map.of("ps", 1, "default1", 3), g.minTaskMember());
        assertEquals("high", g.priorityClassName());
        assertEquals(Resources.of("cpu", 4, "nvidia.com/gpu", 24), g.minResources(), "one ps and the three workers");
    }

    @Test
    void a_volcano_jobs_pods_carry_its_labels_annotations_scheduler_and_priority() {
        Manifests m = parse(VOLCANO_JOB);
        PodSpec ps = pod(m, "ml/tf-ps-1");
        assertEquals("volcano", ps.schedulerName(), "the job's default scheduler");
        assertEquals("arbiter", pod(m, "ml/tf-default1-0").schedulerName(), "the template's own scheduler");
        assertEquals("high", ps.priorityClassName());
        assertEquals("tf-1b2c3d4e-aaaa-4bbb-8ccc-000000000001", ps.groupName());
        assertEquals("ps", ps.taskRole());
        assertEquals(Map.of("volcano.sh/task-index", "1", "volcano.sh/job-name", "tf", "volcano.sh/task-spec", "ps",
                "volcano.sh/job-namespace", "ml", "volcano.sh/queue-name", "research"), ps.labels());
        assertEquals("1", ps.annotations().get("volcano.sh/task-index"));
        assertEquals("tf-ps", ps.annotations().get("volcano.sh/template-uid"));
        assertTrue(!ps.preemptableMarker(), "the job's preemptable annotation carries over");
        assertEquals("worker", pod(m, "ml/tf-default1-2").labels().get("tier"));
    }

    @Test
    void a_volcano_job_with_min_available_below_its_tasks_minimums_reserves_its_first_pods() {
        Manifests m = parse(VOLCANO_JOB.replace("  queue: research\n", "  queue: research\n  minAvailable: 2\n"));
        PodGroupSpec g = podGroup(m, "ml/tf-1b2c3d4e-aaaa-4bbb-8ccc-000000000001");
        assertEquals(2, g.minMember());
        assertEquals(Resources.of("cpu", 8), g.minResources(), "the first two pods in task order are the ps");
    }

    @Test
    void a_volcano_job_without_a_uid_gets_the_same_derived_one_every_time() {
        String noUid = VOLCANO_JOB.replace("  uid: 1b2c3d4e-aaaa-4bbb-8ccc-000000000001\n", "");
        String name = parse(noUid).podGroups().get(0).name();
        assertTrue(name.matches("tf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), name);
        assertEquals(name, parse(noUid).podGroups().get(0).name());
    }

    @Test
    void a_volcano_job_task_needs_a_template() {
        String message = errorOf("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: tf}
                spec: {tasks: [{name: a, replicas: 1}]}
                """);
        assertEquals("test.yaml:4: Job default/tf: spec.tasks[0].template: is required", message);
    }

    private static final String BATCH_JOB = """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: eval
              namespace: ml
              uid: 0a0b0c0d-1111-4222-8333-000000000009
              annotations: {scheduling.volcano.sh/group-min-member: "3"}
            spec:
              parallelism: 3
              completions: 5
              template:
                metadata: {annotations: {scheduling.volcano.sh/queue-name: research}}
                spec:
                  schedulerName: volcano
                  priorityClassName: low
                  containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
            """;

    @Test
    void a_batch_job_starts_its_parallelism_with_generated_names() {
        List<String> names = podNames(parse(BATCH_JOB));
        assertEquals(3, names.size());
        assertTrue(names.stream().allMatch(n -> n.matches("eval-[bcdfghjklmnpqrstvwxz2456789]{5}")), names.toString());
        assertEquals(names, podNames(parse(BATCH_JOB)), "the same names every time");
    }

    @Test
    void a_batch_job_under_volcano_gets_the_pod_group_volcanos_controller_creates() {
        Manifests m = parse(BATCH_JOB);
        PodGroupSpec g = podGroup(m, "ml/podgroup-0a0b0c0d-1111-4222-8333-000000000009");
        assertEquals(3, g.minMember());
        assertEquals("research", g.queue());
        assertEquals("low", g.priorityClassName());
        assertEquals(Resources.of("nvidia.com/gpu", 3), g.minResources());
        PodSpec p = m.pods().get(0);
        assertEquals(g.name(), p.groupName());
        assertEquals("eval", p.labels().get("batch.kubernetes.io/job-name"));
        assertEquals("0a0b0c0d-1111-4222-8333-000000000009", p.labels().get("controller-uid"));
    }

    @Test
    void an_indexed_batch_job_names_pods_by_index() {
        Manifests m = parse(BATCH_JOB.replace("  completions: 5\n", "  completions: 2\n  completionMode: Indexed\n"));
        assertEquals(2, m.pods().size(), "completions bound parallelism");
        assertTrue(m.pods().get(1).name().matches("eval-1-[a-z0-9]{5}"), m.pods().get(1).name());
        assertEquals("1", m.pods().get(1).labels().get("batch.kubernetes.io/job-completion-index"));
    }

    @Test
    void a_batch_job_for_the_default_scheduler_gets_no_pod_group_and_a_suspended_one_no_pods() {
        Manifests m = parse(BATCH_JOB.replace("schedulerName: volcano", "schedulerName: default-scheduler"));
        assertTrue(m.podGroups().isEmpty());
        assertNull(m.pods().get(0).groupName());
        assertTrue(parse(BATCH_JOB.replace("  parallelism: 3\n", "  parallelism: 3\n  suspend: true\n")).pods().isEmpty());
    }

    private static final String MPI_JOB = """
            apiVersion: kubeflow.org/v2beta1
            kind: MPIJob
            metadata: {name: pi, namespace: ml, annotations: {scheduling.volcano.sh/queue-name: research}}
            spec:
              runPolicy: {schedulingPolicy: {priorityClass: high}}
              mpiReplicaSpecs:
                Launcher:
                  replicas: 1
                  template: {spec: {containers: [{name: l, image: i, resources: {requests: {cpu: "1"}}}]}}
                Worker:
                  replicas: 3
                  template: {spec: {containers: [{name: w, image: i, resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]}}
            """;

    @Test
    void an_mpi_job_makes_workers_then_its_launcher_jobs_pod() {
        List<String> names = podNames(parse(MPI_JOB));
        assertEquals(List.of("pi-worker-0", "pi-worker-1", "pi-worker-2"), names.subList(0, 3));
        assertTrue(names.get(3).matches("pi-launcher-[bcdfghjklmnpqrstvwxz2456789]{5}"), names.get(3));
    }

    @Test
    void an_mpi_jobs_pod_group_counts_the_launcher() {
        Manifests m = parse(MPI_JOB);
        PodGroupSpec g = podGroup(m, "ml/pi");
        assertEquals(4, g.minMember(), "three workers and the launcher");
        assertEquals("research", g.queue(), "the job's queue-name annotation");
        assertEquals("high", g.priorityClassName());
        assertEquals(Resources.of("cpu", 1, "nvidia.com/gpu", 24), g.minResources());
        PodSpec launcher = m.pods().get(3);
        assertEquals("volcano", launcher.schedulerName());
        assertEquals("pi", launcher.groupName());
        assertEquals("launcher", launcher.labels().get("training.kubeflow.org/job-role"));
        assertTrue(launcher.isLeader(), "the launcher carries the job: victims take it last");
        assertEquals("2", pod(m, "ml/pi-worker-2").labels().get("training.kubeflow.org/replica-index"));
    }

    @Test
    void an_mpi_jobs_min_available_sizes_its_gang() {
        Manifests m = parse(MPI_JOB.replace("{priorityClass: high}", "{priorityClass: high, minAvailable: 2}"));
        assertEquals(2, podGroup(m, "ml/pi").minMember());
        assertEquals(Resources.of("cpu", 1, "nvidia.com/gpu", 8), podGroup(m, "ml/pi").minResources(), "the launcher and one worker");
    }

    private static final String EXCLUSIVE_LWS = """
            apiVersion: leaderworkerset.x-k8s.io/v1
            kind: LeaderWorkerSet
            metadata:
              name: serve
              namespace: inf
              annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: rack}
            spec:
              replicas: 2
              leaderWorkerTemplate:
                size: 2
                workerTemplate:
                  spec:
                    schedulerName: volcano
                    containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
            """;

    @Test
    void an_exclusive_leader_worker_set_keys_each_group_and_keeps_it_in_one_domain_alone() {
        Manifests m = parse(EXCLUSIVE_LWS);
        String key0 = LeaderWorkerSetExpander.sha1("inf/serve-0");
        assertEquals(40, key0.length());
        for (String name : List.of("inf/serve-0", "inf/serve-0-1")) {
            PodSpec p = pod(m, name);
            assertEquals(key0, p.labels().get("leaderworkerset.sigs.k8s.io/group-key"));
            assertEquals(List.of(PodAffinityTerm.of(new LabelSelector(Map.of(), List.of(new LabelSelector.Requirement(
                    "leaderworkerset.sigs.k8s.io/group-key", "In", List.of(key0)))), "rack")), p.placement().podAffinity().required());
            assertEquals(List.of(PodAffinityTerm.of(new LabelSelector(Map.of(), List.of(
                    new LabelSelector.Requirement("leaderworkerset.sigs.k8s.io/group-key", "Exists", List.of()),
                    new LabelSelector.Requirement("leaderworkerset.sigs.k8s.io/group-key", "NotIn", List.of(key0)))), "rack")),
                    p.placement().podAntiAffinity().required());
        }
        assertEquals(LeaderWorkerSetExpander.sha1("inf/serve-1"), pod(m, "inf/serve-1-1").labels().get("leaderworkerset.sigs.k8s.io/group-key"));
    }

    @Test
    void a_leader_worker_set_without_the_annotation_gets_no_placement_rules() {
        Manifests m = parse(EXCLUSIVE_LWS.replace("  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: rack}\n", ""));
        assertTrue(m.pods().stream().allMatch(p -> p.placement().isNone()));
    }

    @Test
    void a_namespace_object_gives_its_labels_and_its_name_label() {
        Manifests m = parse("""
                apiVersion: v1
                kind: Namespace
                metadata: {name: research, labels: {team: ml}}
                """);
        assertEquals(Map.of("research", Map.of("team", "ml", "kubernetes.io/metadata.name", "research")), m.namespaceLabels());
    }
}
