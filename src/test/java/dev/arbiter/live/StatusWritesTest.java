package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import dev.arbiter.livebench.StandInApiServer.Fault;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PodGroup status writes against the stand-in API server (issue 32): what the API server holds, never what was only
 * planned; one request per write when the CRD, like Volcano's own, declares no status subresource; a 409 retried.
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterpart is {@code
 * PodGroupStatusWritesRealTest}, and the two agree: one request per status write without a status subresource, and
 * no write left failed.
 */
class StatusWritesTest {
    private final StandInApiServer api = StandInApiServer.start(Duration.ZERO);
    private final KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build();
    private LiveScheduler scheduler;

    @AfterEach
    void close() {
        if (scheduler != null) scheduler.close();
        client.close();
        api.close();
    }

    private void node(String name, int cpus) {
        api.create("nodes", Map.of("metadata", Map.of("name", name),
                "status", Map.of("allocatable", Map.of("cpu", String.valueOf(cpus), "memory", "64Gi", "pods", "110"))));
    }

    /** A PodGroup {@code team/<group>} of {@code members} pods of {@code cpus} cpus each, all needed. */
    private void gang(String group, int members, int cpus) {
        api.create("podgroups", Map.of("apiVersion", "scheduling.volcano.sh/v1beta1", "kind", "PodGroup",
                "metadata", Map.of("namespace", "team", "name", group),
                "spec", Map.of("minMember", members, "queue", "default")));
        for (int i = 0; i < members; i++) {
            api.create("pods", Map.of("metadata", Map.of("namespace", "team", "name", group + "-" + i,
                            "annotations", Map.of("scheduling.k8s.io/group-name", group)),
                    "spec", Map.of("schedulerName", "arbiter", "containers", List.of(Map.of("name", "c", "image", "i",
                            "resources", Map.of("requests", Map.of("cpu", String.valueOf(cpus)))))),
                    "status", Map.of("phase", "Pending")));
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> status(String podGroup) {
        Map<String, Object> pg = api.get("podgroups", podGroup);
        return pg == null ? null : (Map<String, Object>) pg.get("status");
    }

    private LiveScheduler scheduler(Duration requestTimeout, int pods) {
        Actuator.Writers standard = Actuator.Writers.standard();
        LiveConfig config = LiveFixture.config("status").withWriters(
                new Actuator.Writers(standard.binders(), standard.statusThreads(), requestTimeout, standard.events()));
        scheduler = new LiveScheduler(client, LiveFixture.RULES, config, new SimpleMeterRegistry());
        scheduler.startInformersOnly();
        await("synced", () -> scheduler.isReady() && scheduler.cache().snapshot().pods().size() == pods);
        return scheduler;
    }

    private void failPodGroupStatus(Function<StandInApiServer.Call, Fault> script) {
        api.inject(call -> call.method().equals("PATCH") && call.resource().equals("podgroups")
                && "status".equals(call.subresource()) ? script.apply(call) : null);
    }

    @Test
    void withoutAStatusSubresourceEachPodGroupStatusCostsOneRequestAfterTheFirst404() {
        node("node-1", 4);
        for (String g : List.of("a", "b", "c")) gang(g, 2, 4); // none fits: three statuses to write
        failPodGroupStatus(call -> Fault.fail(404)); // Volcano's CRD: subresources: {}
        LiveScheduler s = scheduler(Duration.ofSeconds(10), 6);

        s.loop().runOnce().report();

        for (String g : List.of("team/a", "team/b", "team/c")) assertTrue(status(g) != null, g + " has a status");
        assertEquals(1, api.requests("PATCH podgroups/status"), "one 404 on /status for the run");
        assertEquals(3, api.requests("PATCH podgroups"), "then each status straight through the object");
    }

    @Test
    void statusWritesFailingThroughAnOutageAreLoggedOnceAndTheirReturnOnce() {
        node("node-1", 4);
        gang("a", 2, 4); // does not fit: a status to write each cycle until one lands
        AtomicInteger refused = new AtomicInteger();
        // Every status write fails (PodGroups, Queues and the pods' conditions): a pod's condition written meanwhile
        // would end the outage, and the next failure would rightly be said again.
        api.inject(call -> call.method().equals("PATCH") ? fault(refused) : null);
        LiveScheduler s = scheduler(Duration.ofSeconds(10), 2);
        // Each object's write waits after a failure (1 s, doubling): the clock jumps past it before each cycle.
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        s.actuator().failedWrites().useClock(now::get);
        try (CapturedLog log = new CapturedLog()) {
            for (int i = 0; i < 3; i++) {
                s.loop().runOnce().report();
                now.addAndGet(Duration.ofSeconds(10).toNanos());
            }
            assertTrue(refused.get() >= 3 * Backoff.standard().attempts(), "each cycle's write was tried and refused: " + refused);
            List<String> warned = log.lines("cannot write status");
            assertEquals(1, warned.size(), "one line for the outage: " + warned);
            assertTrue(warned.get(0).matches("\\S+Z WARN .*") && warned.get(0).contains("HTTP 503"), warned.get(0));

            api.inject(null);
            s.loop().runOnce().report();
            assertTrue(status("team/a") != null, "written once the server answers");
        }
    }

    private static Fault fault(AtomicInteger refused) {
        refused.incrementAndGet();
        return Fault.fail(503);
    }

    @Test
    void aConflictOnAPodGroupStatusIsRetried() {
        node("node-1", 4);
        gang("a", 2, 4);
        AtomicInteger conflicts = new AtomicInteger();
        failPodGroupStatus(call -> conflicts.getAndIncrement() == 0 ? Fault.fail(409) : null);
        LiveScheduler s = scheduler(Duration.ofSeconds(10), 2);

        s.loop().runOnce().report();

        assertEquals(2, api.requests("PATCH podgroups/status"), "the 409, then the write");
        assertTrue(status("team/a") != null && status("team/a").get("phase") != null, "the status was written");
    }

    @Test
    void aGangWithABindingStillInFlightIsNotShownRunning() {
        for (int n = 0; n < 4; n++) node("node-" + n, 4);
        gang("g", 4, 4);
        // The last member's binding never gets an answer (a leader that died, a server that stalls).
        api.inject(call -> call.method().equals("POST") && "binding".equals(call.subresource())
                && call.name().equals("g-3") ? Fault.hang() : null);
        LiveScheduler s = scheduler(Duration.ofSeconds(5), 4);

        s.loop().runOnce();
        await("three of four bound", () -> s.cache().snapshot().pods().stream()
                .filter(p -> p.isBound() && !p.key().equals("team/g-3")).count() == 3);
        long before = api.requests("PATCH podgroups/status");
        s.loop().runOnce().report(); // the engine sees all four placed (assumed)

        Map<String, Object> st = status("team/g");
        String phase = st == null ? null : String.valueOf(st.get("phase"));
        assertNotEquals("Running", phase, "3 of minMember 4 bound: " + st);
        assertTrue(st == null || ((Number) st.getOrDefault("running", 0)).intValue() <= 3, String.valueOf(st));
        // (The Queue's status may change meanwhile: its allocation no longer counts the binding in flight.)
        assertEquals(before, api.requests("PATCH podgroups/status"), "no status for a gang whose bindings are still in flight");
    }
}
