package dev.arbiter.live;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoints of a replica: {@code /metrics} (Prometheus text format), {@code /healthz} (200 while the process
 * should live; 503 once an informer has given up or no cycle finished within the deadline, so the kubelet restarts
 * the pod) and {@code /readyz} (200 once the informer caches have synced; a standby replica is ready too, it just
 * does not schedule), and with a shadow policy {@code /shadow} (its differences as JSON, beside {@code /metrics} and
 * behind the same authorization when secure; see {@link ShadowPolicy}).
 *
 * <p>Served by Vert.x (already on the class path for fabric8's HTTP client) on one event loop: a connection costs no
 * thread, so slow or idle clients cannot use up the handlers (the server this replaces gave each connection one of 32
 * threads, and 32 clients sending a byte every 2 s kept {@code /healthz} from answering). Limits, each per connection:
 * its request must be answered within {@value #REQUEST_DEADLINE_MILLIS} ms of the connection's opening, or the
 * connection is closed, however slowly bytes trickle in; at most {@value #MAX_CONNECTIONS} are open at once (more are
 * closed at once); a request head may hold {@value #MAX_HEADER_BYTES} bytes. Every answer closes its connection. The
 * checks and the scrape run off the event loop, and a check that does not answer within
 * {@value #CHECK_DEADLINE_MILLIS} ms is answered 503: a probe never waits on whatever the check waits on.
 */
public final class MetricsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    static final int MAX_CONNECTIONS = 4096;
    static final int REQUEST_DEADLINE_MILLIS = 5000;
    static final int CHECK_DEADLINE_MILLIS = 2000;
    private static final int MAX_HEADER_BYTES = 16 * 1024;

    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier healthy;
    private final BooleanSupplier ready;
    private final Vertx vertx;
    private final HttpServer server;
    private final InetAddress address;
    /** Connections open now; touched on the event loop only. */
    private int open;

    /** Binds {@code port} (0 picks a free one) on all interfaces and starts serving. */
    public MetricsServer(int port, PrometheusMeterRegistry registry, BooleanSupplier healthy, BooleanSupplier ready)
            throws IOException {
        this(new InetSocketAddress(port), registry, healthy, ready);
    }

    /** Binds {@code address} (e.g. {@code 127.0.0.1:8080}; port 0 picks a free one) and starts serving. */
    public MetricsServer(InetSocketAddress address, PrometheusMeterRegistry registry, BooleanSupplier healthy,
                         BooleanSupplier ready) throws IOException {
        this(address, registry, healthy, ready, Serving.PLAIN);
    }

    /**
     * What one server serves: {@link #PLAIN} all three paths over HTTP; with {@code --metrics-secure}, one server
     * {@link #secure} serves {@code /metrics} over HTTPS to callers the API server says may read it, and another
     * {@link #PROBES} the probes over HTTP (the kubelet's probes carry no token).
     */
    public record Serving(boolean metrics, boolean probes, io.vertx.core.net.PemKeyCertOptions tls, MetricsAuth auth) {
        public static final Serving PLAIN = new Serving(true, true, null, null);
        public static final Serving PROBES = new Serving(false, true, null, null);

        public static Serving secure(io.vertx.core.net.PemKeyCertOptions tls, MetricsAuth auth) {
            return new Serving(true, false, tls, auth);
        }
    }

    private final Serving serving;
    /** What {@code /shadow} serves (a shadow policy's JSON), or null: 404. */
    private volatile Supplier<String> shadow;

    /**
     * Serves {@code /shadow} (with {@code /metrics}, behind the same authorization when secure): the JSON
     * {@code json} gives, or 404 while it gives null (no shadow policy).
     */
    public MetricsServer serveShadow(Supplier<String> json) {
        shadow = json;
        return this;
    }

    /** Binds {@code address} and serves what {@code serving} says. */
    public MetricsServer(InetSocketAddress address, PrometheusMeterRegistry registry, BooleanSupplier healthy,
                         BooleanSupplier ready, Serving serving) throws IOException {
        this.serving = serving;
        this.registry = registry;
        this.healthy = healthy;
        this.ready = ready;
        this.address = address.getAddress();
        // One event loop is plenty for three GET paths; the workers run the checks and the scrape.
        // A check stuck for good is answered 503 (see offLoop), and /healthz then says why: Vert.x's own warning with a
        // stack trace every few seconds would add nothing, so it comes only after an hour.
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(4)
                .setBlockedThreadCheckInterval(TimeUnit.SECONDS.toMillis(10))
                .setMaxWorkerExecuteTime(1).setMaxWorkerExecuteTimeUnit(TimeUnit.HOURS));
        // Without HTTP/2 over clear text: its detection holds a connection back from connectionHandler until enough bytes
        // have come, so a client that sends nothing would never meet its deadline.
        HttpServerOptions options = new HttpServerOptions().setHttp2ClearTextEnabled(false).setMaxHeaderSize(MAX_HEADER_BYTES)
                .setMaxInitialLineLength(4096).setAcceptBacklog(1024).setReuseAddress(true);
        if (serving.tls() != null) options.setSsl(true).setKeyCertOptions(serving.tls());
        HttpServer s = vertx.createHttpServer(options);
        s.connectionHandler(this::opened);
        s.requestHandler(this::serve);
        try {
            this.server = s.listen(address.getPort(), address.getAddress().getHostAddress())
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            vertx.close();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        } catch (InterruptedException e) {
            vertx.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while binding " + address, e);
        } catch (TimeoutException e) {
            vertx.close();
            throw new IOException("could not bind " + address + " within 30 s", e);
        }
    }

    public int port() {
        return server.actualPort();
    }

    public InetAddress address() {
        return address;
    }

    /** On the event loop: counts the connection, closes it when too many are open, and arms its deadline. */
    private void opened(HttpConnection connection) {
        if (open >= MAX_CONNECTIONS) {
            connection.close();
            return;
        }
        open++;
        long deadline = vertx.setTimer(REQUEST_DEADLINE_MILLIS, id -> connection.close());
        connection.closeHandler(v -> {
            open--;
            vertx.cancelTimer(deadline);
        });
    }

    private void serve(HttpServerRequest request) {
        if (request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD) {
            reply(request, 405, "text/plain; charset=utf-8", "method not allowed\n");
            return;
        }
        String path = request.path();
        if ((path.equals("/metrics") || path.equals("/shadow")) && serving.metrics()) {
            java.util.function.Consumer<HttpServerRequest> answer = path.equals("/metrics") ? this::scrape : this::shadow;
            if (serving.auth() == null) {
                answer.accept(request);
                return;
            }
            String header = request.getHeader("Authorization");
            offLoop(() -> serving.auth().check(header)).onComplete(v -> {
                if (v.failed()) reply(request, 503, "text/plain; charset=utf-8", "no answer: " + v.cause().getMessage() + "\n");
                else if (v.result().code() == 200) answer.accept(request);
                else reply(request, v.result().code(), "text/plain; charset=utf-8", v.result().body());
            });
        } else if (path.equals("/healthz") && serving.probes()) {
            probe(request, healthy);
        } else if (path.equals("/readyz") && serving.probes()) {
            probe(request, ready);
        } else {
            reply(request, 404, "text/plain; charset=utf-8", "not found\n");
        }
    }

    private void scrape(HttpServerRequest request) {
        offLoop(registry::scrape).onComplete(r -> {
            if (r.succeeded()) reply(request, 200, "text/plain; version=0.0.4; charset=utf-8", r.result());
            else reply(request, 500, "text/plain; charset=utf-8", "scrape failed: " + r.cause() + "\n");
        });
    }

    private void shadow(HttpServerRequest request) {
        Supplier<String> json = shadow;
        offLoop(() -> json == null ? null : json.get()).onComplete(r -> {
            if (r.failed()) reply(request, 500, "text/plain; charset=utf-8", "shadow failed: " + r.cause() + "\n");
            else if (r.result() == null) reply(request, 404, "text/plain; charset=utf-8", "no shadow policy (arbiter run --shadow-rules DIR)\n");
            else reply(request, 200, "application/json; charset=utf-8", r.result());
        });
    }

    private void probe(HttpServerRequest request, BooleanSupplier check) {
        offLoop(check::getAsBoolean).onComplete(r -> {
            if (r.failed()) {
                reply(request, 503, "text/plain; charset=utf-8", "no answer: " + r.cause().getMessage() + "\n");
            } else {
                boolean ok = r.result();
                reply(request, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "not ready\n");
            }
        });
    }

    /**
     * Runs {@code work} on a worker, not in order with other requests; fails after {@value #CHECK_DEADLINE_MILLIS}
     * ms without an answer (the worker is left to finish by itself).
     */
    private <T> Future<T> offLoop(Supplier<T> work) {
        Promise<T> answer = Promise.promise();
        long timer = vertx.setTimer(CHECK_DEADLINE_MILLIS,
                id -> answer.tryFail("the check did not answer within " + CHECK_DEADLINE_MILLIS + " ms"));
        vertx.executeBlocking(work::get, false).onComplete(r -> {
            vertx.cancelTimer(timer);
            if (r.succeeded()) answer.tryComplete(r.result());
            else answer.tryFail(r.cause());
        });
        return answer.future();
    }

    private static void reply(HttpServerRequest request, int code, String type, String body) {
        var response = request.response();
        if (response.ended() || response.closed()) return;
        // Vert.x leaves the body out of an answer to HEAD itself, keeping its Content-Length.
        response.setStatusCode(code).putHeader("Content-Type", type).putHeader("Connection", "close").end(body);
    }

    @Override
    public void close() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("metrics server: close: {}", e.toString());
        }
    }
}
