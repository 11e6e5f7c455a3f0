package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.LeaderElection;
import dev.arbiter.live.VolcanoPodGroup;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two replicas of {@code arbiter run --leader-elect}, each a JVM of its own on Arbiter's ServiceAccount token. The
 * leader is killed ({@code kill -9}, no Lease released) while it binds a 40-pod gang: the follower takes the Lease
 * once it has expired (within the lease duration and two candidate retries) and finishes the gang; while no one leads, the PodGroup's status claims no more members
 * running than are bound.
 */
class LeaderFailoverRealTest extends RealClusterTest {
    static final int MEMBERS = 40;

    @Test
    void theFollowerTakesOverWithinTheLeaseDurationAndFinishesTheGang() throws Exception {
        cluster.namespace("lf");
        for (int i = 0; i < MEMBERS / 8; i++) node("lf-" + i, 64, 8);
        apply(queue("q-lf", 1));
        Path dir = Files.createTempDirectory(cluster.dir, "leader-failover");
        Process a = replica(dir, "replica-a");
        await("replica-a leads", () -> "replica-a".equals(holder()), Duration.ofSeconds(60));
        Process b = replica(dir, "replica-b");
        closeAfter(b::destroyForcibly);
        // The standby campaigns once its informers have listed (it prints its start line then): from then on it
        // watches the Lease, and the takeover is timed from the kill.
        await("replica-b campaigns", () -> RealCluster.tail(dir.resolve("replica-b.log"), 20)
                .contains("arbiter: scheduling pods of"), Duration.ofSeconds(60));

        List<String> docs = new ArrayList<>();
        docs.add(podGroup("lf", "big", "q-lf", MEMBERS));
        for (int m = 0; m < MEMBERS; m++) docs.add(pod("lf", "big-" + m, "big", "arbiter", 1, null));
        // Each binding takes 300 ms (an admission webhook answers that late), so the gang's 40 bindings on two
        // binders take about 6 s, and the kill lands at the fifth, long after a status written ahead of them would
        // have reached the server (fault 5: Running 40/40 after 3 of 40 binds).
        closeAfter(BindingWebhook.in(cluster, "lf", Duration.ofMillis(300)));
        applyUntilBound("lf", docs(docs), 5);
        a.destroyForcibly();
        long killed = System.nanoTime();
        a.waitFor(10, TimeUnit.SECONDS);
        long boundAtKill = bound("lf");

        // No one leads now: whatever the PodGroup says must not run ahead of the bindings the server accepted.
        VolcanoPodGroup pg = admin.resources(VolcanoPodGroup.class).inNamespace("lf").withName("big").get();
        int claimed = pg.getStatus() == null || pg.getStatus().running == null ? 0 : pg.getStatus().running;
        System.out.println("at the kill: " + boundAtKill + " of " + MEMBERS + " bound; the PodGroup says "
                + (pg.getStatus() == null ? "nothing" : pg.getStatus().phase + ", " + claimed + " running"));
        assertTrue(claimed <= bound("lf"), () -> "status says " + claimed + " running, " + bound("lf") + " bound");

        // client-go's algorithm, which Arbiter's elector follows: the standby counts the lease duration from when it
        // saw the last renewal, and looks every retry period with up to 1.2 of jitter; so it leads at most lease
        // duration + 2 x 2.2 retry periods after the leader's last renewal (15 + 8.8 s with the standard timing).
        LeaderElection.Timing t = LeaderElection.Timing.standard();
        Duration takeoverBound = t.leaseDuration().plus(t.retryPeriod().multipliedBy(44).dividedBy(10)).plusSeconds(2);
        await("replica-b leads", () -> "replica-b".equals(holder()), takeoverBound.plusSeconds(5));
        Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
        System.out.println("replica-b led " + takeover.toMillis() + " ms after replica-a was killed");
        assertTrue(takeover.compareTo(takeoverBound) <= 0, () -> "took over after " + takeover);
        await("the gang is whole", () -> bound("lf") == MEMBERS, Duration.ofSeconds(60));
        assertTrue(b.isAlive(), "replica-b runs on: " + RealCluster.tail(dir.resolve("replica-b.log"), 20));
        assertEquals(MEMBERS, arbiterRequests().stream().filter(r -> r.on("pods", "binding") && r.code() == 201)
                .map(AuditLog.Request::name).distinct().count(), "each member bound once (" + boundAtKill + " by replica-a)");
    }

    private static String holder() {
        Lease l = admin.leases().inNamespace("arbiter-system").withName("arbiter").get();
        return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    }

    private Process replica(Path dir, String name) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "dev.arbiter.cli.Main",
                "run", "--kubeconfig", cluster.arbiterKubeconfig().toString(), "--leader-elect",
                "--scheduler-name", "arbiter", "--rules", "rules", "--period", "500ms", "--metrics-port", "0",
                "--metrics-bind-address", "127.0.0.1", "--rules-cache", "off",
                // Two binders (32 by default): with slow bindings, the gang's bindings spread over seconds.
                "--binders", "2"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        pb.environment().put("POD_NAME", name);
        pb.environment().put("POD_NAMESPACE", "arbiter-system");
        Process p = pb.start();
        closeAfter(p::destroyForcibly);
        return p;
    }

}
