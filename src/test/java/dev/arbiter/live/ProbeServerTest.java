package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * No client can starve the probes (defect 6 of issue 14; item 2 of issue 34): neither clients that never finish their
 * request, nor ones that send a byte now and then, nor a thousand at once, nor a check that does not return.
 */
class ProbeServerTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static PrometheusMeterRegistry registry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    private static HttpResponse<String> get(MetricsServer http, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A connection that has sent a request line and one header, and never the blank line that ends the head. */
    private static Socket stalled(MetricsServer http) throws IOException {
        Socket s = new Socket("127.0.0.1", http.port());
        OutputStream out = s.getOutputStream();
        out.write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    @Test
    void clientsThatNeverFinishTheirHeadersDoNotBlockHealthz() throws Exception {
        try (MetricsServer http = new MetricsServer(0, registry(), () -> true, () -> true)) {
            List<Socket> stalled = new ArrayList<>();
            try {
                // More than the 32 handler threads the hand-made server had: each held one until its read timed out.
                for (int i = 0; i < 100; i++) stalled.add(stalled(http));
                HttpResponse<String> r = get(http, "/healthz");
                assertEquals(200, r.statusCode());
                assertTrue(r.body().startsWith("ok"));
            } finally {
                for (Socket s : stalled) s.close();
            }
        }
    }

    @Test
    void aThousandConcurrentConnectionsAreEachAnswered() throws Exception {
        try (MetricsServer http = new MetricsServer(0, registry(), () -> true, () -> true)) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 1000; i++) {
                    Socket s = new Socket("127.0.0.1", http.port());
                    s.setSoTimeout(10_000);
                    sockets.add(s);
                }
                for (Socket s : sockets) {
                    s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                }
                int answered = 0;
                for (Socket s : sockets) {
                    String answer;
                    try {
                        answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    } catch (IOException reset) {
                        answer = "";
                    }
                    if (answer.startsWith("HTTP/1.1 200")) answered++;
                }
                assertEquals(1000, answered, "connections answered 200");
            } finally {
                for (Socket s : sockets) s.close();
            }
        }
    }

    @Test
    void aClientTricklingItsRequestIsClosedAtTheRequestDeadline() throws Exception {
        try (MetricsServer http = new MetricsServer(0, registry(), () -> true, () -> true);
             Socket s = stalled(http)) {
            // One more header byte every 100 ms: a per-read timeout would never fire.
            CountDownLatch closed = new CountDownLatch(1);
            Thread trickle = new Thread(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    while (closed.getCount() > 0) {
                        out.write('x');
                        out.flush();
                        Thread.sleep(100);
                    }
                } catch (IOException | InterruptedException gone) {
                    // the server closed the connection, or the test ended
                }
            });
            trickle.setDaemon(true);
            trickle.start();
            long start = System.nanoTime();
            s.setSoTimeout(MetricsServer.REQUEST_DEADLINE_MILLIS + 5_000);
            InputStream in = s.getInputStream();
            try {
                assertEquals(-1, in.read(), "the server closes the connection without an answer");
            } catch (SocketTimeoutException e) {
                throw new AssertionError("still open " + (MetricsServer.REQUEST_DEADLINE_MILLIS + 5_000) + " ms later", e);
            } catch (IOException reset) {
                // closed by the server while bytes were in flight: a reset is a close too
            } finally {
                closed.countDown();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(seconds < MetricsServer.REQUEST_DEADLINE_MILLIS / 1000.0 + 2, "closed after " + seconds + " s");
        }
    }

    @Test
    void aCheckThatDoesNotReturnIsAnswered503AndTheOtherProbeStillAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        PrometheusMeterRegistry registry = registry();
        registry.counter("probe_test").increment();
        try (MetricsServer http = new MetricsServer(0, registry, () -> {
            try {
                release.await(); // as a check waiting on a lock an API call holds
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }, () -> true)) {
            HttpResponse<String> health = get(http, "/healthz");
            assertEquals(503, health.statusCode());
            assertTrue(health.body().contains("did not answer within"), health.body());
            assertEquals(200, get(http, "/readyz").statusCode());
            assertTrue(get(http, "/metrics").body().contains("probe_test_total 1.0"), "metrics still scraped");
        } finally {
            release.countDown();
        }
    }
}
