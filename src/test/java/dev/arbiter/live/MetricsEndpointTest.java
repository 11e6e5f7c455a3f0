package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** /metrics, /healthz and /readyz of a scheduling replica. */
@EnableKubernetesMockClient(crud = true)
class MetricsEndpointTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void metricsDescribeTheCyclesAndProbesAnswer() throws Exception {
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(node("node-1", 8));
            fx.create(pod("team", "p", "arbiter", 1, null));
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            AtomicBoolean ready = new AtomicBoolean(false);
            LiveScheduler s = fx.adopt(new LiveScheduler(server.createClient(), LiveFixture.RULES, LiveFixture.config("m"), registry));
            try (MetricsServer http = new MetricsServer(0, registry, s::isHealthy, ready::get)) {
                assertEquals(503, get(http, "/healthz").statusCode(), "no informer runs yet");
                assertEquals(503, get(http, "/readyz").statusCode());
                s.startInformersOnly();
                await("synced", s::isReady);
                // Run alone, this class saw isReady before the node was in the cache (it came by the watch ~25 ms
                // later, and the cycle found no capacity); this test is about metrics, so it waits for both objects.
                await("node and pod in cache", () -> s.cache().snapshot().nodes().size() == 1 && s.cache().holdsPod("team/p"));
                ready.set(true);
                s.loop().runOnce().report();

                String metrics = get(http, "/metrics").body();
                for (String name : new String[] {"arbiter_cycle_duration_seconds_count{phase=\"schedule\"}",
                        "arbiter_cycle_duration_seconds_count{phase=\"engine_allocate\"}",
                        "arbiter_scheduling_e2e_latency_seconds_count", "arbiter_decisions_total{action=\"bind\",outcome=\"ok\"} 1.0",
                        "arbiter_queue_allocated{queue=\"default\",resource=\"mars-tech.com/gpu\"} 1.0",
                        "arbiter_queue_deserved{", "arbiter_pending_pods 0.0"}) {
                    assertTrue(metrics.contains(name), name + " in\n" + metrics);
                }
                assertEquals(200, get(http, "/healthz").statusCode());
                assertEquals(200, get(http, "/readyz").statusCode());
            }
        }
    }

    private static HttpResponse<String> get(MetricsServer http, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + http.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
