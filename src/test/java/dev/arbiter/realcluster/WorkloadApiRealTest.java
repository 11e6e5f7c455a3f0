package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Eviction;
import dev.arbiter.live.LiveScheduler;
import dev.arbiter.live.WorkloadPodGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The upstream Workload API (KEP-4671) on a real v1.37 API server with the {@code GenericWorkload} gate on: Arbiter,
 * on its shipped RBAC, gang-schedules {@code scheduling.k8s.io/v1beta1} PodGroups (pods naming their group in
 * {@code spec.schedulingGroup}), writes their {@code PodGroupInitiallyScheduled} condition as kube-scheduler's
 * GangScheduling plugin does, and evicts a {@code disruptionMode: all} group whole.
 */
class WorkloadApiRealTest extends RealClusterTest {

    @Test
    void aGangOfFourBindsNoneWhileThreeFitThenAllFourAndSaysSoOnItsPodGroup() {
        cluster.namespace("wl");
        for (int i = 1; i <= 3; i++) node("wl-" + i, 16, 8);
        List<String> docs = new ArrayList<>(List.of(queue("default", 1), workloadPodGroup("wl", "train", 4, null, null)));
        for (int i = 0; i < 4; i++) docs.add(workloadPod("wl", "train-" + i, "train", 8, null));
        apply(docs(docs));

        LiveScheduler s = manualScheduler();
        await("the gang in cache", () -> s.cache().isWorkloadPodGroup("wl/train") && s.cache().snapshot().pods().size() == 4);
        assertNull(s.cache().workloadPodGroupsAbsent(), "the API server serves scheduling.k8s.io/v1beta1 podgroups");
        assertEquals(0, s.loop().runOnce().report().bound(), "three of four fit: none binds");
        await("PodGroupInitiallyScheduled False, Unschedulable", () -> "False".equals(initiallyScheduled("wl", "train", "status"))
                && "Unschedulable".equals(initiallyScheduled("wl", "train", "reason")));
        assertTrue(initiallyScheduled("wl", "train", "message").contains("4"), () -> initiallyScheduled("wl", "train", "message"));
        assertEquals(0, bound("wl"));
        assertEquals(List.of(), arbiterRequests().stream().filter(r -> r.on("pods", "binding")).toList(), "no binding asked");

        node("wl-4", 16, 8);
        // The node is created, then made Ready with its allocatable (as a kubelet does): cycles run until it is seen so.
        await("four fit: all four bind", () -> {
            int bound = s.loop().runOnce().report().bound();
            assertTrue(bound == 0 || bound == 4, "bound " + bound + " of the gang in one cycle");
            return bound == 4;
        });
        assertEquals(4, bound("wl"));
        assertEquals(4, arbiterRequests().stream().filter(r -> r.on("pods", "binding")).count(), "four bindings asked");
        await("PodGroupInitiallyScheduled True, Scheduled", () -> "True".equals(initiallyScheduled("wl", "train", "status"))
                && "Scheduled".equals(initiallyScheduled("wl", "train", "reason")));
        List<AuditLog.Request> writes = arbiterRequests().stream().filter(r -> "podgroups".equals(r.resource())
                && "scheduling.k8s.io".equals(r.group())).filter(r -> "patch".equals(r.verb())).toList();
        assertTrue(writes.stream().allMatch(r -> "status".equals(r.subresource()) && r.code() == 200), () -> "writes: " + writes);
    }

    /**
     * The example of deploy/examples/workload-api: a low-priority sweep of three pods (minCount 2) runs on three of
     * four nodes; a high-priority gang of two arrives and needs one of the sweep's nodes. In {@code disruptionMode:
     * all} the whole sweep is evicted; in {@code single} only its surplus pod.
     */
    @ParameterizedTest
    @ValueSource(strings = {"all", "single"})
    void aHigherPriorityGangEvictsADisruptionModeAllGroupWholeASingleOneByItsSurplus(String mode) {
        cluster.namespace("wp");
        for (int i = 1; i <= 4; i++) node("wp-" + i, 16, 8);
        apply(docs(List.of(queue("default", 1), priorityClass("batch-low", 100), priorityClass("training-high", 10000))));
        kubelet.startedAgo(Duration.ofMinutes(10));
        List<String> sweep = new ArrayList<>(List.of(workloadPodGroup("wp", "sweep", 2, "batch-low", mode)));
        for (int i = 0; i < 3; i++) sweep.add(workloadPod("wp", "sweep-" + i, "sweep", 8, "batch-low"));
        apply(docs(sweep));

        LiveScheduler s = manualScheduler();
        await("the sweep in cache", () -> s.cache().isWorkloadPodGroup("wp/sweep") && s.cache().snapshot().pods().size() == 3);
        assertEquals(3, s.loop().runOnce().report().bound());
        await("the sweep runs", () -> admin.pods().inNamespace("wp").list().getItems().stream()
                .filter(p -> "Running".equals(p.getStatus().getPhase())).count() == 3);
        await("the sweep's PodGroupInitiallyScheduled True", () -> "True".equals(initiallyScheduled("wp", "sweep", "status")));

        List<String> train = new ArrayList<>(List.of(workloadPodGroup("wp", "train", 2, "training-high", null)));
        for (int i = 0; i < 2; i++) train.add(workloadPod("wp", "train-" + i, "train", 8, "training-high"));
        apply(docs(train));
        await("the training gang in cache", () -> s.cache().isWorkloadPodGroup("wp/train") && s.cache().snapshot().pods().size() == 5);
        List<Eviction> evictions = s.loop().runOnce().result().evictions();
        int victims = mode.equals("all") ? 3 : 1;
        assertEquals(victims, evictions.size(), () -> "evictions: " + evictions);
        assertTrue(evictions.stream().allMatch(e -> e.pod().startsWith("wp/sweep-")), () -> "evictions: " + evictions);
        await("the victims gone", () -> evictions.stream().allMatch(e -> nodeOf("wp", e.pod().split("/")[1]) == null));
        await("the training gang binds", () -> {
            s.loop().runOnce();
            return nodeOf("wp", "train-0") != null && nodeOf("wp", "train-1") != null;
        });
        long sweepLeft = admin.pods().inNamespace("wp").list().getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith("sweep-")).count();
        assertEquals(3 - victims, sweepLeft, "sweep pods left");
        List<AuditLog.Request> evictionPosts = arbiterRequests().stream().filter(r -> r.on("pods", "eviction")
                && !r.uri().contains("dryRun=All")).toList();
        assertEquals(victims, evictionPosts.size(), () -> "eviction requests: " + evictionPosts);
        assertTrue(evictionPosts.stream().allMatch(r -> r.code() == 201), () -> "eviction answers: " + evictionPosts);
        await("the training gang's PodGroupInitiallyScheduled True", () -> "True".equals(initiallyScheduled("wp", "train", "status")));
    }

    // ---- objects ---------------------------------------------------------------------------------------------------

    /**
     * A scheduling.k8s.io/v1beta1 PodGroup: a gang of {@code minCount} (0: {@code basic}, no gang), of
     * {@code priorityClass} and {@code disruptionMode} (null: none).
     */
    static String workloadPodGroup(String ns, String name, int minCount, String priorityClass, String disruptionMode) {
        String policy = minCount == 0 ? "{basic: {}}" : "{gang: {minCount: " + minCount + "}}";
        String pc = priorityClass == null ? "" : "\n  priorityClassName: " + priorityClass;
        String dm = disruptionMode == null ? "" : "\n  disruptionMode: {" + disruptionMode + ": {}}";
        return """
                apiVersion: scheduling.k8s.io/v1beta1
                kind: PodGroup
                metadata: {name: %s, namespace: %s}
                spec:
                  schedulingPolicy: %s%s%s
                """.formatted(name, ns, policy, pc, dm);
    }

    /** A pod of the upstream PodGroup {@code group} ({@code spec.schedulingGroup}), for Arbiter, asking 1 CPU and {@code gpus}. */
    static String workloadPod(String ns, String name, String group, int gpus, String priorityClass) {
        return workloadPod(ns, name, group, "arbiter", gpus, priorityClass);
    }

    static String workloadPod(String ns, String name, String group, String schedulerName, int gpus, String priorityClass) {
        return workloadPod(ns, name, group, schedulerName, gpus, priorityClass, null);
    }

    /** As above, of the group {@code group} (null: none), on nodes labelled {@code pool=<pool>} (null: any node). */
    static String workloadPod(String ns, String name, String group, String schedulerName, int gpus, String priorityClass,
                              String pool) {
        String g = group == null ? "" : "\n  schedulingGroup: {podGroupName: " + group + "}";
        String pc = priorityClass == null ? "" : "\n  priorityClassName: " + priorityClass;
        String selector = pool == null ? "" : "\n  nodeSelector: {pool: " + pool + "}";
        String gpu = gpus == 0 ? "" : ", nvidia.com/gpu: \"" + gpus + "\"";
        return """
                apiVersion: v1
                kind: Pod
                metadata: {name: %s, namespace: %s}
                spec:
                  schedulerName: %s%s%s%s
                  containers:
                    - name: main
                      image: registry.example.com/job:1
                      resources:
                        requests: {cpu: "1", memory: 1Gi%s}
                        limits: {cpu: "1", memory: 1Gi%s}
                """.formatted(name, ns, schedulerName, pc, g, selector, gpu, gpu);
    }

    /** A field of the PodGroup's {@code PodGroupInitiallyScheduled} condition on the server, or null. */
    static String initiallyScheduled(String ns, String name, String field) {
        WorkloadPodGroup g = admin.resources(WorkloadPodGroup.class).inNamespace(ns).withName(name).get();
        if (g == null || g.getStatus() == null || g.getStatus().conditions == null) return null;
        return g.getStatus().conditions.stream().filter(c -> "PodGroupInitiallyScheduled".equals(c.get("type")))
                .map(c -> c.get(field)).map(v -> v == null ? null : String.valueOf(v)).findFirst().orElse(null);
    }
}
