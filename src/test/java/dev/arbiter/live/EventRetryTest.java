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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Fault 6 of issue 32: Event writes refused with 429 are retried with backoff, not dropped. */
class EventRetryTest {
    @Test
    void eventsRefusedWith429AreRetriedAndArrive() {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO);
             KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build()) {
            AtomicInteger refused = new AtomicInteger();
            api.inject(call -> call.resource().equals("events") && call.method().equals("POST")
                    && refused.incrementAndGet() <= 4 ? StandInApiServer.Fault.fail(429) : null);
            Metrics metrics = new Metrics(new SimpleMeterRegistry());
            try (EventRecorder events = new EventRecorder(new ApiCalls(client, Duration.ofSeconds(5)), metrics, "arbiter",
                    "replica-1", EventRecorder.Limits.standard())) {
                for (int i = 0; i < 3; i++) {
                    events.record(EventRecorder.Involved.pod("team/p" + i, "uid-" + i), "Normal", "Scheduled", "bound p" + i);
                }
                await("the three events arrived", () -> api.list("events").size() == 3);
            }
            assertEquals(4, metrics.events("retried"), "each refusal was retried");
            assertEquals(0, metrics.events("failed") + metrics.events("dropped"));
            assertTrue(api.requests("POST events") >= 7);
        }
    }
}
