package dev.arbiter.live;

import dev.arbiter.runtime.KubeClients;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers' failures, as a person reading the log needs them: one WARN line per informer per outage saying what
 * failed, e.g. {@code podgroups informer: https://10.0.0.1:6443: HTTP 429 Too Many Requests; retrying}, and one INFO
 * line when it lists and watches again, with no stack trace (fabric8's own Reflector logs one per attempt, and is
 * turned off in {@code simplelogger.properties}).
 *
 * <p>Two ways an outage shows: a list (or a watch's start) fails and fabric8 asks the informer's
 * {@link ExceptionHandler} whether to retry, which says at once; or a watch drops and fabric8 reconnects it by
 * itself, which a check every {@value #CHECK_MILLIS} ms notices once the watch has been down for
 * {@value #QUIET_MILLIS} ms (watches also end and reopen routinely, and that is not an outage).
 *
 * <p>Retry policy ({@link #handler}): everything is retried except a first list that the server refuses for good
 * (401, 403, 404: credentials, RBAC, a missing CRD), which stops that informer so that the start fails with one line.
 */
final class Outages implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Outages.class);
    static final long CHECK_MILLIS = 250;
    static final long QUIET_MILLIS = 2000;

    private final String server;
    private final BooleanSupplier closed;
    private final Map<String, State> states = new ConcurrentHashMap<>();
    private final ScheduledExecutorService checker;

    /** One informer's outage, if any. Guarded by itself. */
    private static final class State {
        final SharedIndexInformer<?> informer;
        boolean everWatched;
        long downSince;
        int failures;
        boolean warned;

        State(SharedIndexInformer<?> informer) {
            this.informer = informer;
        }
    }

    Outages(String server, BooleanSupplier closed) {
        this.server = server;
        this.closed = closed;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "arbiter-informer-outages");
            th.setDaemon(true);
            return th;
        });
        t.scheduleWithFixedDelay(this::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        this.checker = t;
    }

    /** The exception handler of informer {@code name} ("pods", "podgroups", ...). */
    ExceptionHandler handler(String name, SharedIndexInformer<?> informer) {
        State state = states.computeIfAbsent(name, n -> new State(informer));
        return (started, failure) -> {
            if (closed.getAsBoolean()) return false;
            int code = code(failure);
            if (!started && (code == 401 || code == 403 || code == 404)) {
                LOG.atError().addKeyValue("informer", name).log("{} informer: {}; stopping", name, describe(failure));
                return false;
            }
            synchronized (state) {
                state.failures++;
                if (state.downSince == 0) state.downSince = System.nanoTime();
                if (!state.warned) {
                    state.warned = true;
                    LOG.atWarn().addKeyValue("informer", name).log("{} informer: {}; retrying", name, describe(failure));
                }
            }
            return true;
        };
    }

    /** Notices watches down for a while, and informers watching again after an outage. */
    private void check() {
        long now = System.nanoTime();
        states.forEach((name, state) -> {
            boolean watching = state.informer.isWatching();
            synchronized (state) {
                if (watching) {
                    if (state.warned) {
                        LOG.atInfo().addKeyValue("informer", name)
                                .log("{} informer: listing and watching again after {} s ({} failed attempts)", name,
                                String.format("%.1f", (now - state.downSince) / 1e9), state.failures);
                    }
                    state.everWatched = true;
                    state.downSince = 0;
                    state.failures = 0;
                    state.warned = false;
                } else if (state.everWatched && !closed.getAsBoolean()) {
                    if (state.downSince == 0) state.downSince = now;
                    if (!state.warned && now - state.downSince > TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
                        state.warned = true;
                        LOG.atWarn().addKeyValue("informer", name).log("{} informer: watch on {} lost for {} s; reconnecting", name,
                                server.replaceAll("/+$", ""), QUIET_MILLIS / 1000);
                    }
                }
            }
        });
    }

    /** One line: the HTTP status when there is one (a watch's failure wraps it), else the cause. */
    private String describe(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() > 0) return KubeClients.describe(k, server);
        }
        return KubeClients.describe(failure, server);
    }

    private static int code(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() > 0) return k.getCode();
        }
        return 0;
    }

    @Override
    public void close() {
        checker.shutdownNow();
    }
}
