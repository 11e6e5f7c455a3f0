package dev.arbiter.live;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.StuckRules;
import dev.arbiter.runtime.KubeClients;
import dev.arbiter.runtime.RulesWatcher;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arbiter as a cluster's batch scheduler: the cache (read), the engine (decide) and the actuator (write), driven by
 * the scheduling loop, which runs only while this replica leads (or always, without leader election).
 *
 * <p>Lifecycle: {@link #start()} starts the informers and the campaign (or the loop); {@link #close()} shuts down
 * within the configured grace period whatever the API server does: the loop stops at once (a cycle in progress is
 * not waited for), writes in flight get part of the grace and are then cancelled, the Lease is released, the
 * informers stop. The client stays the caller's.
 */
public final class LiveScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LiveScheduler.class);

    private final LiveConfig config;
    private final AssumeCache assumed;
    private final ClusterCache cache;
    private final Actuator actuator;
    private final SchedulingLoop loop;
    private final Metrics metrics;
    private final LeaderElection election;
    private final RuleBook rules;
    private final SchedulerConfig schedulerConfig;
    private RulesWatcher watcher;
    private WarmUp warmUp;
    private StartForecasts forecasts;
    private volatile boolean closed;
    /** What a rule stuck for good said ({@link StuckRules}), or null. */
    private volatile String stuckRule;
    /** Set once the informers' first lists have returned: the warm-up ends then. */
    private volatile boolean informersListed;

    public LiveScheduler(KubernetesClient client, RuleBook rules, LiveConfig config, MeterRegistry registry) {
        this.config = config;
        this.metrics = new Metrics(registry);
        this.assumed = new AssumeCache(config.assumeTtl());
        SchedulingLoop[] loopRef = new SchedulingLoop[1];
        this.cache = new ClusterCache(client, assumed, () -> {
            if (loopRef[0] != null) loopRef[0].trigger();
        });
        cache.reprobeHyperNodesEvery(config.hyperNodeReprobe());
        metrics.unreadableObjects(cache::unreadableCount);
        metrics.queueObjects(cache::queueStatus);
        this.actuator = new Actuator(new ApiCalls(client, config.writers().requestTimeout()), cache, assumed, metrics,
                config.backoff(), config.schedulerNames(), config.component(), config.identity(), config.writers());
        // No one explains a live cycle from its rule trace (simulate and explain do), so it is not recorded; and a
        // cycle that could only repeat the last one's answer (a quiet cluster) repeats it without deciding.
        this.rules = rules;
        this.schedulerConfig = new SchedulerConfig(config.schedulerNames(), dev.arbiter.policy.ScoringMode.parse(config.scoring()));
        Scheduler scheduler = new Scheduler(rules, schedulerConfig).withoutTrace().answeringUnchanged();
        if (config.keepRulesSession()) scheduler = scheduler.keepingSession().keepingWorkingCopy();
        this.loop = new SchedulingLoop(cache, scheduler, actuator, metrics, config.period(), config.schedulerNames(),
                config.rulesFallbackAfter(), (broken, good, failures, error) -> actuator.schedulerEvent(selfPod(), "RulesFallback",
                        "rules generation " + broken + " failed " + failures + " cycles in a row (" + error
                                + "); scheduling with generation " + good + ", the last that worked"));
        loopRef[0] = loop;
        metrics.rulesGeneration(rules.generation());
        // A rule that runs past its deadline in a cycle and cannot be stopped keeps a core for good: said once in a log
        // line, an event and a metric, and /healthz fails so that the kubelet restarts the pod. (New rules are first
        // run in a child process, so only rules that already worked here can get stuck, on data they had not met.)
        StuckRules.whenStuck((String message, String rule) -> {
            LogFields.known(LOG.atError(), "rule", rule).addKeyValue("generation", loop.currentRules().generation())
                    .log("rules stuck: {}; /healthz now fails so that the pod is restarted", message);
            metrics.rulesStuck();
            actuator.schedulerEvent(selfPod(), "RulesStuck", message + "; the pod will be restarted");
            stuckRule = message; // last: once /healthz fails, the line, the metric and the event are out
        });
        this.election = config.leaderElect()
                ? new LeaderElection(client, config.leaseNamespace(), config.leaseName(), config.identity(),
                        config.leaseTiming(), this::startLeading, this::stopLeading)
                : null;
    }

    /**
     * Checks, with one cheap list each, that the cluster answers and lets this client read what the informers need
     * (nodes, pods, namespaces, priority classes, Volcano's queues and PodGroups); throws {@link KubeClients.ClusterUnavailable}
     * with one line naming the server and the cause. {@code arbiter run} retries this before it starts.
     */
    public static void checkAccess(KubernetesClient client) {
        checkAccess(client, null);
    }

    /** As {@link #checkAccess(KubernetesClient)}, marking the first answer on {@code startup} (null: none). */
    public static void checkAccess(KubernetesClient client, StartupTimeline startup) {
        String server = client.getMasterUrl().toString();
        String what = "nodes";
        try {
            client.nodes().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
            if (startup != null) startup.mark("first answer");
            what = "pods";
            client.pods().inAnyNamespace().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
            what = "namespaces";
            client.namespaces().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
            what = "priorityclasses";
            client.scheduling().v1().priorityClasses().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
            what = "queues";
            client.resources(VolcanoQueue.class).list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
            what = "podgroups";
            client.resources(VolcanoPodGroup.class).inAnyNamespace().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            if (e.getCode() == 404 && (what.equals("queues") || what.equals("podgroups"))) {
                throw new KubeClients.ClusterUnavailable(server.replaceAll("/+$", "") + ": no " + what
                        + ".scheduling.volcano.sh: install the CRDs (deploy/crds) or Volcano", e);
            }
            String line = KubeClients.describe(e, server);
            throw new KubeClients.ClusterUnavailable(e.getCode() > 0 ? line + " (listing " + what + ")" : line, e);
        } catch (RuntimeException e) {
            throw KubeClients.unavailable(e, server);
        }
    }

    /**
     * Starts the informers, then either campaigns for the Lease or starts scheduling. Starting the informers returns
     * once each has listed its objects, which for a large cluster takes seconds: meanwhile, unless the config says not
     * to, a {@link WarmUp} runs the engine on a small synthetic cluster.
     */
    public void start() {
        startInformers();
        if (election != null) election.start();
        else startLeading();
    }

    /**
     * Starts the informers only (with the warm-up while they list): no campaign, no timer; cycles run when the caller
     * calls {@code loop().runOnce()}. For tests and tools that drive cycles themselves.
     */
    public void startInformersOnly() {
        startInformers();
    }

    /**
     * The informers' first lists block ({@link ClusterCache#start} waits for each list and watch to start, retrying
     * failed lists), so the warm-up starts before them and stops once they have returned, or at close: it never asks
     * the cache. A standby replica warms up too: a failover then meets a warm engine.
     */
    private void startInformers() {
        if (config.warmUp()) {
            synchronized (this) {
                if (warmUp == null && !closed) {
                    warmUp = WarmUp.start(rules, schedulerConfig, config.keepRulesSession(), WarmUp.Plan.standard(),
                            () -> closed || informersListed);
                }
            }
        }
        try {
            cache.start();
        } finally {
            informersListed = true;
        }
    }

    /**
     * Times start-up on {@code timeline}: the informers mark when each listed, and the first cycle that acts marks
     * itself and logs the timeline. Call before {@link #start()}.
     */
    public void timeStartUp(StartupTimeline timeline) {
        cache.timeStartUp(timeline);
        loop.timeStartUp(timeline);
    }

    /**
     * Turns on start-time estimates (docs/estimates.md): a forecast at most every {@code interval}, off the scheduling
     * thread, looking {@code horizonSeconds} ahead; each pending PodGroup gets {@code arbiter.dev/estimated-start} and
     * the metrics show them per queue. Call before {@link #start()}; without it, none are made.
     */
    public synchronized void estimateStarts(Duration interval, long horizonSeconds) {
        if (forecasts != null || interval.isZero() || interval.isNegative()) return;
        forecasts = new StartForecasts(interval, horizonSeconds, schedulerConfig, metrics, System::nanoTime);
        actuator.estimatesFrom(forecasts::latest);
        loop.forecastStarts(forecasts);
    }

    /** The start-time forecasts, or null when estimates are off. */
    public synchronized StartForecasts startForecasts() {
        return forecasts;
    }

    /** The warm-up started with the informers, or null when there was none (turned off, or not started yet). */
    public synchronized WarmUp warmUp() {
        return warmUp;
    }

    private void startLeading() {
        if (closed) return;
        actuator.resumeWrites();
        metrics.leader(true);
        loop.start();
    }

    /** Leadership lost: stop, cancel what is in flight, forget this term's assumptions; a new leader starts afresh. */
    private void stopLeading() {
        metrics.leader(false);
        loop.stop();
        actuator.abandonWrites();
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

    /**
     * For {@code /healthz}: every informer is still running (see {@link ClusterCache#isHealthy()}) and, while this
     * replica schedules, a cycle finished within the cycle deadline.
     */
    public boolean isHealthy() {
        return stuckRule == null && cache.isHealthy() && loop.healthy(config.cycleDeadline());
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

    Actuator actuator() {
        return actuator;
    }

    /** This replica's pod, {@code namespace/name}, for events about the scheduler itself. */
    private String selfPod() {
        return config.leaseNamespace() + "/" + config.identity();
    }

    /**
     * Hot reload: watches {@code folder} (a ConfigMap mount's symlink swap included) and, when its rules change,
     * compiles and checks them (as validate does) off the scheduling thread and swaps them in before the next cycle.
     * Rules that do not compile or fail the check are
     * logged with {@code file:line}, counted ({@code arbiter_rules_reload_failures_total}) and reported as a
     * {@code RulesRejected} Event on this replica's pod; the running rules stay and readiness is unaffected.
     */
    public synchronized void watchRules(Path folder, Duration debounce, Duration poll) throws IOException {
        if (watcher != null) return;
        watcher = new RulesWatcher(folder, loop.currentRules(), debounce, poll, new RulesWatcher.Listener() {
            @Override
            public void reloaded(RuleBook rules, String previousGeneration) {
                LOG.atInfo().addKeyValue("generation", rules.generation())
                        .log("rules reloaded: generation {} (was {})", rules.generation(), previousGeneration);
                metrics.rulesReloaded();
                loop.useRules(rules);
            }

            @Override
            public void reloadFailed(RulesWatcher.Failure failure) {
                metrics.rulesReloadFailed();
                for (String problem : failure.problems()) {
                    LOG.atError().addKeyValue("generation", failure.keptGeneration()).log("rules rejected: {}", problem);
                }
                String first = failure.problems().isEmpty() ? "does not compile" : failure.problems().get(0);
                actuator.schedulerEvent(selfPod(), "RulesRejected", "new rules rejected, keeping generation "
                        + failure.keptGeneration() + ": " + first
                        + (failure.problems().size() > 1 ? " (+" + (failure.problems().size() - 1) + " more)" : ""));
            }
        });
        watcher.start();
    }

    /**
     * Evaluates {@code candidate} (compiled and checked, as the active rules are) beside the active policy on every
     * cycle that acts, acting on nothing ({@link ShadowPolicy}); {@code folder} names it. Call before {@link #start()}.
     */
    public synchronized ShadowPolicy shadow(String folder, RuleBook candidate) {
        ShadowPolicy s = new ShadowPolicy(folder, candidate, schedulerConfig, config.keepRulesSession(), metrics, config.period());
        loop.shadow(s);
        return s;
    }

    /** The shadow policy, or null. */
    public ShadowPolicy shadow() {
        return loop.shadow();
    }

    /** Stops acting (rules watcher, loop, writes, Lease) but keeps the informers running; {@link #close()} stops all. */
    public void stopScheduling() {
        stopScheduling(config.shutdownGrace());
    }

    private void stopScheduling(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        closed = true;
        RulesWatcher w;
        synchronized (this) {
            w = watcher;
            if (warmUp != null) warmUp.stop();
            if (forecasts != null) forecasts.close();
        }
        if (w != null) w.close(Duration.ofMillis(Math.min(1000, grace.toMillis() / 10)));
        // 1. No new cycle, and a cycle still running acts no more.
        loop.stop();
        ShadowPolicy shadow = loop.shadow();
        if (shadow != null) shadow.close();
        metrics.leader(false);
        // 2. Writes in flight get up to a third of what is left to finish, then are cancelled; events get a moment.
        actuator.close(remaining(deadline).multipliedBy(2).dividedBy(3));
        assumed.clear();
        // 3. Give the Lease up, so a standby takes over now rather than when it expires.
        if (election != null) election.close(remaining(deadline));
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    /** Shuts down within {@link LiveConfig#shutdownGrace()}; see the class comment. */
    @Override
    public void close() {
        close(config.shutdownGrace());
    }

    public void close(Duration grace) {
        stopScheduling(grace);
        cache.close();
    }
}
