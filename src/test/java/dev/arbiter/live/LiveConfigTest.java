package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each {@code with…} of a {@link LiveConfig} changes its own fields and keeps every other. */
class LiveConfigTest {
    private final LiveConfig base = LiveConfig.defaults(Set.of("arbiter"), "me");

    @Test
    void eachWitherChangesItsFieldsAndKeepsTheRest() {
        LiveConfig b = base;
        Backoff backoff = new Backoff(7, Duration.ofMillis(5), Duration.ofSeconds(2));
        LeaderElection.Timing timing = new LeaderElection.Timing(Duration.ofSeconds(9), Duration.ofSeconds(6),
                Duration.ofSeconds(1));
        Actuator.Writers writers = new Actuator.Writers(3, 2, Duration.ofSeconds(4), b.writers().events());
        assertEquals(new LiveConfig(b.schedulerNames(), Duration.ofSeconds(5), b.leaderElect(), b.leaseNamespace(),
                b.leaseName(), b.identity(), b.leaseTiming(), b.backoff(), b.assumeTtl(), b.scoring(), b.writers(),
                b.cycleDeadline(), b.rulesFallbackAfter(), b.shutdownGrace(), b.keepRulesSession(), b.warmUp(),
                b.hyperNodeReprobe()), b.withPeriod(Duration.ofSeconds(5)));
        assertEquals(new LiveConfig(b.schedulerNames(), b.period(), true, "ns", "lease", b.identity(), timing, b.backoff(),
                b.assumeTtl(), b.scoring(), b.writers(), b.cycleDeadline(), b.rulesFallbackAfter(), b.shutdownGrace(),
                b.keepRulesSession(), b.warmUp(), b.hyperNodeReprobe()), b.withLeaderElection("ns", "lease", timing));
        assertEquals(new LiveConfig(b.schedulerNames(), b.period(), b.leaderElect(), b.leaseNamespace(), b.leaseName(),
                b.identity(), b.leaseTiming(), backoff, Duration.ofSeconds(3), "spread", writers, Duration.ofSeconds(8), 5,
                Duration.ofSeconds(11), false, true, Duration.ofSeconds(4)),
                b.withBackoff(backoff).withAssumeTtl(Duration.ofSeconds(3)).withScoring("spread").withWriters(writers)
                        .withCycleDeadline(Duration.ofSeconds(8)).withRulesFallbackAfter(5)
                        .withShutdownGrace(Duration.ofSeconds(11)).withKeptRulesSession(false).withWarmUp(true)
                        .withHyperNodeReprobe(Duration.ofSeconds(4)));
    }

    @Test
    void aChangedConfigurationIsCheckedAgain() {
        assertThrows(IllegalArgumentException.class, () -> base.withPeriod(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> base.withRulesFallbackAfter(0));
        assertThrows(IllegalArgumentException.class, () -> base.withShutdownGrace(Duration.ofSeconds(-1)));
    }
}
