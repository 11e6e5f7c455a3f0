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
 * The API server, then etcd, killed ({@code kill -9}) and restarted while Arbiter binds gangs: no pod is bound twice,
 * no gang is left below its minMember holding resources, and scheduling resumes once the control plane is back.
 */
class ControlPlaneRestartRealTest extends RealClusterTest {
    static final int GANGS = 50;
    static final int MEMBERS = 4;

    @Test
    void anApiServerRestartMidBurstLeavesNoPodBoundTwiceAndNoGangBroken() throws Exception {
        burstThen("api", () -> cluster.restartApiServer());
    }

    @Test
    void anEtcdRestartMidBurstLeavesNoPodBoundTwiceAndNoGangBroken() throws Exception {
        burstThen("etcd", () -> cluster.restartEtcd());
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
        for (int g = 0; g < GANGS; g++) {
            docs.add(podGroup(ns, "g" + g, "q-" + ns, MEMBERS));
            for (int m = 0; m < MEMBERS; m++) docs.add(pod(ns, "g" + g + "-" + m, "g" + g, "arbiter", 1, null));
        }
        java.util.concurrent.CountDownLatch firstBind = new java.util.concurrent.CountDownLatch(1);
        try (var watch = admin.pods().inNamespace(ns).watch(new io.fabric8.kubernetes.client.Watcher<Pod>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                if (pod.getSpec().getNodeName() != null) firstBind.countDown();
            }

            @Override
            public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
        })) {
            apply(docs(docs));
            assertTrue(firstBind.await(60, java.util.concurrent.TimeUnit.SECONDS), "binding began");
        }
        fault.inject();

        await("every gang bound whole", () -> bound(ns).size() == GANGS * MEMBERS, Duration.ofSeconds(90));
        Map<String, Long> byGang = bound(ns).stream().collect(Collectors.groupingBy(
                p -> p.getMetadata().getName().replaceAll("-\\d+$", ""), Collectors.counting()));
        assertTrue(byGang.values().stream().allMatch(n -> n == MEMBERS), () -> "gangs: " + byGang);
        Map<String, Long> accepted = arbiterRequests().stream().filter(r -> r.on("pods", "binding") && r.code() == 201)
                .collect(Collectors.groupingBy(AuditLog.Request::name, Collectors.counting()));
        assertTrue(accepted.values().stream().allMatch(n -> n == 1), () -> "bound more than once: " + accepted);
        // No node holds more than it has: the API server would not stop a double booking, the scheduler must.
        Map<String, Long> perNode = bound(ns).stream().collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(),
                Collectors.counting()));
        assertTrue(perNode.values().stream().allMatch(n -> n <= 8), () -> "GPUs per node: " + perNode);
        assertEquals(GANGS * MEMBERS, perNode.values().stream().mapToLong(Long::longValue).sum());
    }

    private static List<Pod> bound(String ns) {
        return admin.pods().inNamespace(ns).list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName() != null).toList();
    }
}
