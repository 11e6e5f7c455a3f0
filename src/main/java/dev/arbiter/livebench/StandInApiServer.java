package dev.arbiter.livebench;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Kubernetes API server stand-in on 127.0.0.1, enough for {@code arbiter run}: list, watch (HTTP streaming and
 * WebSocket), get, create, replace, patch (JSON patch and merge patch) and delete for Pods, Nodes, Events,
 * PriorityClasses, Leases and Volcano's Queues and PodGroups; the {@code pods/binding} and {@code pods/eviction}
 * subresources; and {@code status} subresources. It stands in for the kubelet too: a bound pod is Running at once.
 *
 * <p>It is not a conformance model. It checks resource versions on replace and on a merge patch that names one (409 on a
 * stale write, which leader election needs) and answers a second binding of a pod with 409 "already assigned", as the real API server does; it
 * does not validate objects, apply admission, or honour field or label selectors.
 *
 * <p>What a benchmark or a test sets: a {@linkplain #latency(Duration) round-trip latency} (half before the request is
 * processed, half before the answer is sent; watch events are delivered after half of it), scripted
 * {@linkplain #inject faults} per call (fail, apply-then-fail, hang), and what it observes: requests counted by kind
 * ({@link #requestCounts()}), and when each pod was created and bound ({@link #onBinding}).
 *
 * <p>Built on Vert.x (already on the class path through fabric8's HTTP client); TCP_NODELAY is on, so keep-alive
 * requests do not wait for delayed ACKs. Thread-safe.
 */
public final class StandInApiServer implements AutoCloseable {
    /** What an {@linkplain #inject injected} fault does to one request. */
    public enum Action {
        /** Answer normally. */
        PROCEED,
        /** Answer {@code code} without applying the request. */
        FAIL,
        /** Apply the request, then answer {@code code} (a response lost after the server acted). */
        APPLY_THEN_FAIL,
        /** Never answer (the connection stays open until the client gives up or the server closes). */
        HANG
    }

    /** An injected outcome for one request. */
    public record Fault(Action action, int code) {
        public static Fault fail(int code) {
            return new Fault(Action.FAIL, code);
        }

        public static Fault applyThenFail(int code) {
            return new Fault(Action.APPLY_THEN_FAIL, code);
        }

        public static Fault hang() {
            return new Fault(Action.HANG, 0);
        }
    }

    /**
     * One request as the fault script sees it: e.g. {@code POST pods/binding team/p1}. {@code resource} is the plural
     * ("pods", "podgroups"), {@code subresource} null or "binding", "eviction", "status"; {@code name} null for
     * collections.
     */
    public record Call(String method, String resource, String subresource, String namespace, String name, boolean watch) {
        public String key() {
            return namespace == null ? name : namespace + "/" + name;
        }

        /** The counting category, e.g. {@code "POST pods/binding"} or {@code "GET pods watch"}. */
        public String category() {
            return method + " " + resource + (subresource == null ? "" : "/" + subresource) + (watch ? " watch" : "")
                    + (!watch && name == null && method.equals("GET") ? " list" : "");
        }
    }

    /** A binding the server applied: the pod, its node, and when (System.nanoTime) it was created and bound. */
    public record Bound(String pod, String node, long createdNanos, long boundNanos) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Vertx vertx;
    private final HttpServer server;
    private final Map<String, Kind> kinds = new LinkedHashMap<>();
    private final AtomicLong resourceVersion = new AtomicLong(1000);
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<String, Long> createdNanos = new ConcurrentHashMap<>();
    private final List<Consumer<Bound>> bindListeners = new CopyOnWriteArrayList<>();
    private volatile long latencyNanos;
    private volatile Function<Call, Fault> faults = c -> null;

    private StandInApiServer(Duration latency) {
        this.latencyNanos = latency.toNanos();
        register("", "v1", "pods", "Pod", true, true);
        register("", "v1", "nodes", "Node", false, true);
        register("", "v1", "namespaces", "Namespace", false, true);
        register("", "v1", "events", "Event", true, false);
        register("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, true);
        register("scheduling.volcano.sh", "v1beta1", "queues", "Queue", false, true);
        register("scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true, true);
        register("topology.volcano.sh", "v1alpha1", "hypernodes", "HyperNode", false, true);
        register("coordination.k8s.io", "v1", "leases", "Lease", true, true);
        this.vertx = Vertx.vertx();
        nameThreads(vertx);
        this.server = vertx.createHttpServer(new HttpServerOptions().setTcpNoDelay(true).setHost("127.0.0.1")
                .setPort(0).setIdleTimeout(0).setMaxWebSocketFrameSize(1 << 20));
        server.requestHandler(this::handle);
    }

    /**
     * Names the stand-in's event loops (and acceptor) {@code standin-N}, so that a CPU profile or {@link CpuSplit} can
     * tell them from the scheduler client's own Vert.x event loops in the same JVM.
     */
    private static void nameThreads(Vertx vertx) {
        io.vertx.core.internal.VertxInternal internal = (io.vertx.core.internal.VertxInternal) vertx;
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        for (io.netty.channel.EventLoopGroup group : List.of(internal.eventLoopGroup(), internal.acceptorEventLoopGroup())) {
            for (io.netty.util.concurrent.EventExecutor loop : group) {
                loop.execute(() -> Thread.currentThread().setName("standin-" + n.incrementAndGet()));
            }
        }
    }

    /** Starts a stand-in on a free port of 127.0.0.1 with the given round-trip latency. */
    public static StandInApiServer start(Duration latency) {
        StandInApiServer s = new StandInApiServer(latency);
        try {
            s.server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            s.close();
            throw new IllegalStateException("cannot start the API stand-in: " + e, e);
        }
        return s;
    }

    /** The base URL, e.g. {@code http://127.0.0.1:41233}. */
    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    /** A kubeconfig (YAML) that points a client at this server without TLS or credentials. */
    public String kubeconfig() {
        return """
                apiVersion: v1
                kind: Config
                clusters: [{name: standin, cluster: {server: "%s"}}]
                users: [{name: bench, user: {token: standin}}]
                contexts: [{name: standin, context: {cluster: standin, user: bench, namespace: default}}]
                current-context: standin
                """.formatted(url());
    }

    public void latency(Duration d) {
        latencyNanos = d.toNanos();
    }

    /** Scripts faults: {@code script} sees every request and returns a fault, or null to answer normally. */
    public void inject(Function<Call, Fault> script) {
        faults = script == null ? c -> null : script;
    }

    /**
     * Ends every open watch on {@code resource} (plural) as a restarting API server does: the connections close, and
     * clients reconnect (meeting whatever {@link #inject} scripts for them).
     */
    public void endWatches(String resource) {
        for (Kind k : kinds.values()) {
            if (!k.plural.equals(resource)) continue;
            List<Watch> open;
            synchronized (k) {
                open = new ArrayList<>(k.watches);
                k.watches.clear();
            }
            for (Watch w : open) w.context.runOnContext(v -> w.end.run());
        }
    }

    /** Called (on a server thread) for every binding the server applies. */
    public void onBinding(Consumer<Bound> listener) {
        bindListeners.add(listener);
    }

    /** Requests received so far, by {@link Call#category()}. */
    public Map<String, Long> requestCounts() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public long requests(String category) {
        LongAdder a = counts.get(category);
        return a == null ? 0 : a.sum();
    }

    // ---- objects, in process ------------------------------------------------------------------------------------

    /**
     * Creates an object of {@code resource} (plural, e.g. "pods", "podgroups") as a client's POST would, without the
     * HTTP round trip; returns the stored object. Fills in uid, creationTimestamp and resourceVersion.
     */
    public Map<String, Object> create(String resource, Map<String, Object> object) {
        Kind k = kind(resource);
        Reply r = k.create(null, deepCopy(object));
        if (r.code() >= 300) throw new IllegalStateException(resource + ": " + r.message());
        return r.object();
    }

    /** The stored object ({@code ns/name} or name), a copy; null when absent. */
    public Map<String, Object> get(String resource, String key) {
        Kind k = kind(resource);
        synchronized (k) {
            Map<String, Object> o = k.objects.get(key);
            return o == null ? null : deepCopy(o);
        }
    }

    /** Every stored object of {@code resource}, copies. */
    public List<Map<String, Object>> list(String resource) {
        Kind k = kind(resource);
        synchronized (k) {
            List<Map<String, Object>> out = new ArrayList<>();
            for (Map<String, Object> o : k.objects.values()) out.add(deepCopy(o));
            return out;
        }
    }

    /** Deletes the object, as a client's DELETE would; false when it did not exist. */
    public boolean delete(String resource, String key) {
        Kind k = kind(resource);
        return k.delete(key).code() < 300;
    }

    /** Replaces the object through {@code edit} (given a copy), as a client's update would. */
    public Map<String, Object> edit(String resource, String key, java.util.function.UnaryOperator<Map<String, Object>> edit) {
        Kind k = kind(resource);
        synchronized (k) {
            Map<String, Object> current = k.objects.get(key);
            if (current == null) throw new IllegalStateException(resource + " " + key + " not found");
            return k.store(key, edit.apply(deepCopy(current)), "MODIFIED");
        }
    }

    private Kind kind(String resource) {
        for (Kind k : kinds.values()) if (k.plural.equals(resource)) return k;
        throw new IllegalArgumentException("the stand-in has no resource " + resource);
    }

    @Override
    public void close() {
        try {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // closing anyway
        }
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    // ---- HTTP ----------------------------------------------------------------------------------------------------

    private record Path(Kind kind, String namespace, String name, String subresource) {}

    private record Reply(int code, Map<String, Object> object, String message) {
        static Reply ok(int code, Map<String, Object> object) {
            return new Reply(code, object, null);
        }

        static Reply error(int code, String reason, String message) {
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("apiVersion", "v1");
            status.put("kind", "Status");
            status.put("status", "Failure");
            status.put("message", message);
            status.put("reason", reason);
            status.put("code", code);
            return new Reply(code, status, message);
        }

        static Reply success(int code) {
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("apiVersion", "v1");
            status.put("kind", "Status");
            status.put("status", "Success");
            status.put("code", code);
            return new Reply(code, status, null);
        }
    }

    private void handle(HttpServerRequest req) {
        String uri = req.path();
        if (uri.equals("/version")) {
            respond(req, Reply.ok(200, new LinkedHashMap<>(Map.of("major", "1", "minor", "32",
                    "gitVersion", "v1.32.0-arbiter-standin"))));
            return;
        }
        Path path = parse(uri);
        if (path == null) {
            respond(req, Reply.error(404, "NotFound", "the server could not find the requested resource " + uri));
            return;
        }
        boolean watch = "true".equals(req.getParam("watch")) || "1".equals(req.getParam("watch"));
        Call call = new Call(req.method().name(), path.kind().plural, path.subresource(), path.namespace(), path.name(), watch);
        counts.computeIfAbsent(call.category(), k -> new LongAdder()).increment();
        Fault fault = faults.apply(call);
        if (fault != null && fault.action() == Action.HANG) return; // never answered
        if (watch) {
            if (fault != null && fault.action() == Action.FAIL) respond(req, Reply.error(fault.code(), "Injected", "injected failure"));
            else watch(req, path);
            return;
        }
        req.body().onSuccess(body -> later(latencyNanos / 2, () -> {
            Reply reply;
            if (fault != null && fault.action() == Action.FAIL) {
                reply = Reply.error(fault.code(), "Injected", "injected failure on " + call.category() + " " + call.key());
            } else {
                try {
                    reply = apply(req, path, body);
                } catch (RuntimeException e) {
                    reply = Reply.error(400, "BadRequest", String.valueOf(e.getMessage()));
                }
                if (fault != null && fault.action() == Action.APPLY_THEN_FAIL) {
                    reply = Reply.error(fault.code(), "Injected", "injected failure after applying " + call.category());
                }
            }
            Reply answer = reply;
            later(latencyNanos - latencyNanos / 2, () -> respond(req, answer));
        }));
    }

    /** Runs {@code r} after {@code nanos} on the current context (at once when 0). */
    private void later(long nanos, Runnable r) {
        long millis = Math.round(nanos / 1e6);
        if (millis <= 0) r.run();
        else vertx.setTimer(millis, id -> r.run());
    }

    private static void respond(HttpServerRequest req, Reply reply) {
        HttpServerResponse resp = req.response();
        if (resp.closed() || resp.ended()) return;
        resp.setStatusCode(reply.code()).putHeader("Content-Type", "application/json");
        resp.end(Buffer.buffer(JSON.writeValueAsBytes(reply.object())));
    }

    private Path parse(String uri) {
        String[] p = uri.split("/");
        // "", "api", "v1", ...  or  "", "apis", group, version, ...
        int i;
        String group;
        if (p.length >= 4 && p[1].equals("api") && p[2].equals("v1")) {
            group = "";
            i = 3;
        } else if (p.length >= 5 && p[1].equals("apis")) {
            group = p[2];
            i = 4;
        } else {
            return null;
        }
        String namespace = null;
        if (p.length > i + 1 && p[i].equals("namespaces") && p.length > i + 2) {
            namespace = p[i + 1];
            i += 2;
        }
        if (p.length <= i) return null;
        Kind k = kinds.get(group + "/" + p[i]);
        if (k == null) return null;
        String name = p.length > i + 1 ? p[i + 1] : null;
        String sub = p.length > i + 2 ? p[i + 2] : null;
        return new Path(k, namespace, name, sub);
    }

    private Reply apply(HttpServerRequest req, Path path, Buffer body) {
        Kind k = path.kind();
        String key = path.name() == null ? null : (path.namespace() == null ? path.name() : path.namespace() + "/" + path.name());
        String method = req.method().name();
        if (path.name() == null) {
            if (method.equals("GET")) return Reply.ok(200, k.list(path.namespace()));
            if (method.equals("POST")) return k.create(path.namespace(), readMap(body));
            return Reply.error(405, "MethodNotAllowed", method + " on a collection");
        }
        if ("binding".equals(path.subresource()) && method.equals("POST")) return bind(key, readMap(body));
        if ("eviction".equals(path.subresource()) && method.equals("POST")) return evict(key);
        switch (method) {
            case "GET": {
                synchronized (k) {
                    Map<String, Object> o = k.objects.get(key);
                    return o == null ? notFound(k, path.name()) : Reply.ok(200, o);
                }
            }
            case "PUT":
                return k.replace(key, readMap(body), path.subresource());
            case "PATCH":
                return k.patch(key, body, String.valueOf(req.getHeader("Content-Type")), path.subresource());
            case "DELETE":
                return k.delete(key);
            default:
                return Reply.error(405, "MethodNotAllowed", method);
        }
    }

    private static Reply notFound(Kind k, String name) {
        return Reply.error(404, "NotFound", k.plural + " \"" + name + "\" not found");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readMap(Buffer body) {
        if (body == null || body.length() == 0) return new LinkedHashMap<>();
        return JSON.readValue(body.getBytes(), LinkedHashMap.class);
    }

    /** The binding subresource: 409 when the pod is already on a node, else sets the node (and Running). */
    @SuppressWarnings("unchecked")
    private Reply bind(String key, Map<String, Object> binding) {
        Kind pods = kinds.get("/pods");
        Object target = binding.get("target") instanceof Map<?, ?> t ? ((Map<String, Object>) t).get("name") : null;
        if (target == null) return Reply.error(400, "BadRequest", "binding without target.name");
        Bound bound;
        synchronized (pods) {
            Map<String, Object> pod = pods.objects.get(key);
            if (pod == null) return notFound(pods, key);
            Object node = map(pod, "spec").get("nodeName");
            if (node != null) {
                return Reply.error(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + name(key)
                        + "\": pod " + name(key) + " is already assigned to node \"" + node + "\"");
            }
            Map<String, Object> updated = deepCopy(pod);
            map(updated, "spec").put("nodeName", target.toString());
            Map<String, Object> status = map(updated, "status");
            status.put("phase", "Running");
            status.put("startTime", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
            pods.store(key, updated, "MODIFIED");
            Long created = createdNanos.get(key);
            bound = new Bound(key, target.toString(), created == null ? System.nanoTime() : created, System.nanoTime());
        }
        for (Consumer<Bound> l : bindListeners) l.accept(bound);
        return Reply.success(201);
    }

    private Reply evict(String key) {
        Kind pods = kinds.get("/pods");
        Reply r = pods.delete(key);
        return r.code() < 300 ? Reply.success(201) : r;
    }

    private static String name(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? key : key.substring(slash + 1);
    }

    // ---- watches ---------------------------------------------------------------------------------------------------

    private void watch(HttpServerRequest req, Path path) {
        Kind k = path.kind();
        String rv = req.getParam("resourceVersion");
        String timeout = req.getParam("timeoutSeconds");
        if (req.canUpgradeToWebSocket()) {
            req.toWebSocket().onSuccess(ws -> {
                Watch w = new Watch(vertx.getOrCreateContext(), path.namespace(), b -> ws.writeTextMessage(b.toString()), ws::close);
                ws.closeHandler(v -> k.unwatch(w));
                start(k, w, rv, timeout);
            });
            return;
        }
        HttpServerResponse resp = req.response();
        resp.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/json");
        resp.write(Buffer.buffer());
        Watch w = new Watch(vertx.getOrCreateContext(), path.namespace(), resp::write, () -> {
            if (!resp.ended() && !resp.closed()) resp.end();
        });
        resp.closeHandler(v -> k.unwatch(w));
        start(k, w, rv, timeout);
    }

    private void start(Kind k, Watch w, String rv, String timeout) {
        k.watch(w, rv);
        if (timeout != null) {
            try {
                long seconds = Long.parseLong(timeout);
                if (seconds > 0) w.context.runOnContext(v -> vertx.setTimer(seconds * 1000, id -> {
                    k.unwatch(w);
                    w.end.run();
                }));
            } catch (NumberFormatException ignored) {
                // no timeout
            }
        }
    }

    /** One open watch: events are handed to its context in order, each after half the latency. */
    private final class Watch {
        final Context context;
        final String namespace;
        final Consumer<Buffer> sink;
        final Runnable end;
        private final Deque<Object[]> due = new ArrayDeque<>();
        private boolean pumping;

        Watch(Context context, String namespace, Consumer<Buffer> sink, Runnable end) {
            this.context = context;
            this.namespace = namespace;
            this.sink = sink;
            this.end = end;
        }

        void send(Buffer line) {
            long at = System.nanoTime() + latencyNanos / 2;
            synchronized (this) {
                due.add(new Object[] {at, line});
                if (pumping) return;
                pumping = true;
            }
            context.runOnContext(v -> pump());
        }

        private void pump() {
            while (true) {
                Object[] next;
                synchronized (this) {
                    next = due.peek();
                    if (next == null) {
                        pumping = false;
                        return;
                    }
                    long wait = (long) next[0] - System.nanoTime();
                    if (wait > 500_000) {
                        vertx.setTimer(Math.max(1, wait / 1_000_000), id -> pump());
                        return;
                    }
                    due.poll();
                }
                sink.accept((Buffer) next[1]);
            }
        }
    }

    // ---- the store ------------------------------------------------------------------------------------------------

    private void register(String group, String version, String plural, String kind, boolean namespaced, boolean logged) {
        kinds.put(group + "/" + plural, new Kind(group, version, plural, kind, namespaced, logged));
    }

    private record LogEntry(long resourceVersion, String namespace, Buffer line) {}

    /** One resource's objects (key ns/name, or name), its change log for watches, and its open watches. */
    private final class Kind {
        final String group;
        final String version;
        final String plural;
        final String kind;
        final boolean namespaced;
        final boolean logged;
        final TreeMap<String, Map<String, Object>> objects = new TreeMap<>();
        final List<LogEntry> log = new ArrayList<>();
        final List<Watch> watches = new ArrayList<>();

        Kind(String group, String version, String plural, String kind, boolean namespaced, boolean logged) {
            this.group = group;
            this.version = version;
            this.plural = plural;
            this.kind = kind;
            this.namespaced = namespaced;
            this.logged = logged;
        }

        String apiVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }

        synchronized Reply create(String namespace, Map<String, Object> object) {
            Map<String, Object> meta = map(object, "metadata");
            if (namespaced) {
                if (namespace == null) namespace = (String) meta.getOrDefault("namespace", "default");
                meta.put("namespace", namespace);
            }
            Object name = meta.get("name");
            if (name == null && meta.get("generateName") != null) name = meta.get("generateName") + UUID.randomUUID().toString().substring(0, 5);
            if (name == null) return Reply.error(422, "Invalid", "metadata.name: Required value");
            meta.put("name", name);
            String key = namespaced ? namespace + "/" + name : name.toString();
            if (objects.containsKey(key)) {
                return Reply.error(409, "AlreadyExists", plural + " \"" + name + "\" already exists");
            }
            object.putIfAbsent("apiVersion", apiVersion());
            object.putIfAbsent("kind", kind);
            meta.put("uid", UUID.randomUUID().toString());
            meta.put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
            if (plural.equals("pods")) createdNanos.put(key, System.nanoTime());
            return Reply.ok(201, store(key, object, "ADDED"));
        }

        synchronized Reply replace(String key, Map<String, Object> object, String subresource) {
            Map<String, Object> current = objects.get(key);
            if (current == null) return notFound(this, key);
            Object expected = map(object, "metadata").get("resourceVersion");
            if (expected != null && !expected.equals(map(current, "metadata").get("resourceVersion"))) {
                return Reply.error(409, "Conflict", "Operation cannot be fulfilled on " + plural + " \"" + name(key)
                        + "\": the object has been modified; please apply your changes to the latest version and try again");
            }
            Map<String, Object> updated;
            if ("status".equals(subresource)) {
                updated = deepCopy(current);
                if (object.containsKey("status")) updated.put("status", object.get("status"));
            } else {
                updated = object;
                map(updated, "metadata").put("uid", map(current, "metadata").get("uid"));
                map(updated, "metadata").put("creationTimestamp", map(current, "metadata").get("creationTimestamp"));
            }
            return Reply.ok(200, store(key, updated, "MODIFIED"));
        }

        synchronized Reply patch(String key, Buffer body, String contentType, String subresource) {
            Map<String, Object> current = objects.get(key);
            if (current == null) return notFound(this, key);
            Map<String, Object> updated = deepCopy(current);
            if (contentType.startsWith("application/json-patch+json")) {
                List<?> ops = JSON.readValue(body.getBytes(), List.class);
                for (Object op : ops) JsonPatches.apply(updated, castMap(op));
            } else if (contentType.startsWith("application/strategic-merge-patch+json")) {
                JsonPatches.strategicMerge(updated, readMap(body));
            } else {
                Map<String, Object> merge = readMap(body);
                // A merge patch that names a resourceVersion is a precondition, as on the real server (leader
                // election writes its Lease this way).
                Object expected = merge.get("metadata") instanceof Map<?, ?> m ? m.get("resourceVersion") : null;
                if (expected != null && !expected.equals(map(current, "metadata").get("resourceVersion"))) {
                    return Reply.error(409, "Conflict", "Operation cannot be fulfilled on " + plural + " \"" + name(key)
                            + "\": the object has been modified; please apply your changes to the latest version and try again");
                }
                JsonPatches.merge(updated, merge);
            }
            if ("status".equals(subresource)) {
                Map<String, Object> onlyStatus = deepCopy(current);
                if (updated.containsKey("status")) onlyStatus.put("status", updated.get("status"));
                else onlyStatus.remove("status");
                updated = onlyStatus;
            }
            return Reply.ok(200, store(key, updated, "MODIFIED"));
        }

        synchronized Reply delete(String key) {
            Map<String, Object> current = objects.remove(key);
            if (current == null) return notFound(this, key);
            Map<String, Object> gone = deepCopy(current);
            map(gone, "metadata").put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
            publish("DELETED", gone);
            return Reply.ok(200, gone);
        }

        /** Stores {@code object} under a new resource version and tells the watches. Caller holds the lock. */
        Map<String, Object> store(String key, Map<String, Object> object, String type) {
            map(object, "metadata").put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
            objects.put(key, object);
            publish(type, object);
            return object;
        }

        private void publish(String type, Map<String, Object> object) {
            if (!logged) return;
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("type", type);
            event.put("object", object);
            Buffer line = Buffer.buffer(JSON.writeValueAsBytes(event)).appendString("\n");
            Map<String, Object> meta = map(object, "metadata");
            String ns = (String) meta.get("namespace");
            log.add(new LogEntry(Long.parseLong((String) meta.get("resourceVersion")), ns, line));
            for (Watch w : watches) if (w.namespace == null || w.namespace.equals(ns)) w.send(line);
        }

        /** Lists {@code namespace} (null: all) as of now; the list's resource version is the newest one. */
        synchronized Map<String, Object> list(String namespace) {
            List<Object> items = new ArrayList<>();
            for (Map<String, Object> o : objects.values()) {
                if (namespace == null || namespace.equals(map(o, "metadata").get("namespace"))) items.add(o);
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("apiVersion", apiVersion());
            out.put("kind", kind + "List");
            out.put("metadata", new LinkedHashMap<>(Map.of("resourceVersion", Long.toString(resourceVersion.get()))));
            out.put("items", items);
            return out;
        }

        synchronized void watch(Watch w, String fromVersion) {
            long from;
            try {
                from = fromVersion == null || fromVersion.isEmpty() ? 0 : Long.parseLong(fromVersion);
            } catch (NumberFormatException e) {
                from = 0;
            }
            if (from == 0) {
                for (Map<String, Object> o : objects.values()) {
                    String ns = (String) map(o, "metadata").get("namespace");
                    if (w.namespace != null && !w.namespace.equals(ns)) continue;
                    Map<String, Object> event = new LinkedHashMap<>();
                    event.put("type", "ADDED");
                    event.put("object", o);
                    w.send(Buffer.buffer(JSON.writeValueAsBytes(event)).appendString("\n"));
                }
            } else {
                int start = firstAfter(from);
                for (int i = start; i < log.size(); i++) {
                    LogEntry e = log.get(i);
                    if (w.namespace == null || w.namespace.equals(e.namespace())) w.send(e.line());
                }
            }
            watches.add(w);
        }

        private int firstAfter(long version) {
            int lo = 0, hi = log.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (log.get(mid).resourceVersion() <= version) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        synchronized void unwatch(Watch w) {
            watches.remove(w);
        }
    }

    private static Map<String, Object> castMap(Object o) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) o;
        return m;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object v = parent.get(key);
        if (v instanceof Map<?, ?> m) return (Map<String, Object>) m;
        Map<String, Object> created = new LinkedHashMap<>();
        parent.put(key, created);
        return created;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> deepCopy(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, copyValue(v)));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object copyValue(Object v) {
        if (v instanceof Map<?, ?> m) return deepCopy((Map<String, Object>) m);
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object o : l) out.add(copyValue(o));
            return out;
        }
        return v;
    }
}
