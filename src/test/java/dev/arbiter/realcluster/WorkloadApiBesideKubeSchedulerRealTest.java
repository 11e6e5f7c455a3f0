package dev.arbiter.realcluster;

import static dev.arbiter.realcluster.WorkloadApiRealTest.initiallyScheduled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same gang workloads of the upstream Workload API ({@code scheduling.k8s.io/v1beta1} PodGroups) given to
 * kube-scheduler v1.37 (the {@code GenericWorkload} gate on: its GangScheduling plugin and workload-aware preemption)
 * and to Arbiter, side by side on one real API server: kube-scheduler's pods in namespace {@code ks} on the nodes
 * labelled {@code pool=ks}, Arbiter's in {@code ar} on {@code pool=ar} (each pod's nodeSelector keeps it in its pool,
 * so neither scheduler's placements or victims touch the other's). Each test asserts both outcomes, each side's
 * where they agree and where they differ; docs/workload-api.md ("Beside kube-scheduler's gang scheduling") lists
 * them.
 */
class WorkloadApiBesideKubeSchedulerRealTest extends RealClusterTest {
    static final String KS = "ks";
    static final String AR = "ar";

    @BeforeEach
    void bothSchedulers() throws Exception {
        cluster.namespace(KS);
        cluster.namespace(AR);
        for (String side : List.of(KS, AR)) admin.v1().events().inNamespace(side).delete();
        apply(docs(List.of(queue("default", 1), priorityClass("batch-low", 100), priorityClass("training-high", 10000))));
        Process ks = cluster.startKubeScheduler();
        closeAfter(ks::destroyForcibly);
        runningScheduler(dev.arbiter.live.LiveConfig.defaults(java.util.Set.of("arbiter"), "arbiter-test")
                .withPeriod(Duration.ofMillis(300)));
    }

    @Test
    void aGangThatFitsBindsWholeAndIsMarkedScheduledByBoth() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 3);
            gang(side, "train", 3, 3, null, null, null);
        }
        for (String side : List.of(KS, AR)) {
            await(side + ": all three bound", () -> bound(side) == 3, Duration.ofSeconds(60));
            await(side + ": PodGroupInitiallyScheduled True, Scheduled", () -> "True".equals(initiallyScheduled(side, "train", "status"))
                    && "Scheduled".equals(initiallyScheduled(side, "train", "reason")), Duration.ofSeconds(60));
        }
    }

    @Test
    void aGangShortOfRoomBindsNoneAndIsMarkedUnschedulableByBothThenBindsWholeWhenANodeArrives() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 2);
            gang(side, "train", 3, 3, null, null, null);
        }
        for (String side : List.of(KS, AR)) {
            await(side + ": PodGroupInitiallyScheduled False, Unschedulable", () -> "False".equals(initiallyScheduled(side, "train", "status"))
                    && "Unschedulable".equals(initiallyScheduled(side, "train", "reason")), Duration.ofSeconds(60));
        }
        System.out.println("kube-scheduler says: " + initiallyScheduled(KS, "train", "message"));
        System.out.println("Arbiter says: " + initiallyScheduled(AR, "train", "message"));
        for (String side : List.of(KS, AR)) assertEquals(0, bound(side), side + ": none bound while two of three fit");
        for (String side : List.of(KS, AR)) poolNode(side + "-3", side);
        for (String side : List.of(KS, AR)) {
            await(side + ": all three bound once the third node came", () -> bound(side) == 3, Duration.ofSeconds(120));
            await(side + ": Scheduled", () -> "True".equals(initiallyScheduled(side, "train", "status")), Duration.ofSeconds(60));
        }
    }

    @Test
    void twoGangsCompetingForRoomForOne() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 2);
            gang(side, "a", 2, 2, null, null, null);
            gang(side, "b", 2, 2, null, null, null);
        }
        for (String side : List.of(KS, AR)) {
            await(side + ": one gang bound whole", () -> boundOf(side, "a-") + boundOf(side, "b-") == 2, Duration.ofSeconds(60));
            String loser = boundOf(side, "a-") == 2 ? "b" : "a";
            await(side + ": the other marked Unschedulable", () -> "False".equals(initiallyScheduled(side, loser, "status")),
                    Duration.ofSeconds(60));
            assertTrue(boundOf(side, "a-") == 2 || boundOf(side, "b-") == 2, side + ": the two bound pods are one gang's");
        }
    }

    @Test
    void aBasicGroupsPodsStartOneByOneAsTheyFit() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 2);
            gang(side, "sweep", 0, 3, null, null, null);
        }
        for (String side : List.of(KS, AR)) {
            await(side + ": two of three bound", () -> bound(side) == 2, Duration.ofSeconds(60));
        }
        System.out.println("basic group's condition: kube-scheduler " + initiallyScheduled(KS, "sweep", "status") + "/"
                + initiallyScheduled(KS, "sweep", "reason") + ", Arbiter " + initiallyScheduled(AR, "sweep", "status") + "/"
                + initiallyScheduled(AR, "sweep", "reason"));
    }

    @Test
    void podsCreatedBeforeTheirPodGroupWaitForItThenBind() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 3);
            List<String> pods = new ArrayList<>();
            for (int i = 0; i < 3; i++) pods.add(pod(side, "train-" + i, "train", null, 8));
            apply(docs(pods));
        }
        // A pod without a group on each side, created after: once it is bound, each scheduler has seen the group's pods.
        for (String side : List.of(KS, AR)) apply(pod(side, "sentinel", null, null, 0));
        for (String side : List.of(KS, AR)) await(side + ": the sentinel bound", () -> nodeOf(side, "sentinel") != null, Duration.ofSeconds(60));
        for (String side : List.of(KS, AR)) assertEquals(0, boundOf(side, "train-"), side + ": no group, none bound");
        for (String side : List.of(KS, AR)) apply(podGroup(side, "train", 3, null, null));
        for (String side : List.of(KS, AR)) {
            await(side + ": all three bound once the PodGroup came", () -> boundOf(side, "train-") == 3, Duration.ofSeconds(60));
        }
    }

    @Test
    void fewerPodsThanMinCountWaitThenBindWhenTheLastArrives() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 3);
            gang(side, "train", 3, 2, null, null, null);
        }
        for (String side : List.of(KS, AR)) apply(pod(side, "sentinel", null, null, 0));
        for (String side : List.of(KS, AR)) await(side + ": the sentinel bound", () -> nodeOf(side, "sentinel") != null, Duration.ofSeconds(60));
        await("Arbiter marks the group Unschedulable", () -> "False".equals(initiallyScheduled(AR, "train", "status")), Duration.ofSeconds(60));
        for (String side : List.of(KS, AR)) assertEquals(0, boundOf(side, "train-"), side + ": two of minCount 3, none bound");
        assertNull(initiallyScheduled(KS, "train", "status"), "kube-scheduler writes no condition while PreEnqueue holds the pods");
        System.out.println("minCount above the pods: kube-scheduler's condition " + initiallyScheduled(KS, "train", "status")
                + " " + initiallyScheduled(KS, "train", "reason") + " " + initiallyScheduled(KS, "train", "message")
                + ", Arbiter's " + initiallyScheduled(AR, "train", "status") + " " + initiallyScheduled(AR, "train", "message"));
        for (String side : List.of(KS, AR)) apply(pod(side, "train-2", "train", null, 8));
        for (String side : List.of(KS, AR)) {
            await(side + ": all three bound once the third pod came", () -> boundOf(side, "train-") == 3, Duration.ofSeconds(60));
        }
    }

    @Test
    void aPodGroupWhosePriorityDiffersFromItsPods() {
        for (String side : List.of(KS, AR)) {
            nodes(side, 3);
            gang(side, "train", 3, 3, "training-high", "batch-low", null);
        }
        await("kube-scheduler: SchedulerError", () -> "SchedulerError".equals(initiallyScheduled(KS, "train", "reason")),
                Duration.ofSeconds(60));
        System.out.println("kube-scheduler says: " + initiallyScheduled(KS, "train", "message"));
        await("Arbiter: all three bound", () -> bound(AR) == 3, Duration.ofSeconds(60));
        await("Arbiter: Scheduled", () -> "True".equals(initiallyScheduled(AR, "train", "status")), Duration.ofSeconds(60));
        assertEquals(0, bound(KS), "kube-scheduler binds none");
    }

    /**
     * A low-priority sweep (three pods, minCount 2, in {@code mode}) runs on three of four nodes; a high-priority gang
     * of two needs one of its nodes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"all", "single"})
    void aHigherPriorityGangPreemptsASweep(String mode) {
        kubelet.startedAgo(Duration.ofMinutes(10));
        for (String side : List.of(KS, AR)) {
            nodes(side, 4);
            gang(side, "sweep", 2, 3, "batch-low", "batch-low", mode);
        }
        for (String side : List.of(KS, AR)) await(side + ": the sweep runs", () -> bound(side) == 3, Duration.ofSeconds(60));
        for (String side : List.of(KS, AR)) gang(side, "train", 2, 2, "training-high", "training-high", null);
        for (String side : List.of(KS, AR)) {
            await(side + ": the training gang bound", () -> boundOf(side, "train-") == 2, Duration.ofSeconds(120));
        }
        long ksLeft = podsOf(KS, "sweep-").size();
        long arLeft = podsOf(AR, "sweep-").size();
        System.out.println("disruptionMode " + mode + ": sweep pods left: kube-scheduler " + ksLeft + ", Arbiter " + arLeft);
        for (String side : List.of(KS, AR)) {
            admin.v1().events().inNamespace(side).list().getItems().forEach(e -> System.out.println("event " + side + " "
                    + e.getInvolvedObject().getName() + " " + e.getReason() + ": " + e.getMessage()));
        }
        assertEquals(mode.equals("all") ? 0 : 2, arLeft, "Arbiter: sweep pods left");
        // kube-scheduler's workload-aware preemption takes two of a single-mode sweep where one would do (the room
        // for the gang's second pod), leaving one pod of a minCount-2 group running.
        assertEquals(mode.equals("all") ? 0 : 1, ksLeft, "kube-scheduler: sweep pods left");
    }

    /** kube-scheduler's PodGroups are its own: Arbiter writes nothing on them (it did, before its pods were asked). */
    @AfterEach
    void arbiterLeftKubeSchedulersPodGroupsAlone() {
        assertEquals(List.of(), arbiterRequests().stream().filter(r -> "podgroups".equals(r.resource())
                && KS.equals(r.namespace()) && !"list".equals(r.verb()) && !"watch".equals(r.verb())).toList(),
                "Arbiter's requests on kube-scheduler's PodGroups");
    }

    // ---- objects ---------------------------------------------------------------------------------------------------

    /** {@code n} nodes of 8 GPUs in the pool {@code side}. */
    private static void nodes(String side, int n) {
        for (int i = 0; i < n; i++) poolNode(side + "-" + i, side);
    }

    private static void poolNode(String name, String pool) {
        node(name, 16, 8);
        admin.nodes().withName(name).edit(n -> new NodeBuilder(n).editMetadata().addToLabels("pool", pool).endMetadata().build());
    }

    /**
     * A PodGroup ({@code minCount} 0: basic) of {@code pods} 8-GPU pods; the group of {@code groupClass}, the pods of
     * {@code podClass}, the group in {@code disruptionMode} (null: none).
     */
    private static void gang(String side, String name, int minCount, int pods, String groupClass, String podClass, String mode) {
        List<String> docs = new ArrayList<>(List.of(podGroup(side, name, minCount, groupClass, mode)));
        for (int i = 0; i < pods; i++) docs.add(pod(side, name + "-" + i, name, podClass, 8));
        apply(docs(docs));
    }

    private static String podGroup(String side, String name, int minCount, String priorityClass, String mode) {
        return WorkloadApiRealTest.workloadPodGroup(side, name, minCount, priorityClass, mode);
    }

    /** A pod for the side's scheduler, kept in its pool, of the upstream group {@code group} (null: none). */
    private static String pod(String side, String name, String group, String priorityClass, int gpus) {
        return WorkloadApiRealTest.workloadPod(side, name, group, side.equals(KS) ? "default-scheduler" : "arbiter", gpus,
                priorityClass, side);
    }

    private static List<Pod> podsOf(String side, String prefix) {
        return admin.pods().inNamespace(side).list().getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith(prefix) && p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private static long boundOf(String side, String prefix) {
        return podsOf(side, prefix).stream().filter(p -> p.getSpec().getNodeName() != null).count();
    }
}
