package dev.arbiter.live;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoints of a replica: {@code /metrics} (Prometheus text format), {@code /healthz} (200 while the process
 * should live; 503 once an informer has given up or no cycle finished within the deadline, so the kubelet restarts
 * the pod) and {@code /readyz} (200 once the informer caches have synced; a standby replica is ready too, it just
 * does not schedule).
 *
 * <p>One slow client never blocks a probe: every connection is served by its own thread (up to
 * {@value #MAX_CONNECTIONS} at once; more are closed at once), a request must arrive within
 * {@value #READ_TIMEOUT_MILLIS} ms, and every answer closes its connection. A plain HTTP/1.1 server on a
 * {@link ServerSocket}: three GET paths need no more.
 */
public final class MetricsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    static final int MAX_CONNECTIONS = 32;
    static final int READ_TIMEOUT_MILLIS = 5000;
    private static final int MAX_HEADER_BYTES = 16 * 1024;

    private final ServerSocket socket;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier healthy;
    private final BooleanSupplier ready;
    private final ThreadPoolExecutor handlers;
    private final Thread acceptor;
    private volatile boolean closed;

    /** Binds {@code port} (0 picks a free one) on all interfaces and starts serving. */
    public MetricsServer(int port, PrometheusMeterRegistry registry, BooleanSupplier healthy, BooleanSupplier ready)
            throws IOException {
        this(new InetSocketAddress(port), registry, healthy, ready);
    }

    /** Binds {@code address} (e.g. {@code 127.0.0.1:8080}; port 0 picks a free one) and starts serving. */
    public MetricsServer(InetSocketAddress address, PrometheusMeterRegistry registry, BooleanSupplier healthy,
                         BooleanSupplier ready) throws IOException {
        this.registry = registry;
        this.healthy = healthy;
        this.ready = ready;
        this.socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(address, 64);
        this.handlers = new ThreadPoolExecutor(0, MAX_CONNECTIONS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, "arbiter-metrics");
                    t.setDaemon(true);
                    return t;
                });
        this.acceptor = new Thread(this::accept, "arbiter-metrics-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    public InetAddress address() {
        return socket.getInetAddress();
    }

    private void accept() {
        while (!closed) {
            Socket s;
            try {
                s = socket.accept();
            } catch (IOException e) {
                if (!closed) LOG.warn("metrics server: accept failed: {}", e.toString());
                continue;
            }
            try {
                handlers.execute(() -> serve(s));
            } catch (RejectedExecutionException busy) {
                closeQuietly(s);
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            s.setTcpNoDelay(true);
            String requestLine = readHead(s.getInputStream());
            if (requestLine == null) return;
            String[] parts = requestLine.split(" ");
            if (parts.length < 2) {
                reply(s.getOutputStream(), 400, "text/plain; charset=utf-8", "bad request\n", false);
                return;
            }
            String path = parts[1].replaceAll("\\?.*", "");
            boolean head = parts[0].equals("HEAD");
            if (!parts[0].equals("GET") && !head) {
                reply(s.getOutputStream(), 405, "text/plain; charset=utf-8", "method not allowed\n", false);
                return;
            }
            switch (path) {
                case "/metrics" -> reply(s.getOutputStream(), 200, "text/plain; version=0.0.4; charset=utf-8",
                        registry.scrape(), head);
                case "/healthz" -> probe(s.getOutputStream(), healthy, head);
                case "/readyz" -> probe(s.getOutputStream(), ready, head);
                default -> reply(s.getOutputStream(), 404, "text/plain; charset=utf-8", "not found\n", head);
            }
        } catch (SocketTimeoutException | SocketException slowOrGone) {
            // a client that does not finish its request in time is dropped
        } catch (IOException | RuntimeException e) {
            LOG.debug("metrics server: {}", e.toString());
        }
    }

    /** Reads the request line and headers (up to the blank line); returns the request line, or null at EOF. */
    private static String readHead(InputStream raw) throws IOException {
        InputStream in = new BufferedInputStream(raw);
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        String first = null;
        int total = 0;
        while (true) {
            int b = in.read();
            if (b < 0) return null;
            if (++total > MAX_HEADER_BYTES) throw new IOException("request head too large");
            if (b == '\n') {
                String text = line.toString(StandardCharsets.ISO_8859_1).replaceAll("\r$", "");
                line.reset();
                if (first == null) first = text;
                else if (text.isEmpty()) return first;
            } else {
                line.write(b);
            }
        }
    }

    private static void probe(OutputStream out, BooleanSupplier check, boolean head) throws IOException {
        boolean ok = check.getAsBoolean();
        reply(out, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "not ready\n", head);
    }

    private static void reply(OutputStream out, int code, String type, String body, boolean head) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String status = switch (code) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            default -> "Service Unavailable";
        };
        String headers = "HTTP/1.1 " + code + " " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                + bytes.length + "\r\nConnection: close\r\n\r\n";
        out.write(headers.getBytes(StandardCharsets.ISO_8859_1));
        if (!head) out.write(bytes);
        out.flush();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        handlers.shutdownNow();
        try {
            acceptor.join(Duration.ofSeconds(1).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
