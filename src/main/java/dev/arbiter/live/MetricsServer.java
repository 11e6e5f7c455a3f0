package dev.arbiter.live;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The HTTP endpoints of a replica: {@code /metrics} (Prometheus text format), {@code /healthz} (200 while the
 * informers run; 503 once one has given up, so the kubelet restarts the pod) and {@code /readyz} (200 once the informer caches have synced; a standby
 * replica is ready too, it just does not schedule).
 */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;

    /** Binds {@code port} (0 picks a free one) on all interfaces and starts serving. */
    public MetricsServer(int port, PrometheusMeterRegistry registry, BooleanSupplier healthy, BooleanSupplier ready)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        server.createContext("/metrics", ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry::scrape));
        server.createContext("/healthz", ex -> probe(ex, healthy));
        server.createContext("/readyz", ex -> probe(ex, ready));
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "arbiter-metrics");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void probe(HttpExchange ex, BooleanSupplier check) throws IOException {
        boolean ok = check.getAsBoolean();
        reply(ex, ok ? 200 : 503, "text/plain; charset=utf-8", () -> ok ? "ok\n" : "not ready\n");
    }

    private static void reply(HttpExchange ex, int code, String type, Supplier<String> body) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", type);
            ex.sendResponseHeaders(code, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
