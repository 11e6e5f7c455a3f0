package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The API server, then etcd, killed ({@code kill -9}) and restarted while Arbiter binds gangs, more than the nodes
 * hold: no pod is bound twice, no node holds more than it has, no gang is left below its minMember holding
 * resources, and scheduling resumes once the control plane is back.
 */
class ControlPlaneRestartRealTest extends RealClusterTest {
    /** Gangs the nodes hold, and gangs more than that: these wait, and a scheduler that lost count would place them. */
    static final int GANGS = 50;
    static final int EXTRA = 10;
    static final int MEMBERS = 4;

    @Test
    void anApiServerRestartMidBurstLeavesNoPodBoundTwiceAndNoGangBroken() throws Exception {
        burstThen("api", () -> cluster.restartApiServer());
    }

    @Test
    void anEtcdRestartMidBurstLeavesNoPodBoundTwiceAndNoGangBroken() throws Exception {
        burstThen("etcd", () -> cluster.restartEtcd());
    }

    /**
     * Fault 4: informers that failed all through a long outage retry within 1.6 s of the server's return. With
     * fabric8's default retry (1 s doubling, up to 32 s) their attempts fall 1, 3, 7, 15 and 31 s after the break: a
     * server back after 16 s was seen only at 31 s, and the gangs waited the difference.
     */
    @Test
    void informersFailingThroughALongOutageSeeTheServerPromptlyOnceItIsBack() throws Exception {
        String ns = "outage";
        cluster.namespace(ns);
        node(ns + "-0", 64, 8);
        apply(queue("q-" + ns, 1));
        runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(500)));
        applyUntilFirstBind(ns, docs(List.of(podGroup(ns, "first", "q-" + ns, 1), pod(ns, "first-0", "first", "arbiter", 1, null))));
        cluster.killApiServer();
        // The outage itself: long enough that a doubling retry from 1 s makes its fifth attempt (at 15 s) while the
        // server is still down and waits 16 s more for its sixth.
        Thread.sleep(16_000);
        cluster.startApiServer();
        cluster.awaitServing();
        long back = System.nanoTime();
        apply(docs(List.of(podGroup(ns, "after", "q-" + ns, 2), pod(ns, "after-0", "after", "arbiter", 1, null),
                pod(ns, "after-1", "after", "arbiter", 1, null))));
        await("the gang created after the outage bound", () -> nodeOf(ns, "after-0") != null && nodeOf(ns, "after-1") != null,
                Duration.ofSeconds(60));
        Duration seen = Duration.ofNanos(System.nanoTime() - back);
        System.out.println(ns + ": a gang created once the server was back after 16 s down bound in " + seen.toMillis() + " ms");
        assertTrue(seen.compareTo(Duration.ofSeconds(6)) <= 0, () -> "the gang bound " + seen + " after the server was back");
    }

    interface Fault {
        void inject() throws Exception;
    }

    private void burstThen(String ns, Fault fault) throws Exception {
        cluster.namespace(ns);
        for (int i = 0; i < GANGS * MEMBERS / 8; i++) node(ns + "-" + i, 64, 8);
        apply(queue("q-" + ns, 1));
        runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(500)));
        List<String> docs = new ArrayList<>();
        for (int g = 0; g < GANGS + EXTRA; g++) {
            docs.add(podGroup(ns, "g" + g, "q-" + ns, MEMBERS));
            for (int m = 0; m < MEMBERS; m++) docs.add(pod(ns, "g" + g + "-" + m, "g" + g, "arbiter", 1, null));
        }
        // The gangs' controller's part: a member deleted (a gang rolled back when a bind failed in the outage, its
        // bound members evicted) is created again, as a training operator or job controller would.
        Map<String, Integer> recreated = new java.util.concurrent.ConcurrentHashMap<>();
        var controller = admin.pods().inNamespace(ns).inform(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod) {}

            @Override
            public void onUpdate(Pod before, Pod pod) {}

            @Override
            public void onDelete(Pod pod, boolean unknown) {
                String name = pod.getMetadata().getName();
                if (!name.matches("g\\d+-\\d+")) return;
                recreated.merge(name, 1, Integer::sum);
                java.util.concurrent.CompletableFuture.runAsync(() -> recreate(ns, name));
            }
        }, 0);
        closeAfter(controller::stop);
        // Each binding takes 50 ms more (an admission webhook): bindings are in flight across cycles and at the
        // fault while ten gangs wait for room, so a cycle that counted a node free too early would double-book it.
        closeAfter(BindingWebhook.in(cluster, ns, Duration.ofMillis(50)));
        applyUntilFirstBind(ns, docs(docs));
        fault.inject();
        long back = System.nanoTime();

        await("the nodes full", () -> bound(ns) >= GANGS * MEMBERS, Duration.ofSeconds(90));
        // Normally the burst binds within 1-2 s; an informer that waits out a long backoff after the restart (it
        // was refused while the server came up) makes the gangs wait for it.
        Duration recovery = Duration.ofNanos(System.nanoTime() - back);
        System.out.println(ns + ": the nodes full " + recovery.toMillis() + " ms after the control plane was back");
        assertTrue(recovery.compareTo(Duration.ofSeconds(20)) <= 0, () -> "the nodes full " + recovery + " after recovery");
        // A gang that arrives after the restart is seen and bound as promptly as ever: every informer is watching again.
        long arrived = System.nanoTime();
        List<String> late = new ArrayList<>(List.of(podGroup(ns, "late", "q-" + ns, 2)));
        for (int m = 0; m < 2; m++) late.add(pod(ns, "late-" + m, "late", "arbiter", 0, null));
        apply(docs(late));
        await("the late gang bound", () -> nodeOf(ns, "late-0") != null && nodeOf(ns, "late-1") != null, Duration.ofSeconds(60));
        Duration lateBind = Duration.ofNanos(System.nanoTime() - arrived);
        System.out.println(ns + ": a gang created after the restart bound in " + lateBind.toMillis() + " ms");
        assertTrue(lateBind.compareTo(Duration.ofSeconds(5)) <= 0, () -> "the late gang bound after " + lateBind);
        Map<String, Long> byGang = boundPods(ns).stream().filter(p -> !p.getMetadata().getName().startsWith("late")).collect(Collectors.groupingBy(
                p -> p.getMetadata().getName().replaceAll("-\\d+$", ""), Collectors.counting()));
        // Gangs whole or not at all: the extra ones wait, holding nothing.
        assertTrue(byGang.values().stream().allMatch(n -> n == MEMBERS), () -> "gangs: " + byGang);
        Map<String, Long> accepted = arbiterRequests().stream().filter(r -> r.on("pods", "binding") && r.code() == 201)
                .collect(Collectors.groupingBy(AuditLog.Request::name, Collectors.counting()));
        // Each pod bound once: a name bound twice must be a member deleted and created again in between.
        assertTrue(accepted.entrySet().stream().allMatch(e -> e.getValue() <= 1 + recreated.getOrDefault(e.getKey(), 0)),
                () -> "bound more than once: " + accepted + " (recreated: " + recreated + ")");
        System.out.println(ns + ": members rolled back and recreated: " + recreated);
        // No node holds more than it has: the API server would not stop a double booking, the scheduler must.
        Map<String, Long> perNode = boundPods(ns).stream().filter(p -> !p.getMetadata().getName().startsWith("late")).collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(),
                Collectors.counting()));
        assertTrue(perNode.values().stream().allMatch(n -> n <= 8), () -> "GPUs per node: " + perNode);
        assertEquals(GANGS * MEMBERS, perNode.values().stream().mapToLong(Long::longValue).sum());
    }

    private static List<Pod> boundPods(String ns) {
        return admin.pods().inNamespace(ns).list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName() != null).toList();
    }

    /** Creates gang member {@code name} again (the API server may still be coming back: tried for up to 60 s). */
    private static void recreate(String ns, String name) {
        String group = name.replaceAll("-\\d+$", "");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                admin.resourceList(pod(ns, name, group, "arbiter", 1, null)).serverSideApply();
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }
}
