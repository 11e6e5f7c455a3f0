package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, items 1 and 6, on a real {@code arbiter run} process: while an informer's first list is refused (429) and
 * then never answered, the process lives on, and its probes answer at once: {@code /healthz} 200 (a restart would not
 * help), {@code /readyz} 503 (not synced). A stand-in API server, as a real one cannot be made to hang one list.
 * Before issue 32 the 429 ended {@code run} (exit 1, a 61-line trace), and the probes waited on the lock that
 * {@code ClusterCache.start()} held through the first lists.
 */
class StartUpProbesTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    @Test
    void whileAFirstListIsRefusedThenHangsTheProcessLivesAndItsProbesAnswerAtOnce() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO)) {
            api.create("nodes", Map.of("metadata", Map.of("name", "node-1"),
                    "status", Map.of("allocatable", Map.of("cpu", "8", "memory", "32Gi", "pods", "110"))));
            // PodGroup lists: the access check's (the first) passes; the informer's first list is refused with 429
            // once, and then hangs.
            AtomicInteger lists = new AtomicInteger();
            api.inject(call -> {
                if (!call.category().equals("GET podgroups list")) return null;
                int n = lists.incrementAndGet();
                if (n == 1) return null;
                return n == 2 ? StandInApiServer.Fault.fail(429) : StandInApiServer.Fault.hang();
            });
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(kubeconfig, api.kubeconfig());
            try (ChildProcess run = ChildProcess.arbiter(dir, "run", "--kubeconfig", kubeconfig.toString(), "--rules", "rules",
                    "--metrics-port", String.valueOf(port), "--metrics-bind-address", "127.0.0.1")) {
                await("the informer's list hangs", () -> lists.get() >= 3, Duration.ofSeconds(60));
                for (int i = 0; i < 5; i++) {
                    long t0 = System.nanoTime();
                    assertEquals(200, get(port, "/healthz"), "/healthz while a first list hangs");
                    assertEquals(503, get(port, "/readyz"), "/readyz before the caches synced");
                    double took = (System.nanoTime() - t0) / 1e9;
                    assertTrue(took < 1, "both probes answered in " + took + " s");
                }
                assertTrue(run.isAlive(), "run ended:\n" + run.stderr());
                String log = run.stderr();
                assertTrue(log.contains("podgroups informer") && log.contains("429") && log.contains("retrying"),
                        "one line says the refused list is retried:\n" + log);
                assertTrue(!log.contains("\tat "), "no stack trace:\n" + log);
            }
        }
    }

    private static int get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(3))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
