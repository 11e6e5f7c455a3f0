package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter run --shadow-rules deploy/policies/capacity} against the mock API server, as a platform engineer runs
 * it: the differences reach {@code /metrics}, {@code /shadow} and {@code arbiter shadow-report}, and only the active
 * policy's bindings are written. A shadow folder that is not there, or does not compile, stops start-up.
 */
@EnableKubernetesMockClient(crud = true)
class ShadowRunCommandTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    @Test
    void theShadowsDifferencesAreOnMetricsAndShadowAndInTheReportAndOnlyTheActivePolicyActs() throws Exception {
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(ShadowDifferencesTest.twoQueues().manifests());
            Path kubeconfig = fx.writeKubeconfig(dir.resolve("kubeconfig"));
            StringWriter err = new StringWriter();
            AtomicInteger exit = new AtomicInteger(-1);
            Thread run = new Thread(() -> exit.set(Main.run(new String[] {"run", "--kubeconfig", kubeconfig.toString(),
                    "--scheduler-name", "volcano", "--rules", "rules", "--shadow-rules", "deploy/policies/capacity",
                    "--period", "200ms", "--metrics-port", "0", "--metrics-bind-address", "127.0.0.1", "--rules-cache", "off"},
                    new PrintWriter(new StringWriter()), new PrintWriter(err, true))), "arbiter-run");
            run.start();
            try {
                await("started", () -> err.toString().contains("metrics on 127.0.0.1:"), LiveFixture.WAIT.multipliedBy(3));
                Matcher m = Pattern.compile("metrics on 127\\.0\\.0\\.1:(\\d+)").matcher(err.toString());
                assertTrue(m.find(), err.toString());
                String base = "http://127.0.0.1:" + m.group(1);
                assertTrue(err.toString().contains("shadow rules " + Path.of("deploy/policies/capacity").toAbsolutePath()), err.toString());

                await("the active policy's bindings are written", () -> "node-1".equals(fx.nodeOf("tb/w-3")), LiveFixture.WAIT.multipliedBy(2));
                await("the shadow's differences are counted", () -> get(base + "/metrics").contains("arbiter_shadow_differences_total{kind=\"binding\"}")
                        && !get(base + "/metrics").contains("arbiter_shadow_differences_total{kind=\"binding\"} 0.0"));
                String metrics = get(base + "/metrics");
                assertTrue(metrics.contains("arbiter_shadow_cycles_total{result=\"ok\"}"), metrics);
                assertTrue(metrics.contains("arbiter_shadow_cycles_total{result=\"skipped\"}"), metrics);
                assertTrue(metrics.contains("arbiter_shadow_duration_seconds_count"), metrics);
                assertTrue(metrics.contains("arbiter_shadow_duration_seconds_bucket{le="), metrics);
                assertNull(fx.nodeOf("ta/w-4"), "the shadow would bind ta/w-4: nothing writes it");
                assertNull(fx.nodeOf("ta/w-5"));
                assertEquals(0, fx.evictCalls(), "the shadow's evictions, if any, are never written");

                String shadow = get(base + "/shadow");
                assertTrue(shadow.contains("\"shadowRules\": \"" + Path.of("deploy/policies/capacity").toAbsolutePath() + "\""), shadow);
                assertTrue(shadow.contains("\"subject\": \"ta/w-4\", \"active\": \"pending\", \"shadow\": \"node-1\""), shadow);

                StringWriter out = new StringWriter(), reportErr = new StringWriter();
                int code = Main.run(new String[] {"shadow-report", "--url", base + "/shadow"}, new PrintWriter(out, true),
                        new PrintWriter(reportErr, true));
                assertEquals(0, code, reportErr.toString());
                String table = out.toString();
                assertTrue(table.startsWith("Shadow rules " + Path.of("deploy/policies/capacity").toAbsolutePath()), table);
                assertTrue(table.matches("(?s).*\\nSIDE\\s+RULE\\s+DIFFERENCES\\n.*"), table);
                assertTrue(table.matches("(?s).*\\nshadow\\s+" + Pattern.quote(ShadowDifferencesTest.GANG) + "\\s+\\d+\\n.*"), table);
                assertTrue(table.matches("(?s).*\\nKIND\\s+SUBJECT\\s+ACTIVE\\s+SHADOW\\s+ACTIVE RULE\\s+SHADOW RULE\\n.*"), table);
                assertTrue(table.matches("(?s).*\\nshare\\s+a\\s+\\{cpu: 4}\\s+\\{cpu: 6}\\s+-\\s+-\\n.*"), table);

                assertTrue(table.matches("(?s).*\\nbinding\\s+ta/w-4\\s+pending\\s+node-1\\s+-\\s+gang: a job starts only when minMember of its\\.\\.\\.\\n.*"), table);
                StringWriter wide = new StringWriter();
                assertEquals(0, Main.run(new String[] {"shadow-report", "--url", base + "/shadow", "-o", "wide"},
                        new PrintWriter(wide, true), new PrintWriter(new StringWriter(), true)));
                assertTrue(wide.toString().matches("(?s).*\\nbinding\\s+ta/w-4\\s+pending\\s+node-1\\s+-\\s+"
                        + Pattern.quote(ShadowDifferencesTest.GANG) + "\\n.*"), wide.toString());

                StringWriter yaml = new StringWriter();
                assertEquals(0, Main.run(new String[] {"shadow-report", "--url", base + "/shadow", "-o", "yaml"},
                        new PrintWriter(yaml, true), new PrintWriter(new StringWriter(), true)));
                assertTrue(yaml.toString().contains("shadowRules: " + Path.of("deploy/policies/capacity").toAbsolutePath()), yaml.toString());

                await("the queues' status is written", () -> {
                    VolcanoQueue q = fx.queue("b");
                    return q != null && q.getStatus() != null && Integer.valueOf(1).equals(q.getStatus().running);
                });
            } finally {
                run.interrupt();
                run.join(30_000);
            }
            assertEquals(0, exit.get(), err.toString());
        }
    }

    @Test
    void aShadowFolderThatIsNotThereIsOneLineAndExit2() {
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"run", "--kubeconfig", dir.resolve("none").toString(), "--shadow-rules",
                dir.resolve("missing").toString()}, new PrintWriter(new StringWriter()), new PrintWriter(err, true));
        assertEquals(2, code, err.toString());
        assertEquals("error: --shadow-rules: " + dir.resolve("missing") + ": no such directory", err.toString().strip());
    }

    @Test
    void shadowRulesThatDoNotCompileStopStartUpAsBrokenRulesDo() throws Exception {
        Path pack = Files.createDirectories(dir.resolve("broken"));
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("broken.drl"), "package arbiter.policy;\nrule \"broken\"\nwhen\n  NoSuchFact()\nthen\nend\n");
        try (LiveFixture fx = new LiveFixture(server, client)) {
            Path kubeconfig = fx.writeKubeconfig(dir.resolve("kubeconfig"));
            StringWriter err = new StringWriter();
            int code = Main.run(new String[] {"run", "--kubeconfig", kubeconfig.toString(), "--rules", "rules",
                    "--shadow-rules", pack.toString(), "--metrics-port", "0", "--rules-cache", "off"},
                    new PrintWriter(new StringWriter()), new PrintWriter(err, true));
            assertEquals(Main.RULES_BROKEN, code, err.toString());
            assertTrue(err.toString().contains("broken.drl"), err.toString());
            assertTrue(err.toString().lines().allMatch(l -> l.startsWith("error: --shadow-rules: ")), err.toString());
        }
    }

    @Test
    void shadowReportSaysWhenNoArbiterAnswers() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"shadow-report", "--url", "http://127.0.0.1:" + port + "/shadow"},
                new PrintWriter(new StringWriter()), new PrintWriter(err, true));
        assertEquals(1, code);
        assertTrue(err.toString().startsWith("error: http://127.0.0.1:" + port + "/shadow: "), err.toString());
        assertEquals(1, err.toString().strip().lines().count(), err.toString());
    }

    private static String get(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
    }
}
