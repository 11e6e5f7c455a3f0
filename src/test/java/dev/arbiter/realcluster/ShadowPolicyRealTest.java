package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/**
 * Issue 39, item 4: {@code arbiter run --shadow-rules deploy/policies/capacity --metrics-secure} on the real API server,
 * as a platform engineer runs it. Two queues of equal weight say they deserve 6 and 2 of the node's 8 CPUs: the
 * active (shipped, proportion) policy gives each 4 and binds 4 pods of each; the capacity pack would bind 6 of a's and
 * 2 of b's. Only the active policy's bindings reach the cluster; the shadow's differences are on {@code /shadow},
 * behind the same authorization as {@code /metrics}, and in {@code arbiter shadow-report}.
 */
class ShadowPolicyRealTest extends RealClusterTest {
    @Test
    void theCandidatesDifferencesAreReportedBehindTheMetricsAuthorizationAndNeverActedOn() throws Exception {
        String ns = "shadow";
        cluster.namespace(ns);
        node(ns + "-0", java.util.Map.of("cpu", "8", "memory", "64Gi", "pods", "110"));
        List<String> objects = new ArrayList<>(List.of(queueDeserving("a", 6), queueDeserving("b", 2),
                podGroup(ns, "wa", "a", 1), podGroup(ns, "wb", "b", 1)));
        for (int i = 0; i < 6; i++) {
            objects.add(pod(ns, "a-" + i, "wa", "arbiter", 0, null));
            objects.add(pod(ns, "b-" + i, "wb", "arbiter", 0, null));
        }
        // Everything is there before arbiter starts, so that its first cycle sees both queues' demand at once.
        apply(docs(objects));

        int port = freePort(), healthPort = freePort();
        Path log = dir.resolve("run.log");
        run(port, healthPort, log);
        HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).connectTimeout(Duration.ofSeconds(5)).build();
        String shadow = "https://127.0.0.1:" + port + "/shadow";
        await("arbiter binds the active policy's 8 pods", () -> bound(ns) == 8, Duration.ofSeconds(90));
        await("the shadow has compared a cycle", () -> {
            HttpResponse<String> r = get(http, shadow, RealCluster.ADMIN_TOKEN);
            return r != null && r.statusCode() == 200 && r.body().contains("\"binding\": 4");
        });
        for (int i = 0; i < 4; i++) {
            assertTrue(nodeOf(ns, "a-" + i) != null && nodeOf(ns, "b-" + i) != null, "the active policy's 4 and 4");
        }
        assertNull(nodeOf(ns, "a-4"), "the capacity pack would bind a-4; nothing acts on it");
        assertNull(nodeOf(ns, "a-5"));

        assertEquals(401, get(http, shadow, null).statusCode(), "/shadow is behind the metrics' authorization");
        HttpResponse<String> denied = get(http, shadow, RealCluster.KUBE_SCHEDULER_TOKEN);
        assertEquals(403, denied.statusCode(), denied.body());
        String body = get(http, shadow, RealCluster.ADMIN_TOKEN).body();
        assertTrue(body.contains("{\"kind\": \"binding\", \"subject\": \"shadow/a-4\", \"active\": \"pending\", \"shadow\": \"shadow-0\""), body);
        assertTrue(body.contains("{\"kind\": \"share\", \"subject\": \"a\", \"active\": \"{cpu: 4, memory: 6Gi}\", \"shadow\": \"{cpu: 6}\""), body);
        String metrics = get(http, "https://127.0.0.1:" + port + "/metrics", RealCluster.ADMIN_TOKEN).body();
        assertTrue(metrics.contains("arbiter_shadow_differences_total{kind=\"binding\"} 4.0"), metrics);
        assertTrue(metrics.contains("arbiter_shadow_cycles_total{result=\"failed\"} 0.0"), metrics);

        Path token = Files.writeString(dir.resolve("token"), RealCluster.ADMIN_TOKEN + "\n");
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.run(new String[] {"shadow-report", "--url", shadow, "--token-file", token.toString(),
                "--insecure-skip-tls-verify"}, new PrintWriter(out, true), new PrintWriter(err, true));
        assertEquals(0, code, err.toString());
        assertTrue(out.toString().matches("(?s).*\\nbinding\\s+shadow/a-4\\s+pending\\s+shadow-0\\s+.*"), out.toString());
        assertTrue(out.toString().contains("Differences: 4 binding, 0 eviction, 0 podgroup_phase, "), out.toString());
        String line = Files.readAllLines(log).stream().filter(l -> l.contains("differs in cycle")).findFirst().orElse("");
        assertTrue(line.contains("4 binding, 2 share; rules: "), () -> "one summary line per cycle that differed:\n" + RealCluster.tail(log, 30));
    }

    @org.junit.jupiter.api.io.TempDir
    Path dir;

    private static String queueDeserving(String name, int cpus) {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: %s}
                spec: {weight: 1, reclaimable: true, deserved: {cpu: "%d"}}
                """.formatted(name, cpus);
    }

    private void run(int port, int healthPort, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "dev.arbiter.cli.Main",
                "run", "--kubeconfig", cluster.arbiterKubeconfig().toString(), "--scheduler-name", "arbiter", "--rules", "rules",
                "--shadow-rules", "deploy/policies/capacity", "--period", "500ms", "--metrics-port", String.valueOf(port),
                "--metrics-bind-address", "127.0.0.1", "--metrics-secure", "--health-port", String.valueOf(healthPort),
                "--rules-cache", "off"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("POD_NAME", "arbiter-shadow");
        pb.environment().put("POD_NAMESPACE", "arbiter-system");
        Process p = pb.start();
        closeAfter(p::destroyForcibly);
    }

    private static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (token != null) b.header("Authorization", "Bearer " + token);
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static SSLContext trustAll() throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new TrustManager[] {new X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] c, String a) {}

            public void checkServerTrusted(X509Certificate[] c, String a) {}

            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        return ssl;
    }
}
