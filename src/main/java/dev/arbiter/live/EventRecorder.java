package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import io.fabric8.kubernetes.api.model.Status;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events, off the decision loop and off the binders: {@link #record} never blocks and never fails; one
 * sender thread writes what was recorded, in order, the way client-go's event correlator does:
 * <ul>
 *   <li><b>Aggregated.</b> An event identical to one sent in the last 10 minutes (same object, type, reason and
 *       message) increments that Event's {@code count} (a PATCH) instead of creating a new one. After
 *       {@value #SIMILAR_LIMIT} events of the same object, type and reason with different messages within 10 minutes,
 *       the rest are combined into one Event, "(combined from similar events): ...".</li>
 *   <li><b>Rate-limited.</b> Per object and event type, a burst of {@value #PER_OBJECT_BURST} then one event every 5
 *       minutes (a pod that flaps cannot flood the API), as client-go's {@code EventSourceObjectSpamFilter} (whose key
 *       is the source, the object and the type); overall, {@code qps} events per second with a burst of
 *       {@code burst}. Both are {@link TokenBucket}s.</li>
 *   <li><b>Retried.</b> A write the API server refuses for now (429, 5xx, no answer) is retried after 200 ms, then
 *       twice as long each time up to 5 s, or after the server's {@code Retry-After} ({@code details.retryAfterSeconds}
 *       of its Status) when longer, {@value #ATTEMPTS} attempts in all ({@code outcome="retried"} per retry); other
 *       refusals are not ({@code outcome="failed"}). The sender waits meanwhile: a server asking for less traffic
 *       gets less.</li>
 *   <li><b>Bounded.</b> At most {@code queueSize} events wait; a new event that finds the queue full pushes out the
 *       oldest waiting one, which is counted ({@code arbiter_events_total{outcome="dropped"}}), so a burst of bindings
 *       never waits on events and what is reported is recent.</li>
 * </ul>
 * Events are best effort, as in Kubernetes: what still fails after the retries is dropped.
 */
final class EventRecorder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    static final int SIMILAR_LIMIT = 10;
    static final int PER_OBJECT_BURST = 25;
    private static final long WINDOW_NANOS = Duration.ofMinutes(10).toNanos();
    /** client-go's {@code defaultSpamQPS}: one event per object every 5 minutes once the burst is spent. */
    private static final double PER_OBJECT_PER_SECOND = 1.0 / 300;
    private static final int REMEMBERED = 4096;
    static final int ATTEMPTS = 6;
    private static final long FIRST_RETRY_MILLIS = 200;
    private static final long MAX_RETRY_MILLIS = 5000;

    /** Global limits: {@code qps} events per second, bursts of {@code burst}, at most {@code queueSize} waiting. */
    record Limits(double qps, int burst, int queueSize) {
        Limits {
            if (qps <= 0 || burst < 1 || queueSize < 1) throw new IllegalArgumentException("event limits must be positive");
        }

        /** kube-scheduler's client defaults: 50 per second, bursts of 100; 4,096 waiting. */
        static Limits standard() {
            return new Limits(50, 100, 4096);
        }
    }

    /** The object an event is about. {@code namespace} is null for cluster-scoped objects. */
    record Involved(String apiVersion, String kind, String namespace, String name, String uid) {
        static Involved pod(String key, String uid) {
            String[] id = key.split("/", 2);
            return new Involved("v1", "Pod", id[0], id[1], uid);
        }

        String key() {
            return kind + " " + (namespace == null ? "" : namespace + "/") + name;
        }

        String eventNamespace() {
            return namespace == null ? "default" : namespace;
        }
    }

    private record Pending(Involved object, String type, String reason, String message) {}

    private record Sent(String name, String namespace, int count, long atNanos) {}

    private record Similar(int count, long sinceNanos) {}

    private final ApiCalls api;
    private final Metrics metrics;
    private final String component;
    private final String instance;
    private final Limits limits;
    private final BlockingDeque<Pending> queue;
    private final Map<String, TokenBucket> perObject = lru();
    private final Map<String, Sent> sent = lru();
    private final Map<String, Similar> similar = lru();
    private final TokenBucket global;
    private final AtomicLong seq = new AtomicLong();
    private final Thread sender;
    private volatile boolean closing;
    private volatile long flushDeadline = Long.MAX_VALUE;

    EventRecorder(ApiCalls api, Metrics metrics, String component, String instance, Limits limits) {
        this.api = api;
        this.metrics = metrics;
        this.component = component;
        this.instance = instance;
        this.limits = limits;
        this.queue = new LinkedBlockingDeque<>(limits.queueSize());
        this.global = new TokenBucket(limits.burst(), limits.qps(), System.nanoTime());
        this.sender = new Thread(this::run, "arbiter-events");
        sender.setDaemon(true);
        sender.start();
    }

    /**
     * Queues an event; false (and counted) when the per-object limit refused it. A full queue drops its oldest event
     * (counted) to make room.
     */
    boolean record(Involved object, String type, String reason, String message) {
        if (closing) return false;
        if (!perObjectAllows(object.key() + "\u0000" + type)) {
            metrics.event("throttled");
            return false;
        }
        Pending p = new Pending(object, type, reason, message);
        while (!queue.offerLast(p)) {
            if (queue.pollFirst() != null) metrics.event("dropped");
        }
        return true;
    }

    /** Events waiting to be sent. */
    int waiting() {
        return queue.size();
    }

    /** client-go's {@code EventSourceObjectSpamFilter}: one bucket per object and event type, the last 4,096 kept. */
    private boolean perObjectAllows(String key) {
        long now = System.nanoTime();
        synchronized (perObject) {
            return perObject.computeIfAbsent(key, k -> new TokenBucket(PER_OBJECT_BURST, PER_OBJECT_PER_SECOND, now)).tryTake(now);
        }
    }

    private void run() {
        try {
            while (!closing || (!queue.isEmpty() && System.nanoTime() < flushDeadline)) {
                Pending p = queue.poll(100, TimeUnit.MILLISECONDS);
                if (p == null) continue;
                if (!takeGlobalToken()) {
                    metrics.event("dropped");
                    continue;
                }
                send(p);
            }
        } catch (InterruptedException stopping) {
            // closed
        } catch (RuntimeException e) {
            LOG.warn("event sender stopped: {}", e.toString());
        }
    }

    /** Waits for a token of the global bucket; false when closing and the flush deadline would pass. */
    private boolean takeGlobalToken() throws InterruptedException {
        while (true) {
            long now = System.nanoTime();
            if (global.tryTake(now)) return true;
            long waitNanos = global.nanosUntilToken(now);
            if (closing && now + waitNanos > flushDeadline) return false;
            TimeUnit.NANOSECONDS.sleep(Math.max(waitNanos, 100_000));
        }
    }

    private void send(Pending p) {
        long now = System.nanoTime();
        String similarKey = p.object().key() + "\u0000" + p.type() + "\u0000" + p.reason();
        String message = p.message();
        Similar s = similar.get(similarKey);
        s = s == null || now - s.sinceNanos() > WINDOW_NANOS ? new Similar(1, now) : new Similar(s.count() + 1, s.sinceNanos());
        similar.put(similarKey, s);
        if (s.count() > SIMILAR_LIMIT) message = "(combined from similar events): " + message;
        String sameKey = similarKey + "\u0000" + message;
        Sent before = sent.get(sameKey);
        String ts = Instant.now().toString();
        if (before != null && now - before.atNanos() < WINDOW_NANOS) {
            Map<String, Object> patch = new LinkedHashMap<>();
            patch.put("count", before.count() + 1);
            patch.put("lastTimestamp", ts);
            patch.put("message", message);
            ApiOutcome o = withRetries(() -> api.exchange("PATCH", "/api/v1/namespaces/" + before.namespace() + "/events/"
                    + before.name(), api.json().asJson(patch), api.timeout()));
            if (o.ok()) {
                sent.put(sameKey, new Sent(before.name(), before.namespace(), before.count() + 1, before.atNanos()));
                metrics.event("aggregated");
                return;
            }
            if (!o.notFound()) {
                metrics.event("failed");
                LOG.debug("event {} on {} not aggregated: {}", p.reason(), p.object().key(), o);
                return;
            }
        }
        Involved obj = p.object();
        String name = obj.name() + "." + Long.toHexString(System.currentTimeMillis()) + Long.toHexString(seq.incrementAndGet());
        Event ev = new EventBuilder()
                .withNewMetadata().withNamespace(obj.eventNamespace()).withName(name).endMetadata()
                .withNewInvolvedObject().withApiVersion(obj.apiVersion()).withKind(obj.kind()).withNamespace(obj.namespace())
                .withName(obj.name()).withUid(obj.uid()).endInvolvedObject()
                .withType(p.type()).withReason(p.reason()).withMessage(message)
                .withFirstTimestamp(ts).withLastTimestamp(ts).withCount(1)
                .withNewSource().withComponent(component).endSource()
                .withReportingComponent(component).withReportingInstance(instance)
                .build();
        ApiOutcome o = withRetries(() -> api.exchange("POST", "/api/v1/namespaces/" + obj.eventNamespace() + "/events",
                api.json().asJson(ev), api.timeout()));
        if (o.ok()) {
            sent.put(sameKey, new Sent(name, obj.eventNamespace(), 1, now));
            metrics.event("sent");
        } else {
            metrics.event("failed");
            LOG.debug("event {} on {} not recorded: {}", p.reason(), obj.key(), o);
        }
    }

    /**
     * Sends until the server accepts, refuses for good, or {@value #ATTEMPTS} attempts were made; waits between
     * attempts as the class comment says. Gives up at once when closing, or when the writes are paused.
     */
    private ApiOutcome withRetries(java.util.function.Supplier<ApiCalls.Answer> call) {
        long wait = FIRST_RETRY_MILLIS;
        ApiCalls.Answer a = call.get();
        for (int attempt = 1; attempt < ATTEMPTS && a.outcome().retryable() && a.outcome().code() != 409
                && !api.isClosed() && !closing; attempt++) {
            long millis = Math.max(wait, retryAfterMillis(a));
            metrics.event("retried");
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return a.outcome();
            }
            wait = Math.min(wait * 2, MAX_RETRY_MILLIS);
            a = call.get();
        }
        return a.outcome();
    }

    /** The server's {@code details.retryAfterSeconds} in a refusal's Status, in ms (0 when it gave none). */
    private long retryAfterMillis(ApiCalls.Answer a) {
        if (a.body() == null || a.body().isBlank()) return 0;
        try {
            Status s = api.json().unmarshal(a.body(), Status.class);
            Integer seconds = s.getDetails() == null ? null : s.getDetails().getRetryAfterSeconds();
            return seconds == null ? 0 : Math.min(TimeUnit.SECONDS.toMillis(seconds), MAX_RETRY_MILLIS * 6);
        } catch (RuntimeException notStatus) {
            return 0;
        }
    }

    /**
     * Stops taking events and gives the sender until {@code flush} to write what is queued (within the global rate);
     * the rest is dropped.
     */
    void close(Duration flush) {
        flushDeadline = System.nanoTime() + flush.toNanos();
        closing = true;
        try {
            sender.join(Math.max(1, flush.toMillis() + 200));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sender.interrupt();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(2));
    }

    private static <V> Map<String, V> lru() {
        return new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > REMEMBERED;
            }
        };
    }
}
