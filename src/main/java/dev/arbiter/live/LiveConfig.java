package dev.arbiter.live;

import java.time.Duration;
import java.util.Set;

/**
 * Mechanism settings of live mode (policy stays in the rules).
 *
 * @param schedulerNames the {@code spec.schedulerName}s this scheduler answers; the first names its events
 * @param period         time between cycles when nothing changes
 * @param leaderElect    campaign for {@code leaseNamespace/leaseName} before scheduling; false schedules at once
 * @param identity       this replica's name in the Lease and in events (the pod name in a cluster)
 * @param backoff        retries of one bind or evict call inside a cycle
 * @param assumeTtl      how long an issued binding or eviction is assumed without the informer confirming it
 */
public record LiveConfig(Set<String> schedulerNames, Duration period, boolean leaderElect, String leaseNamespace,
                         String leaseName, String identity, LeaderElection.Timing leaseTiming, Backoff backoff,
                         Duration assumeTtl, String scoring) {
    public LiveConfig {
        schedulerNames = Set.copyOf(schedulerNames);
        if (schedulerNames.isEmpty()) throw new IllegalArgumentException("at least one scheduler name is needed");
        if (period.isNegative() || period.isZero()) throw new IllegalArgumentException("period must be positive");
    }

    /** Production defaults for the given scheduler names. */
    public static LiveConfig defaults(Set<String> schedulerNames, String identity) {
        return new LiveConfig(schedulerNames, Duration.ofSeconds(1), false, "arbiter-system", "arbiter", identity,
                LeaderElection.Timing.standard(), Backoff.standard(), Duration.ofSeconds(30), "binpack");
    }

    public LiveConfig withPeriod(Duration p) {
        return new LiveConfig(schedulerNames, p, leaderElect, leaseNamespace, leaseName, identity, leaseTiming, backoff, assumeTtl, scoring);
    }

    public LiveConfig withLeaderElection(String namespace, String name, LeaderElection.Timing timing) {
        return new LiveConfig(schedulerNames, period, true, namespace, name, identity, timing, backoff, assumeTtl, scoring);
    }

    public LiveConfig withBackoff(Backoff b) {
        return new LiveConfig(schedulerNames, period, leaderElect, leaseNamespace, leaseName, identity, leaseTiming, b, assumeTtl, scoring);
    }

    public LiveConfig withAssumeTtl(Duration ttl) {
        return new LiveConfig(schedulerNames, period, leaderElect, leaseNamespace, leaseName, identity, leaseTiming, backoff, ttl, scoring);
    }

    /** The name events are reported under: the first scheduler name in sorted order. */
    public String component() {
        return schedulerNames.stream().sorted().findFirst().orElseThrow();
    }
}
