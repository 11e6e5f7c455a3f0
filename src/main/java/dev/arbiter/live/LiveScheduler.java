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
    private dev.arbiter.runtime.RulesWatcher watcher;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LiveScheduler.class);

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
        metrics.rulesGeneration(rules.generation());
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

    /**
     * Hot reload: watches {@code folder} (a ConfigMap mount's symlink swap included) and, when its rules change,
     * compiles them off the scheduling thread and swaps them in before the next cycle. Rules that do not compile are
     * logged with {@code file:line}, counted ({@code arbiter_rules_reload_failures_total}) and reported as a
     * {@code RulesRejected} Event on this replica's pod; the running rules stay and readiness is unaffected.
     */
    public synchronized void watchRules(java.nio.file.Path folder, java.time.Duration debounce, java.time.Duration poll)
            throws java.io.IOException {
        if (watcher != null) return;
        watcher = new dev.arbiter.runtime.RulesWatcher(folder, loop.currentRules(), debounce, poll,
                new dev.arbiter.runtime.RulesWatcher.Listener() {
                    @Override
                    public void reloaded(RuleBook rules, String previousGeneration) {
                        LOG.info("rules reloaded: generation {} (was {})", rules.generation(), previousGeneration);
                        metrics.rulesReloaded();
                        loop.useRules(rules);
                    }

                    @Override
                    public void reloadFailed(dev.arbiter.runtime.RulesWatcher.Failure failure) {
                        metrics.rulesReloadFailed();
                        for (String problem : failure.problems()) LOG.error("rules rejected: {}", problem);
                        String first = failure.problems().isEmpty() ? "does not compile" : failure.problems().get(0);
                        actuator.rulesRejected(config.leaseNamespace() + "/" + config.identity(),
                                "new rules rejected, keeping generation " + failure.keptGeneration() + ": " + first
                                        + (failure.problems().size() > 1 ? " (+" + (failure.problems().size() - 1) + " more)" : ""));
                    }
                });
        watcher.start();
    }

    /** Stops acting (rules watcher, Lease, scheduling loop) but keeps the informers running; {@link #close()} stops all. */
    public void stopScheduling() {
        synchronized (this) {
            if (watcher != null) watcher.close();
        }
        if (election != null) election.close();
        stopLeading();
    }

    @Override
    public void close() {
        stopScheduling();
        cache.close();
    }
}
