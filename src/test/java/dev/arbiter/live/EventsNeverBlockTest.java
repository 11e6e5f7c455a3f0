package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Events leave the decision loop and never block a bind: with the Events API hanging, every pod is still bound in
 * one cycle, and the events wait (bounded) instead.
 */
class EventsNeverBlockTest {
    @Test
    void bindingsGoOnWhileTheEventsApiHangs() {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO);
             KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build()) {
            api.inject(call -> call.resource().equals("events") ? StandInApiServer.Fault.hang() : null);
            for (int n = 0; n < 4; n++) {
                api.create("nodes", Map.of("metadata", Map.of("name", "node-" + n),
                        "status", Map.of("allocatable", Map.of("cpu", "64", "memory", "256Gi", "pods", "110"))));
            }
            for (int i = 0; i < 40; i++) {
                api.create("pods", Map.of("metadata", Map.of("namespace", "team", "name", "p" + i),
                        "spec", Map.of("schedulerName", "arbiter", "containers", List.of(Map.of("name", "c", "image", "i",
                                "resources", Map.of("requests", Map.of("cpu", "1")))))));
            }
            LiveConfig config = LiveFixture.config("events").withWriters(Actuator.Writers.standard().withEvents(1, 1));
            try (LiveScheduler s = new LiveScheduler(client, LiveFixture.RULES, config, new SimpleMeterRegistry())) {
                s.startInformersOnly();
                await("synced", () -> s.isReady() && s.cache().snapshot().pods().size() == 40);

                SchedulingLoop.Outcome o = s.loop().runOnce();

                assertEquals(40, o.report().bound(), "every pod bound while no event could be written");
                assertEquals(40, api.requests("POST pods/binding"));
                await("the Scheduled events wait (1 in flight, the rest queued or dropped)",
                        () -> s.actuator().pendingEvents() + s.metrics().events("dropped") >= 38);
                assertTrue(s.actuator().pendingEvents() <= EventRecorder.Limits.standard().queueSize());
            }
        }
    }
}
