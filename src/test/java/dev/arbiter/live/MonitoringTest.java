package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.arbiter.cli.Main;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * deploy/monitoring: the alert rules pass {@code promtool check rules} and their unit test ({@code promtool test
 * rules}); the PrometheusRule holds the same groups; and a real Prometheus (Debian's {@code prometheus} package), scraping
 * a running {@code arbiter run}, finds every series the alerts and the Grafana dashboard use, and evaluates every one of
 * their expressions without error.
 */
@EnableKubernetesMockClient(crud = true)
class MonitoringTest {
    private static final Path DIR = Path.of("deploy/monitoring");
    private static final Path RULES = DIR.resolve("arbiter-alerts.rules.yaml");
    private static final Pattern METRIC = Pattern.compile("\\b((?:arbiter|volcano)_[a-z_]+)\\b");

    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    private static String prometheus;
    private static String promtool;

    @BeforeAll
    static void binaries() {
        prometheus = onPath("prometheus");
        promtool = onPath("promtool");
        if (prometheus == null || promtool == null) {
            String why = "no prometheus or promtool on the PATH (Debian's prometheus package; .ci/run installs it)";
            if ("true".equals(System.getenv("CI"))) fail(why);
            Assumptions.abort(why);
        }
    }

    private static String onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    @Test
    void theAlertsPassPromtoolAndTheirUnitTest() throws Exception {
        assertTrue(run(promtool, "check", "rules", RULES.toString()).contains("SUCCESS"));
        assertTrue(run(promtool, "test", "rules", DIR.resolve("arbiter-alerts.test.yaml").toString()).contains("SUCCESS"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void thePrometheusRuleHoldsTheRulesFilesGroups() throws IOException {
        Map<String, Object> plain = yaml(RULES);
        Map<String, Object> operator = yaml(DIR.resolve("prometheusrule.yaml"));
        assertEquals("PrometheusRule", operator.get("kind"));
        assertEquals(plain.get("groups"), ((Map<String, Object>) operator.get("spec")).get("groups"));
    }

    @Test
    void aRealPrometheusScrapingArbiterFindsEverySeriesTheAlertsAndTheDashboardUse() throws Exception {
        List<String> exprs = new ArrayList<>(alertExpressions());
        exprs.addAll(dashboardExpressions());
        int metricsPort = freePort();
        int promPort = freePort();
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(node("node-1", 8));
            fx.create(pod("team", "job", "batch", 2, null));
            fx.create(LiveFixture.podGroup("team", "gang", "default", 1));
            fx.create(pod("team", "member", "batch", 1, "gang"));
            Path kubeconfig = fx.writeKubeconfig(dir.resolve("kubeconfig"));
            Thread run = new Thread(() -> Main.run(new String[] {"run", "--kubeconfig", kubeconfig.toString(),
                    "--scheduler-name", "batch", "--rules", "rules", "--period", "200ms", "--metrics-bind-address",
                    "127.0.0.1", "--metrics-port", String.valueOf(metricsPort)},
                    new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter(), true)), "arbiter-run");
            run.start();
            Process prom = null;
            try {
                await("bound by arbiter run", () -> "node-1".equals(fx.nodeOf("team/job"))
                        && "node-1".equals(fx.nodeOf("team/member")), LiveFixture.WAIT.multipliedBy(2));
                Path config = dir.resolve("prometheus.yml");
                Files.writeString(config, """
                        global: {scrape_interval: 1s, evaluation_interval: 1s}
                        scrape_configs:
                          - job_name: arbiter
                            static_configs: [{targets: ["127.0.0.1:%d"]}]
                        """.formatted(metricsPort));
                prom = new ProcessBuilder(prometheus, "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("tsdb"),
                        "--web.listen-address=127.0.0.1:" + promPort, "--log.level=warn")
                        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
                String api = "http://127.0.0.1:" + promPort + "/api/v1/";
                // Two scrapes, so that rate() over the cycle histogram has samples to work on.
                await("Prometheus has scraped Arbiter twice", () -> {
                    JsonNode r = query(http, api, "count_over_time(arbiter_leader[1m])");
                    return r != null && r.path("data").path("result").size() == 1
                            && r.path("data").path("result").get(0).path("value").get(1).asDouble() >= 2;
                }, Duration.ofSeconds(60));
                JsonNode names = get(http, api + "label/__name__/values");
                TreeSet<String> scraped = new TreeSet<>();
                names.path("data").forEach(n -> scraped.add(n.asText()));
                for (String expr : exprs) {
                    Matcher m = METRIC.matcher(expr);
                    while (m.find()) assertTrue(scraped.contains(m.group(1)), m.group(1) + " (in " + expr + ") is not scraped: " + scraped);
                    JsonNode r = query(http, api, expr.replace("$resource", "cpu"));
                    assertEquals("success", r.path("status").asText(), expr + ": " + r);
                }
                // The Volcano names a Volcano dashboard reads are there too.
                for (String v : List.of("volcano_queue_allocated_milli_cpu", "volcano_queue_deserved_scalar_resources",
                        "volcano_e2e_scheduling_latency_milliseconds_bucket", "volcano_queue_share")) {
                    assertTrue(scraped.contains(v), v + " is not scraped: " + scraped);
                }
                // Volcano's series from a real run, with the values the cluster implies: two pods of 1 CPU bound on
                // the one node of 96 CPUs (no guarantees, so the default queue's real capability is the node), one
                // PodGroup running, two bindings accepted, the gang's per-job series.
                Map<String, Double> expected = Map.of(
                        "volcano_queue_request_milli_cpu{queue_name=\"default\"}", 2000.0,
                        "volcano_queue_allocated_milli_cpu{queue_name=\"default\"}", 2000.0,
                        "volcano_queue_real_capacity_milli_cpu{queue_name=\"default\"}", 96000.0,
                        "volcano_queue_inqueue_milli_cpu{queue_name=\"default\"}", 0.0,
                        "volcano_schedule_attempts_total{result=\"scheduled\"}", 2.0,
                        "volcano_schedule_attempts_total{result=\"error\"}", 0.0,
                        "count(volcano_e2e_job_scheduling_duration{job_name=\"gang\",job_namespace=\"team\",queue=\"default\"})", 1.0,
                        "volcano_e2e_job_scheduling_latency_milliseconds_count", 1.0,
                        "volcano_total_preemption_attempts", 0.0);
                for (Map.Entry<String, Double> e : expected.entrySet()) {
                    await(e.getKey() + " = " + e.getValue(), () -> {
                        JsonNode r = query(http, api, e.getKey());
                        JsonNode result = r == null ? null : r.path("data").path("result");
                        return result != null && result.size() == 1
                                && result.get(0).path("value").get(1).asDouble() == e.getValue();
                    }, Duration.ofSeconds(30));
                }
                JsonNode running = query(http, api, "volcano_queue_pod_group_running_count{queue_name=\"default\"}");
                assertTrue(running.path("data").path("result").get(0).path("value").get(1).asDouble() >= 1, running.toString());
            } finally {
                if (prom != null) {
                    prom.destroy();
                    if (!prom.waitFor(10, TimeUnit.SECONDS)) prom.destroyForcibly();
                }
                run.interrupt();
                run.join(30_000);
            }
        }
    }

    private static JsonNode query(HttpClient http, String api, String expr) {
        return get(http, api + "query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
    }

    private static JsonNode get(HttpClient http, String url) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new ObjectMapper().readTree(r.body());
        } catch (IOException | RuntimeException e) {
            return null; // not up yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> alertExpressions() throws IOException {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> g : (List<Map<String, Object>>) yaml(RULES).get("groups")) {
            for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) out.add(String.valueOf(r.get("expr")));
        }
        assertFalse(out.isEmpty());
        return out;
    }

    private static List<String> dashboardExpressions() throws IOException {
        JsonNode d = new ObjectMapper().readTree(DIR.resolve("arbiter-dashboard.json").toFile());
        List<String> out = new ArrayList<>();
        d.path("panels").forEach(p -> p.path("targets").forEach(t -> out.add(t.path("expr").asText())));
        assertEquals(d.path("panels").size() > 0, !out.isEmpty());
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(Path p) throws IOException {
        return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(p));
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) fail(String.join(" ", cmd) + ":\n" + out);
        return out;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
