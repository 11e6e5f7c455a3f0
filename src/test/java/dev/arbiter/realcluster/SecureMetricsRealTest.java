package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.MetricsAuth;
import dev.arbiter.live.MetricsServer;
import dev.arbiter.live.ServingCert;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/**
 * {@code --metrics-secure} on a real API server, with Arbiter's own ServiceAccount and the shipped RBAC: {@code /metrics}
 * over HTTPS answers 401 without a valid token, 403 to a user the API server does not allow {@code get /metrics}, and
 * the metrics to one it does (here: an administrator; then kube-scheduler's user once bound to the shipped
 * {@code arbiter-metrics-reader} ClusterRole). The probes answer on their own plain port.
 */
class SecureMetricsRealTest extends RealClusterTest {
    @Test
    void onlyCallersTheApiServerAllowsReadTheMetrics() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.counter("arbiter.test.scrapes").increment();
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).connectTimeout(Duration.ofSeconds(5)).build();
        try (MetricsServer secure = new MetricsServer(any, registry, () -> true, () -> true,
                MetricsServer.Serving.secure(ServingCert.of(null, List.of("localhost", "127.0.0.1")),
                        new MetricsAuth(cluster.arbiterClient(AGENT))));
             MetricsServer probes = new MetricsServer(any, registry, () -> true, () -> true, MetricsServer.Serving.PROBES)) {
            String metrics = "https://127.0.0.1:" + secure.port() + "/metrics";
            assertEquals(401, get(http, metrics, null).statusCode());
            assertEquals(401, get(http, metrics, "not-a-token").statusCode());
            HttpResponse<String> denied = get(http, metrics, RealCluster.KUBE_SCHEDULER_TOKEN);
            assertEquals(403, denied.statusCode(), denied.body());
            assertTrue(denied.body().contains("system:kube-scheduler may not get /metrics"), denied.body());
            HttpResponse<String> admin = get(http, metrics, RealCluster.ADMIN_TOKEN);
            assertEquals(200, admin.statusCode(), admin.body());
            assertTrue(admin.body().contains("arbiter_test_scrapes_total 1.0"), admin.body());
            assertEquals(404, get(http, "https://127.0.0.1:" + secure.port() + "/healthz", null).statusCode(),
                    "the probes are not on the secure port");
            assertEquals(200, get(http, "http://127.0.0.1:" + probes.port() + "/healthz", null).statusCode());
            assertEquals(404, get(http, "http://127.0.0.1:" + probes.port() + "/metrics", null).statusCode(),
                    "the metrics are not on the plain port");
        }
        // Bound to the shipped reader role, kube-scheduler's user may read them (a new server: answers are kept 30 s).
        admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
                .withName("test-metrics-reader").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole").withName("arbiter-metrics-reader").endRoleRef().addNewSubject()
                .withKind("User").withName(RealCluster.KUBE_SCHEDULER_USER).withApiGroup("rbac.authorization.k8s.io")
                .endSubject().build()).serverSideApply();
        try (MetricsServer secure = new MetricsServer(any, registry, () -> true, () -> true,
                MetricsServer.Serving.secure(ServingCert.of(null, List.of("localhost", "127.0.0.1")),
                        new MetricsAuth(cluster.arbiterClient(AGENT))))) {
            String metrics = "https://127.0.0.1:" + secure.port() + "/metrics";
            String[] last = new String[1];
            try {
            await("the reader binding is in force", () -> {
                try {
                    HttpResponse<String> r = get(http, metrics, RealCluster.KUBE_SCHEDULER_TOKEN);
                    last[0] = r.statusCode() + " " + r.body();
                    return r.statusCode() == 200;
                } catch (Exception e) {
                    last[0] = e.toString();
                    return false;
                }
            });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; last answer: " + last[0]);
            }
        } finally {
            admin.rbac().clusterRoleBindings().withName("test-metrics-reader").delete();
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
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
