package dev.arbiter.realcluster;

import dev.arbiter.json.JsonWriter;
import dev.arbiter.runtime.KubeClients;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A real Kubernetes control plane on 127.0.0.1, for the real-cluster tests and {@code bench --apiserver}
 * ({@link ApiServerBenchmark}): etcd and kube-apiserver (built by
 * {@code .ci/cluster-binaries}), with RBAC and Node authorization, a service-account issuer and key pair, an audit log
 * of every request, an admin identity (a static token in group {@code system:masters}) and Arbiter's ServiceAccount
 * from the shipped {@code deploy/} manifests, applied server-side by the release's own kubectl.
 *
 * <p>No controller-manager and no kubelet run: {@link #node} creates Ready, untainted Nodes, {@link #namespace}
 * creates a namespace with its {@code default} ServiceAccount, and {@link KubeletStandIn} plays the kubelet's part
 * for pods. The API server and etcd can be killed and restarted on the same ports and data ({@link #restartApiServer},
 * {@link #restartEtcd}); etcd can be compacted ({@link #compactEtcd}). Everything runs under one folder and every
 * process is killed on {@link #close()} (and by a shutdown hook, should the JVM end otherwise).
 */
final class RealCluster implements AutoCloseable {
    static final String ADMIN_TOKEN = "arbiter-test-admin-" + Long.toHexString(new SecureRandom().nextLong());
    static final String ADMIN_USER = "test-admin";
    static final String ARBITER_USER = "system:serviceaccount:arbiter-system:arbiter";
    /** kube-scheduler's identity, which the API server's bootstrap RBAC grants what it needs. */
    static final String KUBE_SCHEDULER_USER = "system:kube-scheduler";
    static final String KUBE_SCHEDULER_TOKEN = "kube-scheduler-" + Long.toHexString(new SecureRandom().nextLong());
    private static final Duration READY = Duration.ofSeconds(60);
    /**
     * The feature gates the API server and kube-scheduler run with: the upstream Workload API's (beta, off by default
     * in 1.37), so that both serve and schedule {@code scheduling.k8s.io/v1beta1} PodGroups (kube-scheduler then
     * enables its {@code GangScheduling} plugin).
     */
    static final String FEATURE_GATES = "GenericWorkload=true";

    final Path bin;
    final Path dir;
    final int etcdPort;
    final int etcdPeerPort;
    final int apiPort;
    private final List<Process> processes = new ArrayList<>();
    private Process etcd;
    private Process apiServer;
    private Process secondApiServer;
    private volatile int restarts;
    private int secondPort;
    private final Set<KubernetesClient> clients = ConcurrentHashMap.newKeySet();
    private KubernetesClient admin;
    private String arbiterToken;
    final AuditLog audit;

    private RealCluster(Path bin, Path dir) throws IOException {
        this.bin = bin;
        this.dir = dir;
        this.etcdPort = freePort();
        this.etcdPeerPort = freePort();
        this.apiPort = freePort();
        this.audit = new AuditLog(dir.resolve("audit.log"));
        Runtime.getRuntime().addShutdownHook(new Thread(this::killAll, "real-cluster-teardown"));
    }

    /**
     * Starts etcd and the API server, applies the shipped manifests and returns once Arbiter's identity works. A port
     * chosen free can be taken before the server binds it (an outgoing connection's ephemeral port, as the API server's
     * own to etcd): then the whole start is tried again on other ports, in a folder of its own, up to three times.
     */
    static RealCluster start(Path bin, Path dir) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(bin, attempt == 1 ? dir : dir.resolve("attempt-" + attempt));
            } catch (IllegalStateException e) {
                if (attempt == 3 || e.getMessage() == null || !e.getMessage().contains("address already in use")) throw e;
            }
        }
    }

    private static RealCluster startOnce(Path bin, Path dir) throws IOException, InterruptedException {
        RealCluster c = new RealCluster(bin, dir);
        try {
            c.writeFiles();
            c.startEtcd();
            c.startApiServer();
            c.admin = c.newAdminClient();
            c.applyShipped();
            c.awaitServing();
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Where the project is: {@code $ARBITER_HOME} when set (the launcher sets it), else the working directory. */
    static Path home() {
        String home = System.getenv("ARBITER_HOME");
        return (home == null || home.isBlank() ? Path.of("") : Path.of(home)).toAbsolutePath();
    }

    String url() {
        return "https://127.0.0.1:" + apiPort;
    }

    // ---- files ---------------------------------------------------------------------------------------------------

    private void writeFiles() throws IOException {
        Files.createDirectories(dir.resolve("certs"));
        KeyPairGenerator g;
        try {
            g = KeyPairGenerator.getInstance("RSA");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        g.initialize(2048);
        KeyPair sa = g.generateKeyPair();
        Files.writeString(dir.resolve("sa.key"), pem("PRIVATE KEY", sa.getPrivate().getEncoded()));
        Files.writeString(dir.resolve("sa.pub"), pem("PUBLIC KEY", sa.getPublic().getEncoded()));
        Files.writeString(dir.resolve("tokens.csv"), ADMIN_TOKEN + "," + ADMIN_USER + "," + ADMIN_USER + ",\"system:masters\"\n"
                + KUBE_SCHEDULER_TOKEN + "," + KUBE_SCHEDULER_USER + "," + KUBE_SCHEDULER_USER + "\n");
        // Metadata of every request but the health probes, once each (when the response is complete).
        Files.writeString(dir.resolve("audit-policy.yaml"), """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: [RequestReceived, ResponseStarted]
                rules:
                  - level: None
                    nonResourceURLs: [/healthz*, /readyz*, /livez*]
                  - level: Metadata
                """);
        writeKubeconfig(dir.resolve("admin.kubeconfig"), ADMIN_TOKEN);
    }

    /** A kubeconfig for {@code token} on this cluster (TLS not verified: the server's certificate is self-signed). */
    Path writeKubeconfig(Path file, String token) throws IOException {
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: real, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: user, user: {token: "%s"}}]
                contexts: [{name: real, context: {cluster: real, user: user, namespace: default}}]
                current-context: real
                """.formatted(url(), token));
        return file;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    // ---- processes -----------------------------------------------------------------------------------------------

    /**
     * How many times etcd or the API server has been (re)started after the cluster first came up. A restarted API
     * server answers requests its RBAC grants with 403 for a moment, while its authorizer's cache fills: a test that
     * restarts the control plane tolerates those (and only those) 403s.
     */
    int restarts() {
        return restarts;
    }

    synchronized void startEtcd() throws IOException, InterruptedException {
        if (etcd != null) restarts++;
        etcd = spawn("etcd", List.of(bin.resolve("etcd").toString(),
                "--name", "default", "--data-dir", dir.resolve("etcd-data").toString(),
                "--listen-client-urls", "http://127.0.0.1:" + etcdPort,
                "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls", "http://127.0.0.1:" + etcdPeerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + etcdPeerPort,
                "--initial-cluster", "default=http://127.0.0.1:" + etcdPeerPort,
                "--unsafe-no-fsync", "--log-level", "warn"));
        awaitHttp("etcd", "http://127.0.0.1:" + etcdPort + "/health", etcd, false);
    }

    synchronized void startApiServer() throws IOException, InterruptedException {
        if (apiServer != null) restarts++;
        apiServer = spawn("kube-apiserver", apiServerCommand(apiPort, "certs", audit.file()));
        awaitHttp("kube-apiserver", url() + "/readyz", apiServer, true);
    }

    private List<String> apiServerCommand(int port, String certDir, Path auditFile) {
        return List.of(bin.resolve("kube-apiserver").toString(),
                "--etcd-servers", "http://127.0.0.1:" + etcdPort,
                "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
                "--secure-port", String.valueOf(port),
                "--cert-dir", dir.resolve(certDir).toString(),
                "--authorization-mode", "Node,RBAC",
                "--token-auth-file", dir.resolve("tokens.csv").toString(),
                "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file", dir.resolve("sa.pub").toString(),
                "--service-account-signing-key-file", dir.resolve("sa.key").toString(),
                "--service-cluster-ip-range", "10.96.0.0/24",
                "--endpoint-reconciler-type", "none",
                "--audit-policy-file", dir.resolve("audit-policy.yaml").toString(),
                "--audit-log-path", auditFile.toString(),
                "--audit-log-mode", "blocking",
                // The upstream Workload API (KEP-4671): scheduling.k8s.io/v1beta1 Workloads and PodGroups, and pods'
                // spec.schedulingGroup, served as a 1.37 cluster that turned them on serves them.
                "--feature-gates", FEATURE_GATES,
                "--runtime-config", "scheduling.k8s.io/v1beta1=true",
                "--v", "1");
    }

    /**
     * A second API server on the same etcd (as in a highly available control plane), for the test's own requests
     * while the first is down or frozen; its audit log is apart. Returns an admin client on it, closed with the
     * cluster; the server stops with {@link #stopSecondApiServer()} or with the cluster.
     */
    synchronized KubernetesClient startSecondApiServer() throws IOException, InterruptedException {
        if (secondPort == 0) secondPort = freePort();
        Files.createDirectories(dir.resolve("certs-2"));
        secondApiServer = spawn("kube-apiserver-2", apiServerCommand(secondPort, "certs-2", dir.resolve("audit-2.log")));
        awaitHttp("kube-apiserver-2", "https://127.0.0.1:" + secondPort + "/readyz", secondApiServer, true);
        return adminClient(secondUrl());
    }

    String secondUrl() {
        return "https://127.0.0.1:" + secondPort;
    }

    synchronized void stopSecondApiServer() throws InterruptedException {
        kill(secondApiServer);
        secondApiServer = null;
    }

    /** Freezes the API server ({@code kill -STOP}): connections stay open, nothing is answered, until {@link #thawApiServer}. */
    void freezeApiServer() throws IOException, InterruptedException {
        signal("STOP", apiServer);
    }

    void thawApiServer() throws IOException, InterruptedException {
        signal("CONT", apiServer);
    }

    /**
     * The release's kube-scheduler (default plugins, no leader election) on its own identity, beside Arbiter; killed
     * with the cluster or by the caller.
     */
    Process startKubeScheduler() throws IOException {
        Path kubeconfig = writeKubeconfig(dir.resolve("kube-scheduler.kubeconfig"), KUBE_SCHEDULER_TOKEN);
        return spawn("kube-scheduler", List.of(bin.resolve("kube-scheduler").toString(), "--kubeconfig", kubeconfig.toString(),
                "--leader-elect=false", "--bind-address", "127.0.0.1", "--secure-port", String.valueOf(freePort()),
                "--feature-gates", FEATURE_GATES, "--v", "1"));
    }

    /**
     * As {@link #startKubeScheduler()}, with its client allowed {@code qps} requests a second (burst the same), so
     * that its client's rate limit is not what a benchmark measures (its default is 50).
     */
    Process startKubeScheduler(int qps) throws IOException {
        Path kubeconfig = writeKubeconfig(dir.resolve("kube-scheduler.kubeconfig"), KUBE_SCHEDULER_TOKEN);
        Path config = Files.writeString(dir.resolve("kube-scheduler.yaml"), """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                clientConnection: {kubeconfig: "%s", qps: %d, burst: %d}
                leaderElection: {leaderElect: false}
                """.formatted(kubeconfig, qps, qps));
        return spawn("kube-scheduler", List.of(bin.resolve("kube-scheduler").toString(), "--config", config.toString(),
                "--bind-address", "127.0.0.1", "--secure-port", String.valueOf(freePort()), "--feature-gates", FEATURE_GATES,
                "--v", "1"));
    }

    /**
     * A Node with {@code allocatable} (and the same capacity), Ready and untainted, as the kubelet and the node
     * lifecycle controller would leave it.
     */
    void node(String name, java.util.Map<String, String> allocatable) {
        java.util.Map<String, io.fabric8.kubernetes.api.model.Quantity> q = new java.util.LinkedHashMap<>();
        allocatable.forEach((k, v) -> q.put(k, new io.fabric8.kubernetes.api.model.Quantity(v)));
        String now = java.time.Instant.now().toString().replaceAll("\\.\\d+Z$", "Z");
        admin.nodes().resource(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name).endMetadata().build()).create();
        // The API server's admission taints a new Node not-ready until its controller sees the kubelet report; this
        // reports Ready and lifts the taint, as the node lifecycle controller would.
        admin.nodes().withName(name).edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).editSpec()
                .withTaints(List.of()).endSpec().build());
        admin.nodes().withName(name).editStatus(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).withNewStatus()
                .withCapacity(q).withAllocatable(q).addNewCondition().withType("Ready").withStatus("True")
                .withReason("KubeletReady").withLastHeartbeatTime(now).withLastTransitionTime(now).endCondition()
                .endStatus().build());
    }

    private static void signal(String signal, Process p) throws IOException, InterruptedException {
        if (p == null || !p.isAlive()) return;
        new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).inheritIO().start().waitFor();
    }

    /** {@code kill -9} the API server (etcd keeps running). */
    synchronized void killApiServer() throws InterruptedException {
        kill(apiServer);
    }

    /** {@code kill -9} the API server, then start it again on the same port, certificates and etcd. */
    void restartApiServer() throws IOException, InterruptedException {
        killApiServer();
        startApiServer();
        awaitServing();
    }

    /** {@code kill -9} etcd (the API server keeps running, and answers errors meanwhile). */
    synchronized void killEtcd() throws InterruptedException {
        kill(etcd);
    }

    /** {@code kill -9} etcd, then start it again on its data; returns once the API server is ready again. */
    void restartEtcd() throws IOException, InterruptedException {
        killEtcd();
        startEtcd();
        awaitHttp("kube-apiserver", url() + "/readyz", apiServer, true);
        awaitServing();
    }

    /**
     * Waits until the admin can list what the tests and Arbiter read. A server is ready (/readyz) before its watch
     * caches are: until then it answers lists of custom resources 429 "storage is (re)initializing".
     */
    void awaitServing() throws InterruptedException {
        long deadline = System.nanoTime() + READY.toNanos();
        while (true) {
            try {
                // resourceVersion 0: from the watch cache, as informers list.
                var fromCache = new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withResourceVersion("0").build();
                admin.pods().inAnyNamespace().list(fromCache);
                admin.nodes().list(fromCache);
                admin.resources(dev.arbiter.live.VolcanoQueue.class).list(fromCache);
                admin.resources(dev.arbiter.live.VolcanoPodGroup.class).inAnyNamespace().list(fromCache);
                admin.resources(dev.arbiter.live.WorkloadPodGroup.class).inAnyNamespace().list(fromCache);
                return;
            } catch (KubernetesClientException e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }

    private void kill(Process p) throws InterruptedException {
        if (p == null || !p.isAlive()) return;
        p.destroyForcibly();
        p.waitFor(20, TimeUnit.SECONDS);
    }

    private Process spawn(String name, List<String> cmd) throws IOException {
        Path log = dir.resolve(name + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        synchronized (processes) {
            processes.add(p);
        }
        return p;
    }

    private void awaitHttp(String name, String url, Process p, boolean authorized) throws InterruptedException, IOException {
        HttpClient http = insecureHttp();
        long deadline = System.nanoTime() + READY.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new IllegalStateException(name + " exited with " + p.exitValue() + ": " + tail(name));
            try {
                HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2));
                if (authorized) r.header("Authorization", "Bearer " + ADMIN_TOKEN);
                HttpResponse<String> res = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() == 200) return;
                last = "HTTP " + res.statusCode() + " " + res.body().lines().limit(3).toList();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(name + " not ready within " + READY.toSeconds() + " s (" + last + "): " + tail(name));
    }

    /** The last lines a process of the cluster wrote, for failure messages. */
    String tail(String name) {
        return tail(dir.resolve(name + ".log"), 15);
    }

    /** The last {@code lines} lines of {@code log}, for failure messages and for awaiting a line. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    static HttpClient insecureHttp() {
        try {
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, new TrustManager[] {new X509TrustManager() {
                public void checkClientTrusted(X509Certificate[] c, String a) {}

                public void checkServerTrusted(X509Certificate[] c, String a) {}

                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(2)).build();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- identities and manifests -----------------------------------------------------------------------------------

    /** The admin client (system:masters): the test's own hands. */
    KubernetesClient admin() {
        return admin;
    }

    private KubernetesClient newAdminClient() {
        return adminClient(url());
    }

    private KubernetesClient adminClient(String url) {
        return adminClient(url, Duration.ofSeconds(20), 5);
    }

    /**
     * An admin client with {@code timeout} per request and up to {@code concurrency} requests in flight (fabric8's
     * default is 5 per host), for a benchmark's load; closed with the cluster.
     */
    KubernetesClient adminClient(Duration timeout, int concurrency) {
        return adminClient(url(), timeout, concurrency);
    }

    private KubernetesClient adminClient(String url, Duration timeout, int concurrency) {
        Config config = new ConfigBuilder().withMasterUrl(url).withOauthToken(ADMIN_TOKEN).withTrustCerts(true)
                .withDisableHostnameVerification(true).withRequestTimeout((int) timeout.toMillis()).withConnectionTimeout(5_000)
                .withMaxConcurrentRequests(Math.max(64, concurrency)).withMaxConcurrentRequestsPerHost(concurrency)
                .withUserAgent("arbiter-test-admin").build();
        return track(new KubernetesClientBuilder().withConfig(config).build());
    }

    /**
     * A client as {@code arbiter run} makes one ({@link KubeClients#config}, from a kubeconfig) on Arbiter's
     * ServiceAccount token, with {@code userAgent}; closed with the cluster.
     */
    KubernetesClient arbiterClient(String userAgent) {
        return arbiterClient(userAgent, url());
    }

    /** As {@link #arbiterClient(String)}, on the API server at {@code url} (the second one, say). */
    KubernetesClient arbiterClient(String userAgent, String url) {
        try {
            Config config = KubeClients.config(arbiterKubeconfig(), Duration.ofSeconds(10));
            config.setMasterUrl(url);
            config.setUserAgent(userAgent);
            config.setDisableHostnameVerification(true);
            return track(new KubernetesClientBuilder().withConfig(config).build());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A kubeconfig with Arbiter's ServiceAccount token (one token per cluster, valid for 2 hours). */
    synchronized Path arbiterKubeconfig() throws IOException {
        if (arbiterToken == null) {
            TokenRequest request = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(7200L).endSpec().build();
            arbiterToken = admin.serviceAccounts().inNamespace("arbiter-system").withName("arbiter")
                    .tokenRequest(request).getStatus().getToken();
        }
        return writeKubeconfig(dir.resolve("arbiter.kubeconfig"), arbiterToken);
    }

    KubernetesClient track(KubernetesClient c) {
        clients.add(c);
        return c;
    }

    /** The CRDs and Arbiter's RBAC, namespace and Deployment as the README installs them: {@code apply --server-side}. */
    private void applyShipped() throws IOException, InterruptedException {
        kubectl("apply", "--server-side", "--force-conflicts", "-k", home().resolve("deploy").toString());
        kubectl("wait", "--for", "condition=Established", "--timeout", "60s",
                "crd/queues.scheduling.volcano.sh", "crd/podgroups.scheduling.volcano.sh", "crd/hypernodes.topology.volcano.sh");
    }

    /** Runs the release's kubectl as admin; returns its output; throws with the output when it fails. */
    String kubectl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(bin.resolve("kubectl").toString(), "--kubeconfig",
                dir.resolve("admin.kubeconfig").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("kubectl " + String.join(" ", args) + " took over 120 s");
        }
        if (p.exitValue() != 0) throw new IllegalStateException("kubectl " + String.join(" ", args) + " failed: " + out);
        return out;
    }

    /** A namespace with its {@code default} ServiceAccount (which the controller-manager would create). */
    void namespace(String name) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .serverSideApply();
        try {
            admin.serviceAccounts().inNamespace(name).resource(new ServiceAccountBuilder().withNewMetadata()
                    .withName("default").withNamespace(name).endMetadata().build()).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) throw e;
        }
    }

    /** The etcd revision now, read through etcd's JSON gateway. */
    long etcdRevision() throws IOException, InterruptedException {
        String body = etcdPost("/v3/kv/range", JsonWriter.compact().startObject()
                .field("key", Base64.getEncoder().encodeToString("/".getBytes(StandardCharsets.UTF_8))).field("limit", 1)
                .endObject().toString());
        JsonNode revision = new ObjectMapper().readTree(body).path("header").path("revision");
        if (revision.isMissingNode()) throw new IllegalStateException("no revision in " + body);
        return Long.parseLong(revision.asString());
    }

    /** Compacts etcd's history up to its current revision: a watch from an older resource version is then 410 Gone. */
    long compactEtcd() throws IOException, InterruptedException {
        long revision = etcdRevision();
        etcdPost("/v3/kv/compaction", JsonWriter.compact().startObject().field("revision", Long.toString(revision))
                .field("physical", true).endObject().toString());
        return revision;
    }

    private String etcdPost(String path, String json) throws IOException, InterruptedException {
        HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + etcdPort + path)).POST(HttpRequest.BodyPublishers.ofString(json))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 200) throw new IllegalStateException("etcd " + path + ": HTTP " + res.statusCode() + " " + res.body());
        return res.body();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private void killAll() {
        clients.forEach(c -> {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // closing a client of a dead server may fail; the processes go below regardless
            }
        });
        clients.clear();
        List<Process> all;
        synchronized (processes) {
            all = new ArrayList<>(processes);
        }
        for (Process p : all) {
            if (p.isAlive()) p.destroyForcibly();
        }
        for (Process p : all) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Kills every process and deletes the cluster's folder (etcd's data, logs, keys), unless ARBITER_KEEP_CLUSTER is set. */
    @Override
    public void close() {
        killAll();
        if (System.getenv("ARBITER_KEEP_CLUSTER") != null) return;
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a folder left in the temp directory is no test failure
        }
    }
}
