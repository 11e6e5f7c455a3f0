package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import dev.arbiter.livebench.StandInApiServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.Socket;
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
 * Startup errors as a user meets them (defect 7 of issue 14), from real processes: one line naming the server and
 * the cause, within 10 s; exit 2 for bad input, 1 for a cluster that cannot be used. {@code run} keeps retrying.
 */
class StartupErrorsTest {
    @TempDir
    Path dir;

    private record Result(int exit, String stderr, double seconds) {
        List<String> lines() {
            return stderr.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    private Result arbiter(String... args) throws Exception {
        long t0 = System.nanoTime();
        Path d = Files.createTempDirectory(dir, "run");
        try (ChildProcess p = ChildProcess.arbiter(d, args)) {
            Integer exit = p.waitFor(30);
            assertNotNull(exit, "still running after 30 s: " + p.stderr());
            return new Result(exit, p.stderr(), (System.nanoTime() - t0) / 1e9);
        }
    }

    private Path kubeconfig(String server) throws Exception {
        Path k = Files.createTempFile(dir, "kubeconfig", "");
        Files.writeString(k, """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: c, context: {cluster: c, user: u}}]
                current-context: c
                """.formatted(server));
        return k;
    }

    /**
     * One line, the exit code, the fragments. Wall time is only bounded loosely (a hang or fabric8's default retries
     * take minutes; JVM start on a loaded build machine takes seconds): the 10 s budget itself is pinned by
     * {@link #theReadOnlyClientGivesUpWithinEightSeconds()}.
     */
    private static void oneLine(Result r, int exit, String... fragments) {
        assertEquals(exit, r.exit(), r.stderr());
        assertEquals(1, r.lines().size(), "exactly one line:\n" + r.stderr());
        for (String f : fragments) assertTrue(r.stderr().contains(f), "'" + f + "' in: " + r.stderr());
        assertTrue(r.seconds() < 25, "answered promptly, not after retries: " + r.seconds() + " s");
    }

    @Test
    void theReadOnlyClientGivesUpWithinEightSeconds() throws Exception {
        io.fabric8.kubernetes.client.Config c = dev.arbiter.runtime.KubeClients.config(kubeconfig("https://127.0.0.1:1"),
                Duration.ofSeconds(8));
        assertEquals(8000, c.getConnectionTimeout());
        assertEquals(8000, c.getRequestTimeout());
        assertEquals(0, c.getRequestRetryBackoffLimit(), "no client-side retries: one attempt, then one line");
        try (io.fabric8.kubernetes.client.KubernetesClient client = dev.arbiter.runtime.KubeClients.connect(kubeconfig("https://127.0.0.1:1"))) {
            assertEquals(8000, client.getConfiguration().getRequestTimeout());
            assertEquals(0, client.getConfiguration().getRequestRetryBackoffLimit());
        }
    }

    @Test
    void aMissingOrGarbageKubeconfigIsInvalidInput() throws Exception {
        oneLine(arbiter("snapshot", "--kubeconfig", dir.resolve("nope").toString()), 2, "nope");
        Path garbage = dir.resolve("garbage");
        Files.writeString(garbage, "this: [is not a kubeconfig\n");
        oneLine(arbiter("snapshot", "--kubeconfig", garbage.toString()), 2, "garbage", "kubeconfig");
        Path noServer = dir.resolve("empty");
        Files.writeString(noServer, "apiVersion: v1\nkind: Config\n");
        oneLine(arbiter("explain", "team/p", "--kubeconfig", noServer.toString()), 2, "empty");
    }

    @Test
    void anUnreachableServerIsOneLineNamingItAndTheCause() throws Exception {
        oneLine(arbiter("snapshot", "--kubeconfig", kubeconfig("https://127.0.0.1:1").toString()), 1,
                "cannot reach https://127.0.0.1:1", "connection refused");
        oneLine(arbiter("explain", "team/p", "--kubeconfig", kubeconfig("https://127.0.0.1:1").toString()), 1,
                "cannot reach https://127.0.0.1:1", "connection refused");
        oneLine(arbiter("snapshot", "--kubeconfig", kubeconfig("https://no-such-host.invalid:6443").toString()), 1,
                "https://no-such-host.invalid:6443", "unknown host");
    }

    @Test
    void aServerThatNeverAnswersTimesOutWithinTenSeconds() throws Exception {
        try (ServerSocket blackhole = new ServerSocket(0)) {
            List<Socket> held = new ArrayList<>();
            Thread accept = new Thread(() -> {
                try {
                    while (true) held.add(blackhole.accept());
                } catch (Exception closed) {
                    // done
                }
            });
            accept.setDaemon(true);
            accept.start();
            String url = "http://127.0.0.1:" + blackhole.getLocalPort();
            oneLine(arbiter("snapshot", "--kubeconfig", kubeconfig(url).toString()), 1, url, "timed out");
        }
    }

    @Test
    void tlsAndAuthenticationFailuresNameTheirCause() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO)) {
            String https = api.url().replace("http://", "https://");
            oneLine(arbiter("snapshot", "--kubeconfig", kubeconfig(https).toString()), 1, https, "TLS");
            api.inject(call -> StandInApiServer.Fault.fail(401));
            oneLine(arbiter("snapshot", "--kubeconfig", kubeconfig(api.url()).toString()), 1, api.url(), "401", "Unauthorized");
            api.inject(call -> StandInApiServer.Fault.fail(403));
            oneLine(arbiter("snapshot", "--kubeconfig", kubeconfig(api.url()).toString()), 1, api.url(), "403", "Forbidden");
        }
    }

    @Test
    void runKeepsRetryingUnreadyWithOneLinePerAttempt() throws Exception {
        int metricsPort;
        try (ServerSocket free = new ServerSocket(0)) {
            metricsPort = free.getLocalPort();
        }
        Path d = Files.createTempDirectory(dir, "run");
        try (ChildProcess run = ChildProcess.arbiter(d, "run", "--kubeconfig", kubeconfig("https://127.0.0.1:1").toString(),
                "--rules", "rules", "--metrics-port", Integer.toString(metricsPort), "--metrics-bind-address", "127.0.0.1")) {
            await("three attempts logged", () -> run.stderr().lines().filter(l -> l.contains("cannot reach https://127.0.0.1:1")).count() >= 3,
                    Duration.ofSeconds(30));
            assertTrue(run.isAlive());
            assertEquals(503, get(metricsPort, "/readyz"), "not ready while the cluster cannot be reached");
            assertEquals(200, get(metricsPort, "/healthz"), "alive: restarting would not help");
            for (String line : run.stderr().lines().filter(l -> l.contains("cannot reach")).toList()) {
                assertTrue(line.contains("connection refused") && line.contains("retrying in"), line);
            }
            run.terminate();
            assertEquals(Integer.valueOf(0), run.waitFor(15), run.stderr());
        }
    }

    @Test
    void numericFlagsThatOverflowAreRefused() {
        assertEquals(Main.INVALID_INPUT, cli("run", "--period", "99999999999999999999"));
        assertEquals(Main.INVALID_INPUT, cli("run", "--period", "9999999999999999h"));
        assertEquals(Main.INVALID_INPUT, cli("simulate", "--cycle-seconds", "9223372036854775807", "deploy/examples/seed"));
        assertEquals(Main.INVALID_INPUT, cli("simulate", "--cycle-seconds", "99999999999999999999", "deploy/examples/seed"));
    }

    private static int cli(String... args) {
        return Main.run(args, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    }

    private static int get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
