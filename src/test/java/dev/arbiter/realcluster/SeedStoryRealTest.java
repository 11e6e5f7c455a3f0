package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Eviction;
import dev.arbiter.live.LiveScheduler;
import dev.arbiter.live.SchedulingLoop;
import dev.arbiter.live.VolcanoPodGroup;
import dev.arbiter.live.VolcanoQueue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The seed story (deploy/examples/seed) on a real kube-apiserver, Arbiter on its ServiceAccount's token: tenant B's
 * PyTorchJob (its PodGroup and pods as Kubeflow's training operator writes them with {@code --gang-scheduler-name=volcano})
 * fills the four nodes; tenant A's LeaderWorkerSet (pods as its controller makes them, with the PodGroup of the
 * example) arrives; two of B's workers are reclaimed through the Eviction API, A's gang binds on the freed nodes, and
 * the Queue and PodGroup status and the Events are accepted by the real server as Volcano's CRDs define them.
 */
class SeedStoryRealTest extends RealClusterTest {
    static final String TRAINING_OWNER = """
              ownerReferences:
                - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: tenantb-heavy-training,
                   uid: 3f1d0c52-5a7e-4c4e-9d0f-0d7b6a1c2b01, controller: true, blockOwnerDeletion: true}
            """;

    @Test
    void reclaimEvictsTwoTrainingWorkersThroughTheEvictionApiAndTenantABinds() throws Exception {
        cluster.namespace("a01");
        cluster.namespace("b01");
        for (int i = 1; i <= 4; i++) node("node-" + i, java.util.Map.of("cpu", "96", "memory", "768Gi", "pods", "110", "mars-tech.com/gpu", "8"));
        applyFiles(Path.of("deploy/examples/seed/20-priorityclasses.yaml"), Path.of("deploy/examples/seed/30-queues.yaml"));
        // B's pods report having started ten minutes ago: past the policy's minimum runtime before reclaim.
        kubelet.startedAgo(Duration.ofMinutes(10));
        apply(trainingPodGroup());
        apply(trainingPod("master", 0) + "---\n" + trainingPod("worker", 0) + "---\n" + trainingPod("worker", 1)
                + "---\n" + trainingPod("worker", 2));

        LiveScheduler s = manualScheduler();
        await("tenant B in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasQueue("tenantb")
                && s.cache().hasPodGroup("b01/tenantb-heavy-training"));
        assertEquals(4, s.loop().runOnce().report().bound());
        await("training runs everywhere", () -> admin.pods().inNamespace("b01").list().getItems().stream()
                .filter(p -> "Running".equals(p.getStatus().getPhase())).count() == 4);

        // Tenant A arrives: the LeaderWorkerSet controller's leader and worker pods, and the example's PodGroup.
        apply(lwsPodGroup());
        apply(lwsPod("qwen2-72b-unified-0", "0", "vllm-leader") + "---\n" + lwsPod("qwen2-72b-unified-0-1", "1", "vllm-worker"));
        await("tenant A in cache", () -> s.cache().snapshot().pods().size() == 6
                && s.cache().hasPodGroup("a01/qwen2-72b-unified-pg"));

        SchedulingLoop.Outcome reclaim = s.loop().runOnce();
        List<Eviction> evictions = reclaim.result().evictions();
        assertEquals(2, evictions.size(), () -> "evictions: " + evictions);
        for (Eviction e : evictions) {
            assertEquals("reclaim", e.action());
            assertTrue(e.pod().startsWith("b01/tenantb-heavy-training-worker-"), e.pod());
        }
        await("victims gone", () -> evictions.stream().allMatch(e -> admin.pods().inNamespace("b01")
                .withName(e.pod().split("/")[1]).get() == null));
        List<AuditLog.Request> evictionPosts = arbiterRequests().stream().filter(r -> r.on("pods", "eviction")).toList();
        // A plan of two victims is dry-run first, both, then evicted for real (all or none, issue 32).
        assertEquals(2, evictionPosts.stream().filter(r -> !r.uri().contains("dryRun=All")).count(),
                () -> "eviction requests: " + evictionPosts);
        assertEquals(4, evictionPosts.size(), () -> "eviction requests: " + evictionPosts);
        assertTrue(evictionPosts.stream().allMatch(r -> r.code() == 201), () -> "eviction answers: " + evictionPosts);

        String victim = evictions.get(0).pod().split("/")[1];
        await("a Reclaimed event names the preemptor and the rule", () -> admin.v1().events().inNamespace("b01").list()
                .getItems().stream().anyMatch(ev -> ev.getInvolvedObject().getName().equals(victim)
                        && ev.getReason().equals("Reclaimed") && ev.getMessage().contains("a01/qwen2-72b-unified-pg")));

        await("tenant A bound on the freed nodes", () -> {
            s.loop().runOnce();
            return nodeOf("a01", "qwen2-72b-unified-0") != null && nodeOf("a01", "qwen2-72b-unified-0-1") != null;
        });
        Set<String> freed = evictions.stream().map(Eviction::node).collect(Collectors.toSet());
        assertEquals(freed, Set.of(nodeOf("a01", "qwen2-72b-unified-0"), nodeOf("a01", "qwen2-72b-unified-0-1")));
        assertNotNull(nodeOf("b01", "tenantb-heavy-training-master-0"), "the master keeps training");

        await("tenant A's PodGroup Running, as the CRD accepts it", () -> {
            s.loop().runOnce();
            VolcanoPodGroup pg = admin.resources(VolcanoPodGroup.class).inNamespace("a01").withName("qwen2-72b-unified-pg").get();
            return pg.getStatus() != null && "Running".equals(pg.getStatus().phase)
                    && Integer.valueOf(2).equals(pg.getStatus().running);
        });
        await("queue status: tenant A's 16 GPUs, tenant B's 16", () -> {
            s.loop().runOnce();
            VolcanoQueue a = admin.resources(VolcanoQueue.class).withName("tenanta").get();
            VolcanoQueue b = admin.resources(VolcanoQueue.class).withName("tenantb").get();
            return a.getStatus() != null && a.getStatus().allocated != null && b.getStatus() != null && b.getStatus().allocated != null
                    && "16".equals(String.valueOf(a.getStatus().allocated.get("mars-tech.com/gpu")))
                    && "16".equals(String.valueOf(b.getStatus().allocated.get("mars-tech.com/gpu")))
                    // Pods, as Volcano counts them: A's leader and worker, B's master and remaining worker.
                    && "2".equals(String.valueOf(a.getStatus().allocated.get("pods")))
                    && "2".equals(String.valueOf(b.getStatus().allocated.get("pods")));
        });
        // B's PodGroup counts, as Volcano's jobStatus does, the pods in phase Running.
        await("tenant B's PodGroup: Running, 2 running", () -> {
            s.loop().runOnce();
            VolcanoPodGroup training = admin.resources(VolcanoPodGroup.class).inNamespace("b01")
                    .withName("tenantb-heavy-training").get();
            return training.getStatus() != null && "Running".equals(training.getStatus().phase)
                    && Integer.valueOf(2).equals(training.getStatus().running);
        });
        // Every status write of Arbiter's was accepted (no 4xx but the conflicts a retry resolves).
        List<AuditLog.Request> statusWrites = arbiterRequests().stream()
                .filter(r -> "status".equals(r.subresource()) || ("patch".equals(r.verb()) && "podgroups".equals(r.resource()))).toList();
        assertTrue(!statusWrites.isEmpty(), "status was written");
        assertEquals(List.of(), statusWrites.stream().filter(r -> r.code() >= 400 && r.code() != 409).toList(),
                "refused status writes");
    }

    private static String trainingPodGroup() {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata:
                  name: tenantb-heavy-training
                  namespace: b01
                %s
                spec:
                  minMember: 1
                  queue: tenantb
                  priorityClassName: p2-regular
                  minResources: {cpu: "16", memory: 128Gi, mars-tech.com/gpu: "8"}
                """.formatted(TRAINING_OWNER);
    }

    /** A pod as the training operator creates it for replica {@code type} {@code index} of the PyTorchJob. */
    private static String trainingPod(String type, int index) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: tenantb-heavy-training-%s-%d
                  namespace: b01
                  labels:
                    training.kubeflow.org/job-name: tenantb-heavy-training
                    training.kubeflow.org/operator-name: pytorchjob-controller
                    training.kubeflow.org/replica-type: %s
                    training.kubeflow.org/replica-index: "%d"
                  annotations:
                    scheduling.k8s.io/group-name: tenantb-heavy-training
                %s
                spec:
                  schedulerName: volcano
                  priorityClassName: p2-regular
                  restartPolicy: OnFailure
                  containers:
                    - name: pytorch
                      image: registry.example.com/tenantb/trainer:1.4
                      resources:
                        requests: {cpu: "16", memory: 128Gi, mars-tech.com/gpu: "8"}
                        limits: {cpu: "16", memory: 128Gi, mars-tech.com/gpu: "8"}
                """.formatted(type, index, type, index, TRAINING_OWNER);
    }

    private static String lwsPodGroup() {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata:
                  name: qwen2-72b-unified-pg
                  namespace: a01
                spec:
                  queue: tenanta
                  minMember: 2
                """;
    }

    /** A pod as the LeaderWorkerSet controller creates group 0's leader ({@code worker} "0") or worker. */
    private static String lwsPod(String name, String worker, String container) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: a01
                  labels:
                    leaderworkerset.sigs.k8s.io/name: qwen2-72b-unified
                    leaderworkerset.sigs.k8s.io/group-index: "0"
                    leaderworkerset.sigs.k8s.io/worker-index: "%s"
                  annotations:
                    scheduling.k8s.io/group-name: qwen2-72b-unified-pg
                    scheduling.volcano.sh/queue-name: tenanta
                    leaderworkerset.sigs.k8s.io/size: "2"
                spec:
                  schedulerName: volcano
                  priorityClassName: p0-critical
                  containers:
                    - name: %s
                      image: registry.example.com/tenanta/vllm:0.6
                      resources:
                        requests: {cpu: "16", memory: 128Gi, mars-tech.com/gpu: "8"}
                        limits: {cpu: "16", memory: 128Gi, mars-tech.com/gpu: "8"}
                """.formatted(name, worker, container);
    }
}
