package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import dev.arbiter.runtime.KubeClients;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault 4 of issue 32 and item 1 of issue 34: informers refused by an API server (429) retry promptly, the first list
 * included, and say so in one line per informer, without stack traces. The client is configured as {@code run}
 * configures it ({@link KubeClients#config}).
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterpart is {@code
 * ControlPlaneRestartRealTest}, and the two agree: informers back promptly after 429s, a gang created afterwards
 * bound within seconds.
 */
class InformerRecoveryTest {
    @TempDir
    Path dir;

    private CapturedLog log;

    @BeforeEach
    void captureLog() {
        log = new CapturedLog();
    }

    @AfterEach
    void restoreLog() {
        log.close();
    }

    private List<String> logLines() {
        return log.lines();
    }

    private KubernetesClient client(StandInApiServer api) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), api.kubeconfig());
        return new KubernetesClientBuilder().withConfig(KubeClients.config(kubeconfig, Duration.ofSeconds(10))).build();
    }

    private static Map<String, Object> podGroup(String name) {
        return Map.of("metadata", Map.of("namespace", "team", "name", name), "spec", Map.of("minMember", 1, "queue", "default"));
    }

    private void assertNoStackTrace() {
        for (String line : logLines()) {
            assertTrue(!line.startsWith("\tat ") && !line.contains("Exception"), "a stack trace in the log: " + line);
        }
    }

    @Test
    void aFirstListRefusedWith429IsRetriedAndStartReturnsPromptly() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO); KubernetesClient client = client(api)) {
            api.create("podgroups", podGroup("before"));
            AtomicInteger refused = new AtomicInteger();
            api.inject(call -> call.resource().equals("podgroups") && !call.watch() && call.name() == null
                    && refused.incrementAndGet() <= 3 ? StandInApiServer.Fault.fail(429) : null);
            try (LiveScheduler s = new LiveScheduler(client, LiveFixture.RULES, LiveFixture.config("first-list"),
                    new SimpleMeterRegistry())) {
                s.startInformersOnly(); // used to throw: fabric8 stops an informer whose first list fails
                await("synced", s::isReady);
                await("the PodGroup listed after the refusals is held", () -> s.cache().hasPodGroup("team/before"));
                assertTrue(refused.get() >= 4, "three lists were refused, the fourth answered");
                assertTrue(s.isHealthy(), "every informer runs");
            }
            List<String> warned = logLines().stream().filter(l -> l.contains("podgroups informer")).toList();
            assertEquals(1, warned.size(), "one line for the outage: " + warned);
            assertTrue(warned.get(0).contains("HTTP 429") && warned.get(0).contains(api.url()), warned.get(0));
            assertNoStackTrace();
        }
    }

    @Test
    void aWatchRefusedWith429WhileTheServerRestartsIsBackWithinTwoSecondsOfTheServer() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO); KubernetesClient client = client(api)) {
            try (LiveScheduler s = new LiveScheduler(client, LiveFixture.RULES, LiveFixture.config("restart"),
                    new SimpleMeterRegistry())) {
                s.startInformersOnly();
                await("synced", s::isReady);
                await("watching", () -> s.cache().isWatching());

                // The server restarts: the PodGroup watch ends, and every PodGroup request is refused for 3.5 s,
                // long enough for fabric8's default backoff (1 s, 2 s, 4 s, ...) to wait 4 s before its third try.
                api.inject(call -> call.resource().equals("podgroups") ? StandInApiServer.Fault.fail(429) : null);
                api.endWatches("podgroups");
                long refusedSince = System.nanoTime();
                await("the outage lasted 3.5 s", () -> System.nanoTime() - refusedSince > 3_500_000_000L,
                        Duration.ofSeconds(5));

                api.inject(null);
                long back = System.nanoTime();
                api.create("podgroups", podGroup("after"));
                await("the PodGroup created once the server answered is seen", () -> s.cache().hasPodGroup("team/after"),
                        Duration.ofSeconds(20));
                double seconds = (System.nanoTime() - back) / 1e9;
                assertTrue(seconds < 2.5, "seen " + seconds + " s after the server answered again");
            }
            List<String> warned = logLines().stream().filter(l -> l.contains("podgroups informer")).toList();
            assertTrue(warned.size() <= 2, "one warning for the outage (and one recovery line at INFO): " + warned);
            assertTrue(warned.stream().anyMatch(l -> l.matches("\\S+Z WARN .*")), "the outage was said: " + logLines());
            assertNoStackTrace();
        }
    }
}
