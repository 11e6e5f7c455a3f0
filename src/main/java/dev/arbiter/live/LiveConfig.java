package dev.arbiter.live;

import java.time.Duration;
import java.util.Set;

/**
 * Mechanism settings of live mode (policy stays in the rules).
 *
 * @param schedulerNames     the {@code spec.schedulerName}s this scheduler answers; the first names its events
 * @param period             time between cycles when nothing changes
 * @param leaderElect        campaign for {@code leaseNamespace/leaseName} before scheduling; false schedules at once
 * @param identity           this replica's name in the Lease and in events (the pod name in a cluster)
 * @param backoff            retries of one bind or evict call
 * @param assumeTtl          how long an accepted binding or eviction is assumed without the informer confirming it
 * @param writers            concurrent binders, status writers, request timeout, event limits
 * @param cycleDeadline      {@code /healthz} fails once no cycle has finished for this long (a wedged loop)
 * @param rulesFallbackAfter consecutive failed cycles after which the loop returns to the last rules that worked
 * @param shutdownGrace      how long shutdown may take, whatever the API server does (below the pod's
 *                           terminationGracePeriodSeconds)
 * @param keepRulesSession   one rules session and one working copy across cycles, updated with what changed (else
 *                           each cycle opens a fresh session and indexes its snapshot anew)
 * @param warmUp             while the caches sync, warm the engine on a small synthetic cluster ({@link WarmUp})
 * @param hyperNodeReprobe   while HyperNodes cannot be listed (their CRD is not installed), how often to ask again, so
 *                           that a CRD installed later is picked up without a restart
 */
public record LiveConfig(Set<String> schedulerNames, Duration period, boolean leaderElect, String leaseNamespace,
                         String leaseName, String identity, LeaderElection.Timing leaseTiming, Backoff backoff,
                         Duration assumeTtl, String scoring, Actuator.Writers writers, Duration cycleDeadline,
                         int rulesFallbackAfter, Duration shutdownGrace, boolean keepRulesSession, boolean warmUp,
                         Duration hyperNodeReprobe) {
    public LiveConfig {
        schedulerNames = Set.copyOf(schedulerNames);
        if (schedulerNames.isEmpty()) throw new IllegalArgumentException("at least one scheduler name is needed");
        if (period.isNegative() || period.isZero()) throw new IllegalArgumentException("period must be positive");
        if (cycleDeadline.isNegative() || cycleDeadline.isZero()) throw new IllegalArgumentException("cycle deadline must be positive");
        if (rulesFallbackAfter < 1) throw new IllegalArgumentException("rules fallback needs at least 1 failed cycle");
        if (shutdownGrace.isNegative() || shutdownGrace.isZero()) throw new IllegalArgumentException("shutdown grace must be positive");
        if (hyperNodeReprobe.isNegative() || hyperNodeReprobe.isZero()) throw new IllegalArgumentException("HyperNode re-probe must be positive");
    }

    /** Production defaults for the given scheduler names. */
    public static LiveConfig defaults(Set<String> schedulerNames, String identity) {
        return new LiveConfig(schedulerNames, Duration.ofSeconds(1), false, "arbiter-system", "arbiter", identity,
                LeaderElection.Timing.standard(), Backoff.standard(), Duration.ofSeconds(30), null,
                Actuator.Writers.standard(), Duration.ofSeconds(60), 3, Duration.ofSeconds(25), true, false,
                Duration.ofSeconds(30));
    }

    public LiveConfig withPeriod(Duration p) {
        return edit(c -> c.period = p);
    }

    public LiveConfig withLeaderElection(String namespace, String name, LeaderElection.Timing timing) {
        return edit(c -> {
            c.leaderElect = true;
            c.leaseNamespace = namespace;
            c.leaseName = name;
            c.leaseTiming = timing;
        });
    }

    public LiveConfig withBackoff(Backoff b) {
        return edit(c -> c.backoff = b);
    }

    public LiveConfig withAssumeTtl(Duration ttl) {
        return edit(c -> c.assumeTtl = ttl);
    }

    public LiveConfig withScoring(String s) {
        return edit(c -> c.scoring = s);
    }

    public LiveConfig withWriters(Actuator.Writers w) {
        return edit(c -> c.writers = w);
    }

    public LiveConfig withCycleDeadline(Duration d) {
        return edit(c -> c.cycleDeadline = d);
    }

    public LiveConfig withRulesFallbackAfter(int failures) {
        return edit(c -> c.rulesFallbackAfter = failures);
    }

    public LiveConfig withShutdownGrace(Duration grace) {
        return edit(c -> c.shutdownGrace = grace);
    }

    /**
     * With {@code keep} (the default), one rules session serves cycle after cycle and takes only the facts that
     * changed ({@link dev.arbiter.engine.cycle.Scheduler#keepingSession}), and one working copy of the cluster is brought up
     * to date from each snapshot ({@link dev.arbiter.engine.cycle.Scheduler#keepingWorkingCopy}); without, every cycle opens
     * a fresh session and indexes its snapshot anew.
     */
    public LiveConfig withKeptRulesSession(boolean keep) {
        return edit(c -> c.keepRulesSession = keep);
    }

    /**
     * With {@code warm}, the engine runs a few cycles on a small synthetic cluster while the informers list the
     * cluster, so the first real cycle runs compiled code ({@link WarmUp}); without (the default here: an embedding
     * or a test gets no extra thread unless it asks), it waits idle. {@code run} turns it on unless its JVM maps an
     * AOT cache ({@link WarmUp#paysInThisJvm}; {@code --[no-]warm-up}).
     */
    public LiveConfig withWarmUp(boolean warm) {
        return edit(c -> c.warmUp = warm);
    }

    /** How often HyperNodes are asked for again while they cannot be listed (30 s by default). */
    public LiveConfig withHyperNodeReprobe(Duration every) {
        return edit(c -> c.hyperNodeReprobe = every);
    }

    /** This configuration with the fields {@code change} sets (checked again as a new one). */
    private LiveConfig edit(java.util.function.Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return new LiveConfig(f.schedulerNames, f.period, f.leaderElect, f.leaseNamespace, f.leaseName, f.identity,
                f.leaseTiming, f.backoff, f.assumeTtl, f.scoring, f.writers, f.cycleDeadline, f.rulesFallbackAfter,
                f.shutdownGrace, f.keepRulesSession, f.warmUp, f.hyperNodeReprobe);
    }

    /** A configuration's fields, to change some and make a new one ({@link #edit}). */
    private static final class Fields {
        Set<String> schedulerNames;
        Duration period;
        boolean leaderElect;
        String leaseNamespace;
        String leaseName;
        String identity;
        LeaderElection.Timing leaseTiming;
        Backoff backoff;
        Duration assumeTtl;
        String scoring;
        Actuator.Writers writers;
        Duration cycleDeadline;
        int rulesFallbackAfter;
        Duration shutdownGrace;
        boolean keepRulesSession;
        boolean warmUp;
        Duration hyperNodeReprobe;

        Fields(LiveConfig c) {
            schedulerNames = c.schedulerNames;
            period = c.period;
            leaderElect = c.leaderElect;
            leaseNamespace = c.leaseNamespace;
            leaseName = c.leaseName;
            identity = c.identity;
            leaseTiming = c.leaseTiming;
            backoff = c.backoff;
            assumeTtl = c.assumeTtl;
            scoring = c.scoring;
            writers = c.writers;
            cycleDeadline = c.cycleDeadline;
            rulesFallbackAfter = c.rulesFallbackAfter;
            shutdownGrace = c.shutdownGrace;
            keepRulesSession = c.keepRulesSession;
            warmUp = c.warmUp;
            hyperNodeReprobe = c.hyperNodeReprobe;
        }
    }

    /** The name events are reported under: the first scheduler name in sorted order. */
    public String component() {
        return schedulerNames.stream().sorted().findFirst().orElseThrow();
    }
}
