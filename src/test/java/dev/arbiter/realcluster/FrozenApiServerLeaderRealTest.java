package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.ApiPermissions;
import dev.arbiter.live.LeaderElection;
import dev.arbiter.live.LiveScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, fault 2: the leader's API server freezes ({@code kill -STOP}: its connections stay open, nothing is
 * answered) while the standby talks to a second API server on the same etcd. The leader must stop acting within its
 * renew deadline of its last renewal, whatever its stuck requests do, and the standby must not lead before that: two
 * leaders at once was 6.3 s when the deadline was checked only between requests.
 */
class FrozenApiServerLeaderRealTest extends RealClusterTest {
    static final LeaderElection.Timing TIMING = new LeaderElection.Timing(Duration.ofSeconds(3), Duration.ofSeconds(2),
            Duration.ofMillis(200));

    @Test
    void theLeaderOfAFrozenApiServerStepsDownBeforeTheStandbyLeads() throws Exception {
        cluster.startSecondApiServer();
        closeAfter(cluster::stopSecondApiServer);
        LiveScheduler a = runningScheduler(config("replica-a").withLeaderElection("arbiter-system", ApiPermissions.LEASE, TIMING));
        await("replica-a leads", a::isLeader);
        LiveScheduler b = runningScheduler(cluster.arbiterClient(AGENT, cluster.secondUrl()),
                config("replica-b").withLeaderElection("arbiter-system", ApiPermissions.LEASE, TIMING));

        cluster.freezeApiServer();
        closeAfter(cluster::thawApiServer);
        long frozen = System.nanoTime();
        long aLastLed = frozen;
        long bFirstLed = 0;
        long deadline = frozen + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && bFirstLed == 0) {
            boolean aLeads = a.isLeader();
            boolean bLeads = b.isLeader();
            long now = System.nanoTime();
            if (aLeads) aLastLed = now;
            if (bLeads) bFirstLed = now;
            assertTrue(!(aLeads && bLeads), "two leaders at once");
            Thread.sleep(2);
        }
        cluster.thawApiServer();
        assertTrue(bFirstLed > 0, "replica-b took over within 20 s");
        Duration stepDown = Duration.ofNanos(aLastLed - frozen);
        Duration gap = Duration.ofNanos(bFirstLed - aLastLed);
        System.out.println("frozen leader stepped down after " + stepDown.toMillis() + " ms; standby led "
                + gap.toMillis() + " ms after that");
        // The last renewal was at most one retry period before the freeze.
        assertTrue(stepDown.compareTo(TIMING.renewDeadline().plusMillis(500)) <= 0, () -> "stepped down after " + stepDown);
        assertTrue(!gap.isNegative() && !gap.isZero(), "the standby led only after the leader had stepped down");
    }
}
