package dev.arbiter.live;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The one place that makes fabric8's CRUD mock behave like an API server for live mode.
 *
 * <p>The CRUD mock does not implement {@code pods/binding} or {@code pods/eviction}. Every pod created through
 * {@link #create(PodSpec)} gets two expectations on exactly those paths (the mock checks expectations before CRUD):
 * a binding sets {@code spec.nodeName} (and phase Running, standing in for the kubelet) and an eviction deletes the
 * pod, both asynchronously through a second client, as the API server would after answering. Scripted failures
 * ({@link #failBinding}, {@link #failEviction}, {@link #refuseEvictions}) answer with an error instead; the calls are
 * counted. Objects are created from model records, so tests can build clusters with the manifest loader.
 */
final class LiveFixture implements AutoCloseable {
    static final RuleBook RULES = RuleBook.load(Path.of("rules"));
    static final Duration WAIT = Duration.ofSeconds(10);
    /** The User-Agent of scheduler clients, so tests can tell the scheduler's calls from their own. */
    static final String SCHEDULER_AGENT = "arbiter-under-test";
    /** The mock server logs every request at INFO; held here so the setting is not garbage-collected. */
    private static final java.util.logging.Logger MOCK_LOG = quiet("io.fabric8.mockwebserver");

    final KubernetesMockServer server;
    final KubernetesClient client;
    private final KubernetesClient side;
    private final Map<String, Deque<Integer>> bindFailures = new ConcurrentHashMap<>();
    private final Map<String, Deque<Integer>> evictFailures = new ConcurrentHashMap<>();
    private final Set<String> refusingEviction = ConcurrentHashMap.newKeySet();
    private final Set<String> applyThenFail = ConcurrentHashMap.newKeySet();
    /** Pods the emulated API server has put on a node (a second binding answers 409, as the real one does). */
    private final Map<String, String> boundTo = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> bindCalls = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> evictCalls = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> dryRunCalls = new ConcurrentHashMap<>();
    private final Set<String> expected = ConcurrentHashMap.newKeySet();
    private volatile Duration bindLatency = Duration.ZERO;
    private final List<LiveScheduler> schedulers = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();

    /** A kubeconfig for the mock API server, at {@code file}, as {@code arbiter run --kubeconfig} reads it. */
    java.nio.file.Path writeKubeconfig(java.nio.file.Path file) throws java.io.IOException {
        java.nio.file.Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: tester, user: {token: secret}}]
                contexts: [{name: mock, context: {cluster: mock, user: tester, namespace: default}}]
                current-context: mock
                """.formatted(server.url("/").replaceAll("/+$", "")));
        return file;
    }

    LiveFixture(KubernetesMockServer server, KubernetesClient client) {
        this.server = server;
        this.client = client;
        this.side = server.createClient();
        installCrds();
    }

    // ---- schedulers -----------------------------------------------------------------------------------------

    /** Test defaults: answers "arbiter" and "volcano", quick backoff, a long period (tests drive cycles). */
    static LiveConfig config(String identity) {
        return LiveConfig.defaults(Set.of("arbiter", "volcano"), identity)
                .withPeriod(Duration.ofMinutes(10))
                .withBackoff(new Backoff(3, Duration.ofMillis(10), Duration.ofMillis(40)));
    }

    /** A started scheduler whose caches have synced; closed with the fixture. */
    LiveScheduler scheduler(LiveConfig config) {
        LiveScheduler s = new LiveScheduler(schedulerClient(), RULES, config, new SimpleMeterRegistry());
        schedulers.add(s);
        s.start();
        await("caches synced", s::isReady);
        return s;
    }

    /** A scheduler the test built itself, closed with the fixture (after its watches have caught up). */
    LiveScheduler adopt(LiveScheduler s) {
        schedulers.add(s);
        return s;
    }

    /** A client for a scheduler: like a real one, but reconnecting dropped watches quickly. */
    private KubernetesClient schedulerClient() {
        KubernetesClient c = server.createClient(b -> b.editOrNewConfig().withUserAgent(SCHEDULER_AGENT).withWatchReconnectInterval(100)
                .withWatchReconnectLimit(-1).withRequestRetryBackoffInterval(50).endConfig());
        clients.add(c);
        return c;
    }

    /** A synced scheduler that runs cycles only when the test calls {@code loop().runOnce()}. */
    LiveScheduler manualScheduler() {
        return manualScheduler(RULES);
    }

    /** The same, with other rules. */
    LiveScheduler manualScheduler(RuleBook rules) {
        return manualScheduler(rules, config("manual"));
    }

    /** The same, with another configuration. */
    LiveScheduler manualScheduler(RuleBook rules, LiveConfig config) {
        LiveScheduler s = new LiveScheduler(schedulerClient(), rules, config, new SimpleMeterRegistry());
        schedulers.add(s);
        s.startInformersOnly();
        await("caches synced", s::isReady);
        return s;
    }

    // ---- objects --------------------------------------------------------------------------------------------

    void create(Manifests m) {
        m.priorityClasses().forEach(this::create);
        m.queues().forEach(this::create);
        m.nodes().forEach(this::create);
        m.podGroups().forEach(this::create);
        m.pods().forEach(this::create);
    }

    void create(NodeSpec n) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(n.name()).withLabels(n.labels()).endMetadata()
                .withNewSpec().withUnschedulable(n.unschedulable()).endSpec()
                .withNewStatus().withAllocatable(quantities(n.allocatable())).endStatus().build()).create();
    }

    void create(PriorityClassSpec pc) {
        client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata()
                .withName(pc.name()).endMetadata().withValue(pc.value()).withGlobalDefault(pc.globalDefault())
                .withPreemptionPolicy(pc.preemptionPolicy()).build()).create();
    }

    void create(QueueSpec q) {
        VolcanoQueue queue = new VolcanoQueue();
        queue.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(q.name()).build());
        VolcanoQueue.Spec spec = new VolcanoQueue.Spec();
        spec.weight = q.weight();
        spec.reclaimable = q.reclaimable();
        if (q.capability() != null) {
            spec.capability = new java.util.TreeMap<>();
            q.capability().asQuantities().forEach((k, v) -> spec.capability.put(k, new Quantity(v)));
        }
        if (q.deserved() != null) spec.deserved = quantities(q.deserved());
        queue.setSpec(spec);
        client.resources(VolcanoQueue.class).resource(queue).create();
    }

    void create(PodGroupSpec g) {
        VolcanoPodGroup pg = new VolcanoPodGroup();
        pg.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withNamespace(g.namespace())
                .withName(g.name()).build());
        VolcanoPodGroup.Spec spec = new VolcanoPodGroup.Spec();
        spec.minMember = g.minMember();
        spec.queue = g.queue();
        spec.priorityClassName = g.priorityClassName();
        if (g.minResources() != null) spec.minResources = quantities(g.minResources());
        pg.setSpec(spec);
        client.resources(VolcanoPodGroup.class).inNamespace(g.namespace()).resource(pg).create();
    }

    /** Creates the pod (requests as one container) and its binding and eviction emulation. */
    void create(PodSpec p) {
        expectSubresources(p.namespace(), p.name());
        if (p.nodeName() != null) boundTo.put(p.key(), p.nodeName());
        else boundTo.remove(p.key());
        client.pods().inNamespace(p.namespace()).resource(podObject(p)).create();
    }

    /** The Pod object for a model pod: its requests (without the implicit {@code pods: 1}) as one container. */
    static Pod podObject(PodSpec p) {
        Map<String, Quantity> requests = quantities(p.requests().subtract(Resources.of("pods", 1)));
        return new PodBuilder().withNewMetadata().withNamespace(p.namespace()).withName(p.name())
                .withLabels(p.labels()).withAnnotations(p.annotations()).endMetadata()
                .withNewSpec().withSchedulerName(p.schedulerName()).withPriorityClassName(p.priorityClassName())
                .withNodeName(p.nodeName()).withNodeSelector(p.nodeSelector())
                .addNewContainer().withName("main").withImage("registry.example.com/app:1")
                .withNewResources().withRequests(requests).withLimits(requests).endResources().endContainer()
                .endSpec().withNewStatus().withPhase(p.nodeName() == null ? "Pending" : "Running").endStatus().build();
    }

    /** A pending pod of {@code scheduler} requesting {@code gpus} GPUs and 1 cpu, optionally in a PodGroup. */
    static PodSpec pod(String ns, String name, String scheduler, int gpus, String group) {
        Map<String, String> annotations = group == null ? Map.of() : Map.of(PodSpec.GROUP_ANNOTATION, group);
        return new PodSpec(ns, name, scheduler, null, "Pending", null, null, null,
                Resources.of("cpu", 1, "mars-tech.com/gpu", gpus, "pods", 1), Map.of(), List.of(), Map.of(), annotations,
                0, 0, false);
    }

    static NodeSpec node(String name, int gpus) {
        return new NodeSpec(name, Map.of("kubernetes.io/hostname", name), List.of(), false,
                Resources.of("cpu", 96, "memory", "768Gi", "pods", 110, "mars-tech.com/gpu", gpus), 0);
    }

    static PodGroupSpec podGroup(String ns, String name, String queue, int minMember) {
        return new PodGroupSpec(ns, name, queue, minMember, Map.of(), null, null, "Pending", 0, 0);
    }

    Pod pod(String key) {
        String[] id = key.split("/", 2);
        return client.pods().inNamespace(id[0]).withName(id[1]).get();
    }

    String nodeOf(String key) {
        Pod p = pod(key);
        return p == null ? null : p.getSpec().getNodeName();
    }

    VolcanoPodGroup podGroup(String key) {
        String[] id = key.split("/", 2);
        return client.resources(VolcanoPodGroup.class).inNamespace(id[0]).withName(id[1]).get();
    }

    VolcanoQueue queue(String name) {
        return client.resources(VolcanoQueue.class).withName(name).get();
    }

    /** Events on pod {@code key}, as "Reason: message" lines. */
    List<String> events(String key) {
        String[] id = key.split("/", 2);
        return client.v1().events().inNamespace(id[0]).list().getItems().stream()
                .filter(e -> id[1].equals(e.getInvolvedObject().getName()))
                .map(e -> e.getReason() + ": " + e.getMessage()).toList();
    }

    List<Event> allEvents() {
        return client.v1().events().inAnyNamespace().list().getItems();
    }

    // ---- scripted API behaviour -----------------------------------------------------------------------------

    /** The next bindings of {@code pod} answer these HTTP codes, in order; later ones succeed. */
    void failBinding(String pod, int... codes) {
        Deque<Integer> q = bindFailures.computeIfAbsent(pod, k -> new ArrayDeque<>());
        synchronized (q) {
            for (int c : codes) q.add(c);
        }
    }

    /** Bindings of {@code pod} succeed again: the codes still queued by {@link #failBinding} are dropped. */
    void clearBindingFailures(String pod) {
        Deque<Integer> q = bindFailures.get(pod);
        if (q != null) {
            synchronized (q) {
                q.clear();
            }
        }
    }

    /** The next evictions of {@code pod} answer these HTTP codes, in order; later ones succeed. */
    void failEviction(String pod, int... codes) {
        Deque<Integer> q = evictFailures.computeIfAbsent(pod, k -> new ArrayDeque<>());
        synchronized (q) {
            for (int c : codes) q.add(c);
        }
    }

    /**
     * The next binding of {@code pod} is applied but answered with {@code code}, as when the answer is lost after the
     * API server acted; a retry then meets 409 "already assigned".
     */
    void applyBindingThenFail(String pod) {
        applyThenFail.add(pod);
    }

    /** Every eviction of {@code pod} is refused with 429, as a PodDisruptionBudget would. */
    void refuseEvictions(String pod) {
        refusingEviction.add(pod);
    }

    /** How long after answering a binding the pod shows its node (the API catching up). */
    void bindLatency(Duration d) {
        bindLatency = d;
    }

    int bindCalls(String pod) {
        AtomicInteger n = bindCalls.get(pod);
        return n == null ? 0 : n.get();
    }

    /** Eviction POSTs for {@code pod}, dry runs included. */
    int evictCalls(String pod) {
        AtomicInteger n = evictCalls.get(pod);
        return n == null ? 0 : n.get();
    }

    /** Of those, the dry runs ({@code deleteOptions.dryRun: [All]}: answered, nothing deleted). */
    int dryRunCalls(String pod) {
        AtomicInteger n = dryRunCalls.get(pod);
        return n == null ? 0 : n.get();
    }

    /** Eviction POSTs for every pod, dry runs included. */
    int evictCalls() {
        int n = 0;
        for (AtomicInteger c : evictCalls.values()) n += c.get();
        return n;
    }

    /** Every pod can be evicted again (a PodDisruptionBudget was relaxed or deleted). */
    void allowEvictions(String pod) {
        refusingEviction.remove(pod);
    }

    /** Registers the binding and eviction emulation of pod {@code ns/name} (once). */
    void expectSubresources(String ns, String name) {
        String key = ns + "/" + name;
        if (!expected.add(key)) return;
        String base = "/api/v1/namespaces/" + ns + "/pods/" + name;
        server.expect().post().withPath(base + "/binding").andReply(new Scripted(req -> bindReply(key, req))).always();
        server.expect().post().withPath(base + "/eviction").andReply(new Scripted(req -> evictReply(key, req))).always();
        server.expect().post().withPath(base + "/eviction?dryRun=All").andReply(new Scripted(req -> evictReply(key, req)))
                .always();
        server.expect().patch().withPath(base + "/status").andReply(new Scripted(req -> statusPatchReply(key, req))).always();
    }

    /**
     * A patch of the pod's status. The CRUD mock knows no strategic merge patch (415), which is what a pod's
     * conditions need (merged by type): a strategic one is applied here, conditions merged by type, the rest merged
     * as a merge patch; other kinds go to the mock's own patch through the second client. Applied asynchronously, as
     * bindings are (the mock's event loop must not wait on itself); the answer is a Status, not the pod.
     */
    @SuppressWarnings("unchecked")
    private Reply statusPatchReply(String key, RecordedRequest req) {
        String[] id = key.split("/", 2);
        String type = req.getHeader("Content-Type");
        String body = req.getUtf8Body();
        CompletableFuture.runAsync(() -> {
            if (type == null || !type.startsWith("application/strategic-merge-patch+json")) {
                side.pods().inNamespace(id[0]).withName(id[1])
                        .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                type != null && type.startsWith("application/json-patch+json")
                                        ? io.fabric8.kubernetes.client.dsl.base.PatchType.JSON
                                        : io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), body);
                return;
            }
            Map<String, Object> patch = client.getKubernetesSerialization().unmarshal(body, Map.class);
            Map<String, Object> status = (Map<String, Object>) patch.getOrDefault("status", Map.of());
            List<Map<String, Object>> conditions = (List<Map<String, Object>>) status.getOrDefault("conditions", List.of());
            // Through the main resource: the mock keeps no separate pod status, and /status is this very expectation.
            editPod(id[0], id[1], p -> {
                Pod out = new PodBuilder(p).build();
                List<io.fabric8.kubernetes.api.model.PodCondition> merged = new ArrayList<>(
                        out.getStatus() == null || out.getStatus().getConditions() == null ? List.of() : out.getStatus().getConditions());
                for (Map<String, Object> c : conditions) {
                    var parsed = client.getKubernetesSerialization().convertValue(c, io.fabric8.kubernetes.api.model.PodCondition.class);
                    merged.removeIf(m -> m.getType().equals(parsed.getType()));
                    merged.add(parsed);
                }
                out.getStatus().setConditions(merged);
                return out;
            });
        }).exceptionally(e -> {
            System.err.println("status patch emulation of " + key + " failed: " + e);
            return null;
        });
        return Reply.success(200);
    }

    private Reply bindReply(String key, RecordedRequest req) {
        bindCalls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        Integer failure = next(bindFailures.get(key));
        if (failure != null) return Reply.failure(failure, "injected failure binding " + key);
        Binding b = client.getKubernetesSerialization().unmarshal(req.getUtf8Body(), Binding.class);
        String already = boundTo.putIfAbsent(key, b.getTarget().getName());
        if (already != null) {
            return Reply.failure(409, "Operation cannot be fulfilled on pods/binding \"" + key.split("/", 2)[1]
                    + "\": pod " + key.split("/", 2)[1] + " is already assigned to node \"" + already + "\"");
        }
        String[] id = key.split("/", 2);
        Duration latency = bindLatency;
        CompletableFuture.runAsync(() -> {
            sleep(latency);
            editPod(id[0], id[1], p -> new PodBuilder(p).editSpec()
                    .withNodeName(b.getTarget().getName()).endSpec().editStatus().withPhase("Running").endStatus().build());
        }).exceptionally(e -> {
            System.err.println("binding emulation of " + key + " failed: " + e);
            return null;
        });
        if (applyThenFail.remove(key)) return Reply.failure(504, "injected: the binding was applied but the answer was lost");
        return Reply.success(201);
    }

    /**
     * Edits a pod as the emulated API server's side effects do: fabric8's edit sends the resourceVersion it read, so
     * two emulations racing on one pod (a binding and a status patch) would lose one to a 409; a conflict is re-read
     * and retried.
     */
    private void editPod(String namespace, String name, java.util.function.UnaryOperator<Pod> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                side.pods().inNamespace(namespace).withName(name).edit(change);
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) throw e;
            }
        }
    }

    /** As the API server: a dry run ({@code deleteOptions.dryRun: [All]}) is checked and answered, nothing deleted. */
    private Reply evictReply(String key, RecordedRequest req) {
        evictCalls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        io.fabric8.kubernetes.api.model.policy.v1.Eviction ev = client.getKubernetesSerialization()
                .unmarshal(req.getUtf8Body(), io.fabric8.kubernetes.api.model.policy.v1.Eviction.class);
        boolean dryRun = ev.getDeleteOptions() != null && ev.getDeleteOptions().getDryRun() != null
                && ev.getDeleteOptions().getDryRun().contains("All");
        if (dryRun != req.getPath().endsWith("?dryRun=All")) {
            return Reply.failure(400, "DryRun in DeleteOptions doesn't match DryRun in CreateOptions");
        }
        if (dryRun) dryRunCalls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        if (refusingEviction.contains(key)) {
            return Reply.failure(429, "Cannot evict pod as it would violate the pod's disruption budget.");
        }
        if (dryRun) return Reply.success(201);
        Integer failure = next(evictFailures.get(key));
        if (failure != null) return Reply.failure(failure, "injected failure evicting " + key);
        String[] id = key.split("/", 2);
        boundTo.remove(key);
        CompletableFuture.runAsync(() -> side.pods().inNamespace(id[0]).withName(id[1]).delete());
        return Reply.success(201);
    }

    private static Integer next(Deque<Integer> q) {
        if (q == null) return null;
        synchronized (q) {
            return q.poll();
        }
    }

    private record Reply(int code, Object body) {
        static Reply success(int code) {
            return new Reply(code, new StatusBuilder().withStatus("Success").withCode(code).build());
        }

        static Reply failure(int code, String message) {
            return new Reply(code, new StatusBuilder().withStatus("Failure").withCode(code).withMessage(message).build());
        }
    }

    /** A response decided once per request (the mock asks for the code and the body separately). */
    private static final class Scripted implements ResponseProvider<Object> {
        private final java.util.function.Function<RecordedRequest, Reply> decide;
        private final Map<RecordedRequest, Reply> decided = Collections.synchronizedMap(new IdentityHashMap<>());
        private Headers headers = Headers.builder().build();

        Scripted(java.util.function.Function<RecordedRequest, Reply> decide) {
            this.decide = decide;
        }

        private Reply reply(RecordedRequest req) {
            return decided.computeIfAbsent(req, decide);
        }

        @Override
        public int getStatusCode(RecordedRequest request) {
            return reply(request).code();
        }

        @Override
        public Object getBody(RecordedRequest request) {
            return reply(request).body();
        }

        @Override
        public Headers getHeaders() {
            return headers;
        }

        @Override
        public void setHeaders(Headers h) {
            headers = h;
        }
    }

    // ---- CRDs -----------------------------------------------------------------------------------------------

    /** Registers deploy/crds (with their status subresource) in the mock, so status writes are isolated. */
    private void installCrds() {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(Path.of("deploy/crds"), "*.yaml")) {
            for (Path f : files) {
                try (InputStream in = Files.newInputStream(f)) {
                    CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static java.util.logging.Logger quiet(String name) {
        java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
        l.setLevel(java.util.logging.Level.WARNING);
        return l;
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    static Map<String, Quantity> quantities(Resources r) {
        Map<String, Quantity> out = new LinkedHashMap<>();
        r.asQuantities().forEach((k, v) -> out.put(k, new Quantity(v)));
        return out;
    }

    /** Waits until {@code condition} holds, polling every 20 ms, failing after {@link #WAIT}. */
    static void await(String what, BooleanSupplier condition) {
        await(what, condition, WAIT);
    }

    static void await(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            sleep(Duration.ofMillis(20));
        }
    }

    private static void sleep(Duration d) {
        if (d.isZero()) return;
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops the schedulers, lets every watch deliver what was already written, then closes them. The mock API server
     * sends watch events from a thread that waits for its event loop, and handles a closing watch on that loop by
     * waiting for the sender: a watch closed while an event is on its way stalls the server for 30 s, and its shutdown
     * fails. So no watch closes before its informer has seen the newest object of its kind.
     */
    @Override
    public void close() {
        quiesce(schedulers.toArray(new LiveScheduler[0]));
        for (LiveScheduler s : schedulers) s.close();
        for (KubernetesClient c : clients) c.close();
        side.close();
        // Should a watch have closed with an event on its way anyway, the server answers again once the stall is over
        // (then the extension can shut it down); a server a test stopped for good does not, and is not waited for long.
        long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
        while (!answers() && System.nanoTime() < deadline) sleep(Duration.ofMillis(50));
    }

    /**
     * Stops the schedulers' cycles and waits (up to 5 s each) until their watches have delivered what was already
     * written: a test that closes a scheduler itself does this first, as {@link #close} does (see there why).
     */
    void quiesce(LiveScheduler... stopping) {
        for (LiveScheduler s : stopping) s.stopScheduling();
        try {
            List<Long> newest = newestResourceVersions();
            for (LiveScheduler s : stopping) {
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (!caughtUp(s.cache().lastResourceVersions(), newest) && System.nanoTime() < deadline) {
                    sleep(Duration.ofMillis(10));
                }
            }
        } catch (RuntimeException e) {
            // The server may already be unreachable (a test stopped it); close regardless.
        }
    }

    /** Whether the API server answers a request (the test's own client, which the extension closes). */
    private boolean answers() {
        try {
            client.nodes().list();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Per informer kind (the cache's order), the newest resource version among the server's objects. */
    private List<Long> newestResourceVersions() {
        return List.of(newest(side.nodes().list().getItems()), newest(side.pods().inAnyNamespace().list().getItems()),
                newest(side.scheduling().v1().priorityClasses().list().getItems()),
                newest(side.resources(VolcanoQueue.class).list().getItems()),
                newest(side.resources(VolcanoPodGroup.class).inAnyNamespace().list().getItems()),
                newest(side.namespaces().list().getItems()));
    }

    private static long newest(List<? extends io.fabric8.kubernetes.api.model.HasMetadata> items) {
        long max = 0;
        for (var o : items) max = Math.max(max, version(o.getMetadata().getResourceVersion()));
        return max;
    }

    private static boolean caughtUp(List<String> seen, List<Long> newest) {
        if (seen.size() != newest.size()) return true; // closed already: nothing is watching
        for (int i = 0; i < seen.size(); i++) if (version(seen.get(i)) < newest.get(i)) return false;
        return true;
    }

    private static long version(String resourceVersion) {
        try {
            return resourceVersion == null || resourceVersion.isEmpty() ? 0 : Long.parseLong(resourceVersion);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE; // not a counter: cannot compare, do not wait
        }
    }
}
