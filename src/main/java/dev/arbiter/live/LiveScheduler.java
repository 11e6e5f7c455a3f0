package dev.arbiter.live;

import dev.arbiter.engine.RuleBook;
import dev.arbiter.engine.Scheduler;
import dev.arbiter.engine.SchedulerConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Arbiter as a cluster's batch scheduler: the cache (read), the engine (decide) and the actuator (write), driven by
 * the scheduling loop, which runs only while this replica leads (or always, without leader election).
 *
 * <p>Lifecycle: {@link #start()} starts the informers and the campaign (or the loop); {@link #close()} stops the
 * loop after its current cycle, releases the Lease and stops the informers. The client stays the caller's.
 */
public final class LiveScheduler implements AutoCloseable {
    private final LiveConfig config;
    private final AssumeCache assumed;
    private final ClusterCache cache;
    private final Actuator actuator;
    private final SchedulingLoop loop;
    private final Metrics metrics;
    private final LeaderElection election;

    public LiveScheduler(KubernetesClient client, RuleBook rules, LiveConfig config, MeterRegistry registry) {
        this.config = config;
        this.metrics = new Metrics(registry);
        this.assumed = new AssumeCache(config.assumeTtl());
        SchedulingLoop[] loopRef = new SchedulingLoop[1];
        this.cache = new ClusterCache(client, assumed, () -> {
            if (loopRef[0] != null) loopRef[0].trigger();
        });
        this.actuator = new Actuator(client, cache, assumed, metrics, config.backoff(), config.schedulerNames(),
                config.component(), config.identity());
        Scheduler scheduler = new Scheduler(rules, new SchedulerConfig(config.schedulerNames(), config.scoring()));
        this.loop = new SchedulingLoop(cache, scheduler, actuator, metrics, config.period(), config.schedulerNames());
        loopRef[0] = loop;
        this.election = config.leaderElect()
                ? new LeaderElection(client, config.leaseNamespace(), config.leaseName(), config.identity(),
                        config.leaseTiming(), this::startLeading, this::stopLeading)
                : null;
    }

    /** Starts the informers, then either campaigns for the Lease or starts scheduling. */
    public void start() {
        cache.start();
        if (election != null) election.start();
        else startLeading();
    }

    /**
     * Starts the informers only: no campaign, no timer; cycles run when the caller calls {@code loop().runOnce()}.
     * For tests and tools that drive cycles themselves.
     */
    public void startInformersOnly() {
        cache.start();
    }

    private void startLeading() {
        metrics.leader(true);
        loop.start();
    }

    /** A new leader starts from what the informers show; assumptions of this term are dropped. */
    private void stopLeading() {
        metrics.leader(false);
        loop.stop();
        assumed.clear();
    }

    /** True while this replica may schedule. */
    public boolean isLeader() {
        return election == null ? loop.isRunning() : election.isLeader();
    }

    /** For {@code /readyz}: the informer caches have synced. */
    public boolean isReady() {
        return cache.hasSynced();
    }

    /** For {@code /healthz}: every informer is still running (see {@link ClusterCache#isHealthy()}). */
    public boolean isHealthy() {
        return cache.isHealthy();
    }

    public ClusterCache cache() {
        return cache;
    }

    public SchedulingLoop loop() {
        return loop;
    }

    public Metrics metrics() {
        return metrics;
    }

    public AssumeCache assumed() {
        return assumed;
    }

    public LiveConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (election != null) election.close();
        stopLeading();
        cache.close();
    }
}
