package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.live.ApiPermissions;
import dev.arbiter.live.Backoff;
import dev.arbiter.live.LiveConfig;
import dev.arbiter.live.LiveScheduler;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Base of the real-cluster suite: one {@link RealCluster} (etcd + kube-apiserver) and one {@link KubeletStandIn} for
 * the whole test run, started by the first test class that needs them and torn down when the run ends, whether tests
 * failed or not (JUnit closes the root store's resources; a shutdown hook kills the processes should the JVM end
 * otherwise).
 *
 * <p>Each test starts on an empty cluster (its nodes, pods, PodGroups, queues, PDBs and leases are deleted after the
 * previous test), and after each test the audit log must show no request of Arbiter's ServiceAccount that the
 * shipped ClusterRole refused (403): Arbiter runs on that token, so a call the RBAC does not grant fails the test.
 */
@Tag("real-cluster")
@ExtendWith(RealClusterTest.Shared.class)
abstract class RealClusterTest {
    static final RuleBook RULES = RuleBook.load(Path.of("rules"));
    static final Duration WAIT = Duration.ofSeconds(30);
    /** The User-Agent of the scheduler's clients, so tests can tell the scheduler's requests from their own. */
    static final String AGENT = "arbiter-under-test";

    static RealCluster cluster;
    static KubeletStandIn kubelet;
    static KubernetesClient admin;

    private final List<LiveScheduler> schedulers = new ArrayList<>();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();
    long auditMark;

    /** Starts the shared cluster once per run (JUnit's root store closes it when the run ends). */
    static final class Shared implements org.junit.jupiter.api.extension.BeforeAllCallback {
        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            Holder h = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(Holder.class, k -> Holder.start(), Holder.class);
            if (h.cluster == null) {
                if ("true".equals(System.getenv("CI"))) fail("no real cluster: " + h.why);
                Assumptions.abort("no real cluster (" + h.why + "): the real-cluster suite is skipped");
            }
            cluster = h.cluster;
            kubelet = h.kubelet;
            admin = h.cluster.admin();
        }
    }

    /** The run's cluster, closed by JUnit when the run ends. */
    static final class Holder implements AutoCloseable {
        final RealCluster cluster;
        final KubeletStandIn kubelet;
        final String why;

        private Holder(RealCluster cluster, KubeletStandIn kubelet, String why) {
            this.cluster = cluster;
            this.kubelet = kubelet;
            this.why = why;
        }

        static Holder start() {
            Path bin = ClusterBinaries.find();
            if (bin == null) return new Holder(null, null, ClusterBinaries.whyMissing());
            try {
                Path dir = Files.createTempDirectory("arbiter-real-cluster");
                RealCluster c = RealCluster.start(bin, dir);
                return new Holder(c, new KubeletStandIn(c.admin()), "");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            if (kubelet != null) kubelet.close();
            if (cluster != null) cluster.close();
        }
    }

    private int restartsBefore;

    @BeforeEach
    void markAudit() {
        auditMark = cluster.audit.mark();
        restartsBefore = cluster.restarts();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (LiveScheduler s : schedulers) s.close(Duration.ofSeconds(5));
        schedulers.clear();
        for (int i = closeAfter.size() - 1; i >= 0; i--) closeAfter.get(i).close();
        closeAfter.clear();
        kubelet.reset();
        List<AuditLog.Request> refused = cluster.audit.since(auditMark,
                r -> r.by(RealCluster.ARBITER_USER) && r.code() == 403);
        boolean restarted = cluster.restarts() != restartsBefore;
        emptyCluster();
        assertEquals(List.of(), refused.stream().filter(r -> !granted(r)).toList(),
                "requests of Arbiter's ServiceAccount that the shipped RBAC does not grant");
        if (!restarted) assertEquals(List.of(), refused, "requests of Arbiter's ServiceAccount refused with 403");
    }

    /** True when the shipped ClusterRole or Role (as ApiPermissions lists them; a test keeps the two equal) grants it. */
    private static boolean granted(AuditLog.Request r) {
        if (r.resource() == null) return false;
        String group = r.group() == null ? "" : r.group();
        String resource = r.subresource() == null ? r.resource() : r.resource() + "/" + r.subresource();
        java.util.function.Predicate<ApiPermissions.Rule> grants = rule -> rule.group().equals(group)
                && rule.resource().equals(resource) && rule.verbs().contains(r.verb());
        return ApiPermissions.CLUSTER.stream().anyMatch(grants)
                || ("arbiter-system".equals(r.namespace()) && ApiPermissions.NAMESPACE.stream().anyMatch(grants));
    }

    /** Deletes what tests create, so the next test starts on an empty cluster (namespaces are kept and reused; PodGroups of both APIs go). */
    private static void emptyCluster() {
        Set<String> system = Set.of("kube-system", "kube-public", "kube-node-lease", "arbiter-system");
        admin.namespaces().list().getItems().stream().map(n -> n.getMetadata().getName())
                .filter(n -> !system.contains(n)).forEach(ns -> {
                    admin.pods().inNamespace(ns).withGracePeriod(0L).delete();
                    admin.policy().v1().podDisruptionBudget().inNamespace(ns).delete();
                    admin.resources(dev.arbiter.live.VolcanoPodGroup.class).inNamespace(ns).delete();
                    // The API server's PodGroupProtection admission gives each upstream PodGroup a finalizer that
                    // kube-controller-manager (not run here) removes once no pod names the group: deleted, then freed.
                    admin.resources(dev.arbiter.live.WorkloadPodGroup.class).inNamespace(ns).delete();
                    admin.resources(dev.arbiter.live.WorkloadPodGroup.class).inNamespace(ns).list().getItems()
                            .forEach(g -> admin.resources(dev.arbiter.live.WorkloadPodGroup.class).inNamespace(ns)
                                    .withName(g.getMetadata().getName()).edit(e -> {
                                        e.getMetadata().setFinalizers(List.of());
                                        return e;
                                    }));
                });
        admin.resources(dev.arbiter.live.VolcanoQueue.class).delete();
        admin.nodes().delete();
        admin.leases().inNamespace("arbiter-system").delete();
        admin.scheduling().v1().priorityClasses().list().getItems().stream()
                .filter(p -> !p.getMetadata().getName().startsWith("system-"))
                .forEach(p -> admin.scheduling().v1().priorityClasses().resource(p).delete());
        await("the cluster emptied", () -> admin.pods().inAnyNamespace().list().getItems().stream()
                .allMatch(p -> system.contains(p.getMetadata().getNamespace())) && admin.nodes().list().getItems().isEmpty()
                && admin.resources(dev.arbiter.live.WorkloadPodGroup.class).inAnyNamespace().list().getItems().isEmpty());
    }

    // ---- schedulers -------------------------------------------------------------------------------------------------

    /** Test defaults: answers "arbiter" and "volcano", quick backoff, a long period (tests drive cycles). */
    static LiveConfig config(String identity) {
        return LiveConfig.defaults(Set.of("arbiter", "volcano"), identity)
                .withPeriod(Duration.ofMinutes(10))
                .withBackoff(new Backoff(3, Duration.ofMillis(20), Duration.ofMillis(200)));
    }

    /** Arbiter on its ServiceAccount's token, informers synced, not leading: cycles run when the test calls them. */
    LiveScheduler manualScheduler() {
        return manualScheduler(config("arbiter-test"));
    }

    LiveScheduler manualScheduler(LiveConfig config) {
        LiveScheduler s = new LiveScheduler(cluster.arbiterClient(AGENT), RULES, config, new SimpleMeterRegistry());
        schedulers.add(s);
        s.startInformersOnly();
        await("caches synced", s::isReady);
        return s;
    }

    /** Arbiter scheduling on its own (periodic and change-triggered cycles), as {@code arbiter run} does. */
    LiveScheduler runningScheduler(LiveConfig config) {
        return runningScheduler(cluster.arbiterClient(AGENT), config);
    }

    /** As {@link #runningScheduler(LiveConfig)}, on the given client (another API server, say). */
    LiveScheduler runningScheduler(KubernetesClient client, LiveConfig config) {
        return runningScheduler(client, config, new SimpleMeterRegistry());
    }

    /** As {@link #runningScheduler(LiveConfig)}, its metrics in {@code registry}. */
    LiveScheduler runningScheduler(KubernetesClient client, LiveConfig config, io.micrometer.core.instrument.MeterRegistry registry) {
        LiveScheduler s = new LiveScheduler(client, RULES, config, registry);
        schedulers.add(s);
        s.start();
        await("caches synced", s::isReady);
        return s;
    }

    void closeAfter(AutoCloseable c) {
        closeAfter.add(c);
    }

    // ---- objects ---------------------------------------------------------------------------------------------------

    /** A Ready, untainted node with {@code cpu} cores, 64Gi and {@code gpus} nvidia.com/gpu (as a kubelet registers). */
    static void node(String name, int cpu, int gpus) {
        node(name, Map.of("cpu", String.valueOf(cpu), "memory", "64Gi", "pods", "110", "nvidia.com/gpu", String.valueOf(gpus)));
    }

    static void node(String name, Map<String, String> allocatable) {
        cluster.node(name, allocatable);
    }

    /** Applies a manifest (one or several YAML documents) as admin, server-side. */
    static void apply(String yaml) {
        admin.resourceList(yaml).forceConflicts().serverSideApply();
    }

    /** Applies the manifests in files or folders as admin with the release's kubectl ({@code apply --server-side}). */
    static void applyFiles(Path... paths) throws IOException, InterruptedException {
        for (Path p : paths) cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", p.toAbsolutePath().toString());
    }

    /** A reclaimable Volcano Queue of {@code weight}. */
    static String queue(String name, int weight) {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: %s}
                spec: {weight: %d, reclaimable: true}
                """.formatted(name, weight);
    }

    /** A PodGroup as Volcano's users write them. */
    static String podGroup(String namespace, String name, String queue, int minMember) {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: %s, namespace: %s}
                spec: {queue: %s, minMember: %d}
                """.formatted(name, namespace, queue, minMember);
    }

    /** A PriorityClass. */
    static String priorityClass(String name, int value) {
        return """
                apiVersion: scheduling.k8s.io/v1
                kind: PriorityClass
                metadata: {name: %s}
                value: %d
                """.formatted(name, value);
    }

    /**
     * A one-container pod of {@code podGroup} (null: none) asking for 1 CPU and {@code gpus} nvidia.com/gpu, for
     * {@code schedulerName}, of {@code priorityClass} (null: none).
     */
    static String pod(String namespace, String name, String podGroup, String schedulerName, int gpus, String priorityClass) {
        String group = podGroup == null ? "" : "\n  annotations: {scheduling.k8s.io/group-name: " + podGroup + "}";
        String gpu = gpus == 0 ? "" : ", nvidia.com/gpu: \"" + gpus + "\"";
        String pc = priorityClass == null ? "" : "\n  priorityClassName: " + priorityClass;
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s%s
                spec:
                  schedulerName: %s%s
                  containers:
                    - name: main
                      image: registry.example.com/job:1
                      resources:
                        requests: {cpu: "1", memory: 1Gi%s}
                        limits: {cpu: "1", memory: 1Gi%s}
                """.formatted(name, namespace, group, schedulerName, pc, gpu, gpu);
    }

    /**
     * Applies {@code yaml} and returns as soon as the first pod of {@code namespace} is bound (seen on a watch, not
     * polled), so that a fault can be injected while the scheduler is still binding.
     */
    static void applyUntilFirstBind(String namespace, String yaml) throws InterruptedException {
        applyUntilBound(namespace, yaml, 1);
    }

    /** As {@link #applyUntilFirstBind}, returning once {@code pods} pods of {@code namespace} are bound. */
    static void applyUntilBound(String namespace, String yaml, int pods) throws InterruptedException {
        Set<String> bound = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.CountDownLatch enough = new java.util.concurrent.CountDownLatch(1);
        try (var watch = admin.pods().inNamespace(namespace).watch(new io.fabric8.kubernetes.client.Watcher<io.fabric8.kubernetes.api.model.Pod>() {
            @Override
            public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Pod pod) {
                if (pod.getSpec().getNodeName() != null && bound.add(pod.getMetadata().getName()) && bound.size() >= pods) {
                    enough.countDown();
                }
            }

            @Override
            public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
        })) {
            apply(yaml);
            if (!enough.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                fail(bound.size() + " of " + pods + " pods of " + namespace + " bound within 60 s");
            }
        }
    }

    /** How many pods of {@code namespace} are bound now. */
    static long bound(String namespace) {
        return admin.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName() != null).count();
    }

    /** Documents joined into one multi-document manifest. */
    static String docs(List<String> documents) {
        return String.join("---\n", documents);
    }

    static String now() {
        return java.time.Instant.now().toString().replaceAll("\\.\\d+Z$", "Z");
    }

    static String nodeOf(String namespace, String pod) {
        var p = admin.pods().inNamespace(namespace).withName(pod).get();
        return p == null ? null : p.getSpec().getNodeName();
    }

    /** Requests of Arbiter's identity since this test began. */
    List<AuditLog.Request> arbiterRequests() {
        return cluster.audit.since(auditMark, r -> r.by(RealCluster.ARBITER_USER));
    }

    static void await(String what, BooleanSupplier condition) {
        await(what, condition, WAIT);
    }

    static void await(String what, BooleanSupplier condition, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            try {
                if (condition.getAsBoolean()) return;
            } catch (KubernetesClientException e) {
                // the server is restarting or refused for a moment; ask again
            }
            if (System.nanoTime() > deadline) fail("timed out after " + within.toSeconds() + " s waiting for: " + what);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for: " + what);
            }
        }
    }
}
