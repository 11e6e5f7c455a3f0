package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Fault 2 of issue 32: the leader's API server freezes (Lease requests hang, never answered). The leader must stop
 * acting no later than the renew deadline after its last successful renewal, while the request is still stuck, and
 * lead again once the server answers (its stuck requests were bounded, not waited out).
 */
class LeaseDeadlineTest {
    /** Lease 3 s, renew deadline 1 s, retry 100 ms; the client's own request timeout (10 s) is far longer. */
    private static final LeaderElection.Timing TIMING =
            new LeaderElection.Timing(Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(100));
    /** What the timer may run late on a loaded 2-core machine. */
    private static final Duration SLACK = Duration.ofMillis(400);

    @Test
    void aLeaderWhoseLeaseRequestsHangStepsDownWithinTheRenewDeadline() {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO);
             KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build()) {
            AtomicLong stoppedAt = new AtomicLong();
            AtomicInteger starts = new AtomicInteger();
            LeaderElection election = new LeaderElection(client, "arbiter-system", "arbiter", "replica-1", TIMING,
                    starts::incrementAndGet, () -> stoppedAt.set(System.nanoTime()));
            try {
                election.start();
                await("replica-1 leads", election::isLeader);
                await("a renewal after the acquisition", () -> api.requests("PATCH leases") >= 2);

                // The server freezes: from now on no Lease request is answered. The last renewal that succeeded
                // started before this instant.
                long frozenAt = System.nanoTime();
                api.inject(call -> call.resource().equals("leases") ? StandInApiServer.Fault.hang() : null);
                long patchesBefore = api.requests("PATCH leases") + api.requests("GET leases");
                await("a renewal is stuck in flight", () -> api.requests("PATCH leases") + api.requests("GET leases") > patchesBefore);

                await("replica-1 stepped down", () -> stoppedAt.get() != 0, Duration.ofSeconds(8));
                Duration after = Duration.ofNanos(stoppedAt.get() - frozenAt);
                assertTrue(after.compareTo(TIMING.renewDeadline().plus(SLACK)) <= 0,
                        "stepped down " + after.toMillis() + " ms after the freeze; the renew deadline is "
                                + TIMING.renewDeadline().toMillis() + " ms");
                assertFalse(election.isLeader(), "no longer believes it leads");

                // The server answers again: the stuck requests were bounded, so the campaign goes on and, the Lease
                // still being its own, it leads again.
                api.inject(null);
                await("replica-1 leads again", () -> election.isLeader() && starts.get() == 2, Duration.ofSeconds(5));
            } finally {
                election.close(Duration.ofSeconds(2));
            }
            Map<String, Object> lease = api.get("leases", "arbiter-system/arbiter");
            assertEquals("", StandInApiServer.map(lease, "spec").get("holderIdentity"), "closing released the Lease");
        }
    }

    @Test
    void isLeaderIsFalseOnceTheRenewDeadlineHasPassedEvenIfNoTimerRan() {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO);
             KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build()) {
            AtomicLong lastTrue = new AtomicLong();
            AtomicLong stoppedAt = new AtomicLong();
            LeaderElection election = new LeaderElection(client, "arbiter-system", "arbiter", "replica-1", TIMING,
                    () -> { }, () -> stoppedAt.set(System.nanoTime()));
            try {
                election.start();
                await("replica-1 leads", election::isLeader);
                long frozenAt = System.nanoTime();
                api.inject(call -> call.resource().equals("leases") ? StandInApiServer.Fault.hang() : null);
                // Poll isLeader as a cycle would: it never answers true past the deadline.
                await("isLeader turned false", () -> {
                    if (!election.isLeader()) return true;
                    lastTrue.set(System.nanoTime());
                    return false;
                }, Duration.ofSeconds(8));
                Duration after = Duration.ofNanos(lastTrue.get() - frozenAt);
                assertTrue(after.compareTo(TIMING.renewDeadline()) <= 0,
                        "isLeader was still true " + after.toMillis() + " ms after the freeze");
                await("onStopLeading ran", () -> stoppedAt.get() != 0);
            } finally {
                election.close(Duration.ofMillis(500));
            }
        }
    }
}
