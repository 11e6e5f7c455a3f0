package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.pod;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static dev.arbiter.manifest.TestManifests.podNames;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayName("A LeaderWorkerSet expands into leader and worker pods per group")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class LeaderWorkerSetExpansionTest {

    private static final String TWO_GROUPS_OF_THREE = """
            apiVersion: leaderworkerset.x-k8s.io/v1
            kind: LeaderWorkerSet
            metadata:
              name: serve
              namespace: inf
              annotations:
                scheduling.volcano.sh/queue-name: serving
                simulation.arbiter.dev/arrival-cycle: "2"
            spec:
              replicas: 2
              leaderWorkerTemplate:
                size: 3
                leaderTemplate:
                  metadata:
                    labels: {role: leader}
                  spec:
                    schedulerName: volcano
                    priorityClassName: p0-critical
                    containers:
                      - resources: {requests: {cpu: "2"}}
                workerTemplate:
                  spec:
                    schedulerName: volcano
                    containers:
                      - resources: {requests: {nvidia.com/gpu: "8"}}
            """;

    @Test
    void names_leaders_and_workers_group_by_group() {
        assertEquals(List.of("serve-0", "serve-0-1", "serve-0-2", "serve-1", "serve-1-1", "serve-1-2"),
                podNames(parse(TWO_GROUPS_OF_THREE)));
    }

    @Test
    void labels_each_pod_with_its_set_group_and_worker_index() {
        Manifests m = parse(TWO_GROUPS_OF_THREE);
        PodSpec leader = pod(m, "inf/serve-1");
        PodSpec worker = pod(m, "inf/serve-1-2");
        assertAll(
                () -> assertEquals(Map.of("role", "leader", "leaderworkerset.sigs.k8s.io/name", "serve",
                        "leaderworkerset.sigs.k8s.io/group-index", "1",
                        "leaderworkerset.sigs.k8s.io/worker-index", "0"), leader.labels()),
                () -> assertEquals(Map.of("leaderworkerset.sigs.k8s.io/name", "serve",
                        "leaderworkerset.sigs.k8s.io/group-index", "1",
                        "leaderworkerset.sigs.k8s.io/worker-index", "2"), worker.labels()),
                () -> assertEquals("leader", leader.taskRole()),
                () -> assertEquals("worker", worker.taskRole()),
                () -> assertTrue(leader.isLeader()),
                () -> assertFalse(worker.isLeader()),
                () -> assertEquals(Resources.of("cpu", 2, "pods", 1), leader.requests()),
                () -> assertEquals(Resources.of("nvidia.com/gpu", 8, "pods", 1), worker.requests()));
    }

    @Test
    void without_a_named_pod_group_each_group_gets_its_own_gang_of_size_members() {
        Manifests m = parse(TWO_GROUPS_OF_THREE);
        assertEquals(List.of(
                new PodGroupSpec("inf", "serve-0", "serving", 3, Map.of(), null, "p0-critical", "Pending", 2, 4),
                new PodGroupSpec("inf", "serve-1", "serving", 3, Map.of(), null, "p0-critical", "Pending", 2, 8)),
                m.podGroups());
        assertEquals("serve-0", pod(m, "inf/serve-0-2").groupName());
        assertEquals("serve-1", pod(m, "inf/serve-1").groupName());
        m.pods().forEach(p -> assertEquals(2, p.arrivalCycle(), p.name()));
    }

    @Test
    void with_a_named_pod_group_the_pods_join_it_and_no_group_is_generated() {
        Manifests m = parse("""
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: serve, namespace: inf}
                spec:
                  replicas: 2
                  leaderWorkerTemplate:
                    size: 2
                    workerTemplate:
                      metadata:
                        annotations: {scheduling.k8s.io/group-name: serve-pg}
                      spec:
                        containers: [{name: c}]
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: serve-pg, namespace: inf}
                spec: {minMember: 4}
                """);
        assertEquals(List.of("inf/serve-pg"), m.podGroups().stream().map(PodGroupSpec::key).toList());
        assertEquals(List.of("serve-0", "serve-0-1", "serve-1", "serve-1-1"), podNames(m));
        m.pods().forEach(p -> assertAll(p.name(), () -> assertEquals("serve-pg", p.groupName()),
                () -> assertEquals("default-scheduler", p.schedulerName())));
        assertEquals("leader", pod(m, "inf/serve-0").taskRole());
    }

    @Test
    void the_leader_template_defaults_to_the_worker_template_and_size_and_replicas_default_to_one() {
        Manifests m = parse("""
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: solo}
                spec:
                  leaderWorkerTemplate:
                    workerTemplate:
                      metadata:
                        annotations:
                          volcano.sh/task-spec: head
                          scheduling.volcano.sh/queue-name: from-template
                      spec:
                        priorityClassName: p1-high
                        containers: [{resources: {requests: {cpu: "1"}}}]
                """);
        PodSpec leader = pod(m, "default/solo-0");
        assertAll(() -> assertEquals(List.of("solo-0"), podNames(m)),
                () -> assertEquals("head", leader.taskRole()),
                () -> assertEquals(Resources.of("cpu", 1, "pods", 1), leader.requests()),
                () -> assertEquals(new PodGroupSpec("default", "solo-0", "from-template", 1, Map.of(), null,
                        "p1-high", "Pending", 0, 2), podGroup(m, "default/solo-0")));
    }
}
