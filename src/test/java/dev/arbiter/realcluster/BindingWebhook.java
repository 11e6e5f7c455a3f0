package dev.arbiter.realcluster;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A real API server whose bindings are slow, or refused: a validating admission webhook (HTTPS on 127.0.0.1) that the
 * API server calls for every binding created in one namespace ({@code pods/binding}, and the older {@code bindings}
 * its probe uses). It answers "allowed" only after {@code delay}, so every binding there takes that much longer, as
 * on a loaded API server, and a fault can land while a gang's bindings are still in flight; and it refuses (422) the
 * bindings of pods named to {@link #refuse}, so a gang's binding fails part-way as a real server refuses one.
 * {@link #close()} removes the webhook and stops the server.
 */
final class BindingWebhook implements AutoCloseable {
    private static final Pattern UID = Pattern.compile("\"uid\"\\s*:\\s*\"([^\"]+)\"");
    /** The request's {@code name} (the pod's) is the first name in an AdmissionReview of a binding. */
    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");

    private final KubernetesClient admin;
    private final String name;
    private final HttpsServer server;
    private final ExecutorService handlers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "slow-bindings-webhook");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger calls = new AtomicInteger();
    private final java.util.Set<String> refused = ConcurrentHashMap.newKeySet();
    private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

    /**
     * Starts the webhook for bindings in {@code namespace} (which it labels) and returns once the API server calls it
     * (a dry-run binding of a probe pod went through it).
     */
    static BindingWebhook in(RealCluster cluster, String namespace, Duration delay) throws Exception {
        return new BindingWebhook(cluster, namespace, delay);
    }

    private BindingWebhook(RealCluster cluster, String namespace, Duration delay) throws Exception {
        this.admin = RealClusterTest.admin;
        this.name = "slow-bindings-" + namespace;
        char[] password = "webhook".toCharArray();
        Path store = cluster.dir.resolve(name + ".p12");
        Files.deleteIfExists(store);
        run(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-alias", "webhook",
                "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", new String(password)));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, password);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        Certificate cert = keys.getCertificate("webhook");
        String caBundle = Base64.getEncoder().encodeToString(("-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(cert.getEncoded())
                + "\n-----END CERTIFICATE-----\n").getBytes(StandardCharsets.US_ASCII));

        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(handlers);
        server.createContext("/", exchange -> {
            String review = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            calls.incrementAndGet();
            Matcher uid = UID.matcher(review);
            Matcher pod = NAME.matcher(review);
            String podName = pod.find() ? pod.group(1) : null;
            CountDownLatch gate = podName == null ? null : held.get(podName);
            if (gate != null && !review.contains("\"dryRun\":true")) {
                try {
                    gate.await(8, TimeUnit.SECONDS); // within the webhook's 10 s timeout
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            boolean refuse = podName != null && refused.contains(podName);
            String answer = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\""
                    + (uid.find() ? uid.group(1) : "") + "\",\"allowed\":" + (refuse
                    ? "false,\"status\":{\"code\":422,\"message\":\"refused by the test's webhook\"}}}" : "true}}");
            try {
                if (!review.contains("\"dryRun\":true")) Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();

        admin.namespaces().withName(namespace).edit(ns -> {
            ns.getMetadata().getLabels().put("arbiter.test/slow-bindings", "true");
            return ns;
        });
        ValidatingWebhookConfiguration hook = new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .addNewWebhook().withName("slow-bindings.arbiter.test")
                .withNewClientConfig().withUrl("https://127.0.0.1:" + server.getAddress().getPort() + "/").withCaBundle(caBundle).endClientConfig()
                .addNewRule().withOperations("CREATE").withApiGroups("").withApiVersions("v1").withResources("pods/binding", "bindings")
                .withScope("Namespaced").endRule()
                .withNewNamespaceSelector().withMatchLabels(Map.of("arbiter.test/slow-bindings", "true")).endNamespaceSelector()
                .withSideEffects("None").withAdmissionReviewVersions("v1").withFailurePolicy("Fail").withTimeoutSeconds(10)
                .endWebhook().build();
        admin.admissionRegistration().v1().validatingWebhookConfigurations().resource(hook).create();
        awaitActive(namespace);
    }

    /** From now on, bindings of pod {@code name} (in the webhook's namespace) are refused with 422. */
    void refuse(String name) {
        refused.add(name);
    }

    /**
     * From now on the API server's bindings of pod {@code name} wait in the webhook until {@link #release} (or 8 s), then
     * are allowed or refused as {@link #refuse} says: a gang's binding held part-way, for a fault to land meanwhile.
     */
    void hold(String name) {
        held.put(name, new CountDownLatch(1));
    }

    /** Bindings of pod {@code name} held by {@link #hold} are answered now, and later ones at once. */
    void release(String name) {
        CountDownLatch gate = held.remove(name);
        if (gate != null) gate.countDown();
    }

    /** Bindings of pod {@code name} are allowed again. */
    void allow(String name) {
        refused.remove(name);
    }

    /** How many admission reviews the API server sent (dry runs included). */
    int calls() {
        return calls.get();
    }

    /** A dry-run binding of a pod no scheduler picks, until the API server asks the webhook about it. */
    private void awaitActive(String namespace) throws InterruptedException {
        admin.pods().inNamespace(namespace).resource(new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata()
                .withName(name + "-probe").endMetadata().withNewSpec().withSchedulerName("nobody").addNewContainer()
                .withName("c").withImage("registry.example.com/probe:1").endContainer().endSpec().build()).create();
        var binding = new io.fabric8.kubernetes.api.model.BindingBuilder().withNewMetadata().withName(name + "-probe")
                .endMetadata().withNewTarget().withKind("Node").withName("no-such-node").endTarget().build();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String last = "no answer";
        while (calls.get() == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the API server never called the webhook " + name + "; the probe's binding: " + last);
            }
            try {
                admin.bindings().inNamespace(namespace).resource(binding).dryRun().create();
                last = "accepted";
            } catch (KubernetesClientException e) {
                last = e.getCode() + " " + e.getMessage(); // not called yet, or answered: either way, look again
            }
            if (calls.get() == 0) Thread.sleep(100);
        }
        admin.pods().inNamespace(namespace).withName(name + "-probe").withGracePeriod(0).delete();
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException(command.get(0) + " failed: " + out);
    }

    @Override
    public void close() {
        try {
            admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(name).delete();
        } catch (KubernetesClientException e) {
            // The cluster may be going down; the server below stops regardless.
        }
        server.stop(0);
        handlers.shutdownNow();
    }
}
