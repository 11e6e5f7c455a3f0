package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM as the kubelet sends it, to a real {@code arbiter run} process (defect 5 of issue 14): the process exits 0
 * within the grace period, whatever the API server does, and gives its Lease up so a standby takes over at once.
 */
class ShutdownTest {
    @TempDir
    Path dir;

    @Test
    void sigtermWithABindingHangingExitsZeroInTimeAndReleasesTheLease() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO)) {
            api.inject(call -> call.category().equals("POST pods/binding") ? StandInApiServer.Fault.hang() : null);
            cluster(api);
            try (ChildProcess run = start(api)) {
                await("leading", () -> holder(api) != null && !holder(api).isEmpty(), Duration.ofSeconds(30));
                await("a binding is hanging", () -> api.requests("POST pods/binding") >= 1, Duration.ofSeconds(30));

                long t0 = System.nanoTime();
                run.terminate();
                Integer exit = run.waitFor(20);

                assertNotNull(exit, "still alive 20 s after SIGTERM:\n" + run.stderr());
                assertEquals(0, exit.intValue(), run.stderr());
                assertTrue((System.nanoTime() - t0) / 1e9 < 15, "exited within the 15 s grace period");
                Map<String, Object> spec = StandInApiServer.map(api.get("leases", "arbiter-system/arbiter"), "spec");
                assertTrue(spec.get("holderIdentity") == null || "".equals(spec.get("holderIdentity"))
                        || Integer.valueOf(1).equals(spec.get("leaseDurationSeconds")), "Lease released: " + spec);
            }
        }
    }

    /**
     * Issue 34, item 7: SIGTERM while start-up waits on a server that does not answer (the access check's first list
     * hangs) ends the process at once; before, it waited out the request timeout of each list (alive 40 s later).
     */
    @Test
    void sigtermWhileStartUpWaitsOnAHangingServerExitsAtOnce() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO)) {
            api.inject(call -> call.method().equals("GET") && !call.watch() ? StandInApiServer.Fault.hang() : null);
            cluster(api);
            try (ChildProcess run = start(api)) {
                await("start-up waits on a list", () -> api.requests("GET nodes list") >= 1, Duration.ofSeconds(30));
                long t0 = System.nanoTime();
                run.terminate();
                Integer exit = run.waitFor(20);
                double took = (System.nanoTime() - t0) / 1e9;
                assertNotNull(exit, "still alive 20 s after SIGTERM:\n" + run.stderr());
                assertEquals(0, exit.intValue(), run.stderr());
                assertTrue(took < 3, "exited " + took + " s after SIGTERM (a list's request timeout is 10 s)");
            }
        }
    }

    @Test
    void aCleanSigtermExitsZeroAndTheLogShowsWhatTheDocsPromise() throws Exception {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO)) {
            cluster(api);
            try (ChildProcess run = start(api)) {
                await("bound", () -> nodeOf(api, "team/p") != null, Duration.ofSeconds(30));
                run.terminate();
                Integer exit = run.waitFor(20);
                assertEquals(Integer.valueOf(0), exit, run.stderr());
                String log = run.stderr();
                assertTrue(log.contains("INFO") && log.contains("cycle 1:"), "INFO cycle summaries by default:\n" + log);
            }
        }
    }

    private ChildProcess start(StandInApiServer api) throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, api.kubeconfig());
        return ChildProcess.arbiter(dir, "run", "--kubeconfig", kubeconfig.toString(), "--rules", "rules",
                "--leader-elect", "--lease-namespace", "arbiter-system", "--period", "200ms", "--metrics-port", "0",
                "--shutdown-grace", "15s");
    }

    private static void cluster(StandInApiServer api) {
        api.create("nodes", Map.of("metadata", Map.of("name", "node-1"),
                "status", Map.of("allocatable", Map.of("cpu", "8", "memory", "32Gi", "pods", "110"))));
        api.create("pods", Map.of("metadata", Map.of("namespace", "team", "name", "p"),
                "spec", Map.of("schedulerName", "arbiter", "containers", List.of(Map.of("name", "c", "image", "i",
                        "resources", Map.of("requests", Map.of("cpu", "1")))))));
    }

    private static String holder(StandInApiServer api) {
        Map<String, Object> lease = api.get("leases", "arbiter-system/arbiter");
        return lease == null ? null : (String) StandInApiServer.map(lease, "spec").get("holderIdentity");
    }

    private static String nodeOf(StandInApiServer api, String pod) {
        Map<String, Object> p = api.get("pods", pod);
        return p == null ? null : (String) StandInApiServer.map(p, "spec").get("nodeName");
    }
}
