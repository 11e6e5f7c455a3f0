package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two replicas share one Lease: only the leader binds, and the standby takes over when the leader leaves.
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterparts are
 * {@code LeaderFailoverRealTest} and {@code FrozenApiServerLeaderRealTest}, and they agree: the standby leads only
 * once the old leader has stopped, within the lease duration.
 */
class LeaderElectionTest extends LiveClusterTest {
    private static final LeaderElection.Timing FAST =
            new LeaderElection.Timing(Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(200));

    @Test
    void onlyTheLeaderBindsAndTheStandbyTakesOverWhenItLeaves() {
        fx.create(node("node-1", 8));
        LiveScheduler one = fx.scheduler(LiveFixture.config("replica-1").withLeaderElection("arbiter-system", "arbiter", FAST));
        await("replica-1 leads", one::isLeader);
        LiveScheduler two = fx.scheduler(LiveFixture.config("replica-2").withLeaderElection("arbiter-system", "arbiter", FAST));

        fx.create(pod("team", "first", "arbiter", 1, null));
        await("first bound (change-triggered cycle)", () -> fx.nodeOf("team/first") != null);
        assertFalse(two.isLeader());
        assertFalse(two.loop().isRunning(), "the standby runs no cycles");
        // Events are sent by their own writer, after the binding: wait for it before asking who sent it.
        await("first's Scheduled event", () -> !scheduledBy("first").isEmpty());
        assertEquals(List.of("replica-1"), scheduledBy("first"));
        assertEquals("replica-1", holder());

        fx.quiesce(one);
        one.close();
        Lease released = client.leases().inNamespace("arbiter-system").withName("arbiter").get();
        assertTrue(!"replica-1".equals(released.getSpec().getHolderIdentity())
                || released.getSpec().getLeaseDurationSeconds() == 1, "closing releases the Lease (fabric8 cuts it to 1 s)");
        await("replica-2 takes over", two::isLeader);
        assertEquals("replica-2", holder());
        fx.create(pod("team", "second", "arbiter", 1, null));
        await("second bound by the new leader", () -> fx.nodeOf("team/second") != null);
        await("second's Scheduled event", () -> !scheduledBy("second").isEmpty());
        assertEquals(List.of("replica-2"), scheduledBy("second"));
        assertTrue(fx.bindCalls("team/first") == 1 && fx.bindCalls("team/second") == 1, "each pod bound exactly once");
    }

    private List<String> scheduledBy(String pod) {
        return fx.allEvents().stream()
                .filter(e -> "Scheduled".equals(e.getReason()) && pod.equals(e.getInvolvedObject().getName()))
                .map(Event::getReportingInstance).toList();
    }

    private String holder() {
        Lease lease = client.leases().inNamespace("arbiter-system").withName("arbiter").get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }
}
