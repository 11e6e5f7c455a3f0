package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 5: a rule that gets stuck for good in a live cycle (it passed the start-up check, then met data that
 * holds it; on Java 17 a loop in a {@code finally} outlives the stop, on Java 25 nothing stops it) is said in a log
 * line, a {@code RulesStuck} event on the replica's pod and {@code arbiter_rules_stuck_total}, and {@code /healthz}
 * fails at once, so the kubelet restarts the pod. Before, nothing said it: only the cycle deadline's 503 came, later.
 * An {@code arbiter run} process on the real API server, as a platform engineer runs it.
 */
class StuckRulesRealTest extends RealClusterTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    @Test
    void aRuleStuckInACycleFailsHealthzWithALogLineAnEventAndAMetric() throws Exception {
        Path pack = dir.resolve("pack");
        Files.createDirectories(pack);
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("policy.yaml"), "limits:\n  deadline: 1s\n");
        Files.writeString(pack.resolve("stuck.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.QueueFact;
                rule "stuck: a queue named stuck-trigger holds the cycle"
                ruleflow-group "policy"
                when
                    QueueFact( name == "stuck-trigger" )
                then
                    try { while (true) { } } finally { while (true) { } }
                end
                """);
        String ns = "stuck";
        cluster.namespace(ns);
        node(ns + "-0", 8, 0);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path log = dir.resolve("run.log");
        Process run = run(pack, port, log);
        await("scheduling, healthy and ready", () -> get(port, "/healthz") == 200 && get(port, "/readyz") == 200,
                Duration.ofSeconds(60));

        apply(queue("stuck-trigger", 1));
        apply(docs(List.of(podGroup(ns, "g", "stuck-trigger", 1), pod(ns, "g-0", "g", "arbiter", 0, null))));

        await("/healthz fails", () -> get(port, "/healthz") == 503, Duration.ofSeconds(30));
        String line = Files.readAllLines(log).stream().filter(l -> l.contains("rules stuck: ")).findFirst().orElse("");
        assertTrue(line.contains("stuck.drl:3: rule \"stuck: a queue named stuck-trigger holds the cycle\" did not return within"
                + " the deadline of 1000 ms"), () -> "the log says which rule, before /healthz fails:\n" + RealCluster.tail(log, 20));
        assertTrue(metrics(port).contains("arbiter_rules_stuck_total 1.0"), metrics(port));
        await("a RulesStuck event on the replica's pod", () -> admin.v1().events().inNamespace("arbiter-system").list().getItems()
                .stream().anyMatch(e -> "RulesStuck".equals(e.getReason()) && "arbiter-stuck".equals(e.getInvolvedObject().getName())));
        assertTrue(run.isAlive(), "the process lives until the kubelet restarts it: " + RealCluster.tail(log, 20));
    }

    private Process run(Path rules, int port, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "dev.arbiter.cli.Main",
                "run", "--kubeconfig", cluster.arbiterKubeconfig().toString(), "--scheduler-name", "arbiter", "--rules",
                rules.toString(), "--period", "500ms", "--metrics-port", String.valueOf(port), "--metrics-bind-address",
                "127.0.0.1", "--rules-cache", "off"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("POD_NAME", "arbiter-stuck");
        pb.environment().put("POD_NAMESPACE", "arbiter-system");
        Process p = pb.start();
        closeAfter(p::destroyForcibly);
        return p;
    }

    private static int get(int port, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(3))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String metrics(int port) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
