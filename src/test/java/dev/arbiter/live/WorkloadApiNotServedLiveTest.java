package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An API server that does not serve the upstream Workload API's {@code scheduling.k8s.io/v1beta1} PodGroups
 * (Kubernetes before 1.37, or the {@code GenericWorkload} gate or its runtime config off: every list of them is 404).
 * Arbiter says so in one line, stays healthy, schedules everything else, and leaves a pod naming such a group
 * waiting, as a pod naming a missing Volcano PodGroup. Served, on a real v1.37 API server: {@code WorkloadApiRealTest}.
 */
class WorkloadApiNotServedLiveTest extends LiveClusterTest {
    static final String PATH = "/apis/scheduling.k8s.io/v1beta1/podgroups";
    private CapturedLog log;

    @BeforeEach
    void captureLog() {
        log = new CapturedLog();
    }

    @AfterEach
    void restoreLog() {
        log.close();
    }

    @Test
    void withoutTheWorkloadApiArbiterSaysSoOnceAndSchedulesEverythingElse() {
        AtomicInteger probes = new AtomicInteger();
        for (String query : List.of("", "?resourceVersion=0", "?limit=1")) {
            server.expect().get().withPath(PATH + query).andReply(404, req -> {
                probes.incrementAndGet();
                return new StatusBuilder().withStatus("Failure").withReason("NotFound").withCode(404)
                        .withMessage("the server could not find the requested resource").build();
            }).always();
        }
        fx.create(node("node-1", 8));
        fx.create(node("node-2", 8));
        fx.create(LiveFixture.podGroup("ops", "volcano-gang", "default", 1));
        fx.create(LiveFixture.pod("ops", "plain", "arbiter", 8, null));
        fx.create(LiveFixture.pod("ops", "grouped", "arbiter", 4, "volcano-gang"));
        // A pod of the Workload API, as a Job controller with the gate on writes it: its group is in spec.schedulingGroup.
        PodSpec upstream = LiveFixture.pod("ops", "upstream", "arbiter", 4, null);
        fx.expectSubresources("ops", "upstream");
        Pod object = LiveFixture.podObject(upstream);
        object.getSpec().setAdditionalProperty("schedulingGroup", Map.of("podGroupName", "train"));
        client.pods().inNamespace("ops").resource(object).create();

        // Asked again every 100 ms here (30 s by default), to see the line is said once, not once per probe.
        LiveScheduler s = fx.manualScheduler(LiveFixture.RULES, LiveFixture.config("arbiter-test")
                .withHyperNodeReprobe(Duration.ofMillis(100)));
        await("told", () -> s.cache().workloadPodGroupsAbsent() != null);
        assertEquals("cannot list PodGroups (scheduling.k8s.io/v1beta1): the API server does not serve them (404);"
                + " running without the Workload API's PodGroups (pods naming one wait); asking again every 0 s",
                s.cache().workloadPodGroupsAbsent());
        assertTrue(s.cache().isHealthy(), "an API server without the Workload API does not make the cache unhealthy");
        await("all three pods in cache", () -> s.cache().snapshot().pods().size() == 3);
        s.loop().runOnce();
        await("the others bound", () -> fx.nodeOf("ops/plain") != null && fx.nodeOf("ops/grouped") != null);
        s.loop().runOnce();
        assertNull(fx.nodeOf("ops/upstream"), "a pod naming a PodGroup Arbiter cannot read waits");
        await("asked again", () -> probes.get() >= 3);
        assertEquals(1, log.lines("cannot list PodGroups (scheduling.k8s.io/v1beta1)").size(), () -> "said once: " + log.lines());
        assertTrue(s.cache().isHealthy());
    }
}
