package dev.arbiter.cli;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RulesCache;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.live.Actuator;
import dev.arbiter.live.Durations;
import dev.arbiter.live.LeaderElection;
import dev.arbiter.live.LiveConfig;
import dev.arbiter.live.LiveScheduler;
import dev.arbiter.live.MetricsServer;
import dev.arbiter.live.StartupTimeline;
import dev.arbiter.live.WarmUp;
import dev.arbiter.runtime.KubeClients;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter run}: schedules a live cluster. Informers feed the same engine {@code simulate} runs; the actuator
 * binds, evicts and writes status.
 *
 * <p>Start-up: the rules must compile (exit 3) and the flags and kubeconfig must be usable (exit 2); then the probes
 * serve ({@code /readyz} 503) while the cluster is tried, with backoff and one log line per attempt, until it
 * answers. Runs until SIGTERM/SIGINT (or until its thread is interrupted, when embedded), then shuts down within
 * {@code --shutdown-grace} whatever the API server does — writes in flight cancelled, Lease released — and exits 0.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run as a Kubernetes cluster's batch scheduler (pods whose spec.schedulerName is one of ours).")
final class RunCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    /**
     * Requests in flight beside the binders': status writers, the event recorder, the Lease, lists and probes. The
     * client's default (5 per host) held 32 binders to 5 requests at a time: a quarter of what the API server takes
     * (docs/benchmarks.md, "On a real API server").
     */
    private static final int STATUS_AND_OTHER_REQUESTS = 16;

    @Spec
    CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "PATH",
            description = ClusterFlags.KUBECONFIG)
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = ClusterFlags.CONTEXT)
    String context;

    @Mixin
    SchedulerNameOption schedulerNames;

    @Mixin
    RulesOption rules;

    @Option(names = "--shadow-rules", paramLabel = "DIR",
            description = "A candidate policy folder, evaluated on every cycle beside --rules on the same snapshot and"
                    + " acted on never: what it decides differently is counted (arbiter_shadow_*), logged, and served on"
                    + " /shadow (arbiter shadow-report). Compiled and checked at start-up as --rules are.")
    Path shadowRules;

    @Option(names = "--rules-cache", paramLabel = "DIR",
            description = "Folder that keeps compiled rules across restarts, or off (default: $ARBITER_RULES_CACHE, else"
                    + " $XDG_CACHE_HOME/arbiter/rules, else ~/.cache/arbiter/rules). A corrupt or stale file is ignored and rewritten.")
    String rulesCache;

    @Option(names = "--period", paramLabel = "DURATION", defaultValue = "1s",
            description = "Time between cycles when nothing changes, e.g. 500ms, 1s, 2m (default: ${DEFAULT-VALUE}).")
    String period;

    @Option(names = "--estimate-interval", paramLabel = "DURATION", defaultValue = "0s",
            description = "Start-time estimates: forecast at most this often, off the scheduling thread, and annotate each pending "
                    + "PodGroup with arbiter.dev/estimated-start, e.g. 60s; 0s turns them off (default: ${DEFAULT-VALUE}; docs/estimates.md).")
    String estimateInterval;

    @Option(names = "--estimate-horizon", paramLabel = "DURATION", defaultValue = "7d",
            description = "How far ahead start-time estimates look, e.g. 12h or 7d (default: ${DEFAULT-VALUE}).")
    String estimateHorizon;

    @Option(names = "--leader-elect", description = "Schedule only while holding the Lease (run 2+ replicas).")
    boolean leaderElect;

    @Option(names = "--lease-namespace", paramLabel = "NS",
            description = "Namespace of the Lease (default: $POD_NAMESPACE, else arbiter-system).")
    String leaseNamespace;

    @Option(names = "--lease-name", paramLabel = "NAME", defaultValue = "arbiter",
            description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
    String leaseName;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "8080",
            description = "Port of /metrics, /healthz and /readyz (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int metricsPort;

    @Option(names = "--metrics-bind-address", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Address /metrics, /healthz and /readyz listen on (default: ${DEFAULT-VALUE}, every interface; "
                    + "127.0.0.1 for local only).")
    String metricsBindAddress;

    @Option(names = "--metrics-secure", defaultValue = "false",
            description = "Serve /metrics over HTTPS on --metrics-port, only to callers the API server authenticates "
                    + "(TokenReview) and authorizes to get /metrics (SubjectAccessReview), as kube-rbac-proxy does; the "
                    + "probes then answer on --health-port over HTTP.")
    boolean metricsSecure;

    @Option(names = "--metrics-cert-dir", paramLabel = "DIR",
            description = "tls.crt and tls.key for --metrics-secure (e.g. a mounted Secret); default: a self-signed "
                    + "certificate made at start-up.")
    Path metricsCertDir;

    @Option(names = "--health-port", paramLabel = "PORT", defaultValue = "8081",
            description = "Port of /healthz and /readyz with --metrics-secure (default: ${DEFAULT-VALUE}).")
    int healthPort;

    @Option(names = "--scoring", paramLabel = "STRATEGY",
            description = "binpack or spread (default: the policy's, scoring.mode in policy.yaml).")
    String scoring;

    @Option(names = "--binders", paramLabel = "N", defaultValue = "32",
            description = "Bindings and evictions in flight at once, 1..256 (default: ${DEFAULT-VALUE}).")
    int binders;

    @Option(names = "--event-qps", paramLabel = "N", defaultValue = "50",
            description = "Events written per second at most (default: ${DEFAULT-VALUE}); more wait, and drop when 4,096 wait.")
    double eventQps;

    @Option(names = "--event-burst", paramLabel = "N", defaultValue = "100",
            description = "Events written at once after a quiet spell (default: ${DEFAULT-VALUE}).")
    int eventBurst;

    @Option(names = "--cycle-deadline", paramLabel = "DURATION", defaultValue = "60s",
            description = "/healthz fails when no cycle finished for this long (default: ${DEFAULT-VALUE}).")
    String cycleDeadline;

    @Option(names = "--rules-fallback-after", paramLabel = "N", defaultValue = "3",
            description = "Consecutive failed cycles after which the last rules that worked come back (default: ${DEFAULT-VALUE}).")
    int rulesFallbackAfter;

    @Option(names = "--shutdown-grace", paramLabel = "DURATION", defaultValue = "25s",
            description = "Longest shutdown after SIGTERM, whatever the API server does; keep it below the pod's "
                    + "terminationGracePeriodSeconds (default: ${DEFAULT-VALUE}).")
    String shutdownGrace;

    @Option(names = {"--fresh-cycles", "--fresh-rules-session"},
            description = "Start every cycle afresh — a new rules session, the snapshot indexed anew — instead of keeping"
                    + " both across cycles and bringing them up to date with what changed (the decisions are the same;"
                    + " this costs more CPU per cycle).")
    boolean freshCycles;

    @Option(names = "--warm-up", negatable = true,
            description = "Warm the engine up on a small synthetic cluster while the informers list the cluster, so the first"
                    + " real cycle runs compiled code (the decisions are the same). Default: on, unless the JVM maps an AOT"
                    + " cache (-XX:AOTCache, as the image does), whose profiles make it pointless.")
    Boolean warmUp;

    @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "info",
            description = "Level of Arbiter's own log lines: trace, debug, info, warn, error or off (default: ${DEFAULT-VALUE}).")
    String logLevel;

    @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (timestamp, level, logger, message, then fields such as cycle=7) or json (one object a line,"
                    + " with the cycle, object and rule as fields) (default: ${DEFAULT-VALUE}).")
    String logFormat;

    @Override
    public Integer call() throws IOException, InterruptedException {
        StartupTimeline startup = StartupTimeline.sinceJvmStart();
        startup.mark("jvm");
        Durations.Bounded periodBounds = new Durations.Bounded(Duration.ofMillis(10), Duration.ofHours(1));
        Duration every;
        Duration deadline;
        Duration grace;
        Duration estimateEvery;
        long horizon = dev.arbiter.model.Runtimes.seconds(estimateHorizon);
        if (horizon < 1) return Main.usage(spec, "--estimate-horizon must be a duration such as 12h or 7d (at most 366d), got " + estimateHorizon);
        try {
            every = periodBounds.parse("--period", period);
            deadline = new Durations.Bounded(Duration.ofSeconds(1), Duration.ofHours(24)).parse("--cycle-deadline", cycleDeadline);
            grace = new Durations.Bounded(Duration.ofSeconds(1), Duration.ofHours(1)).parse("--shutdown-grace", shutdownGrace);
            estimateEvery = "0".equals(estimateInterval.trim()) ? Duration.ZERO
                    : new Durations.Bounded(Duration.ZERO, Duration.ofHours(24)).parse("--estimate-interval", estimateInterval);
        } catch (IllegalArgumentException e) {
            return Main.usage(spec, e.getMessage());
        }
        if (scoring != null && dev.arbiter.policy.ScoringMode.named(scoring) == null) return Main.usage(spec, "--scoring must be binpack or spread, got " + scoring);
        if (metricsPort < 0 || metricsPort > 65535) return Main.usage(spec, "--metrics-port must be 0..65535, got " + metricsPort);
        if (binders < 1 || binders > 256) return Main.usage(spec, "--binders must be 1..256, got " + binders);
        if (!(eventQps > 0) || eventQps > 100_000) return Main.usage(spec, "--event-qps must be above 0 and at most 100000, got " + eventQps);
        if (eventBurst < 1 || eventBurst > 100_000) return Main.usage(spec, "--event-burst must be 1..100000, got " + eventBurst);
        if (rulesFallbackAfter < 1 || rulesFallbackAfter > 1000) return Main.usage(spec, "--rules-fallback-after must be 1..1000, got " + rulesFallbackAfter);
        if (!LogLevel.LEVELS.contains(logLevel.toLowerCase(Locale.ROOT))) {
            return Main.usage(spec, "--log-level must be one of trace, debug, info, warn, error, off; got " + logLevel);
        }
        if (!LogLevel.FORMATS.contains(logFormat)) return Main.usage(spec, "--log-format must be text or json, got " + logFormat);
        InetSocketAddress metricsAddress;
        try {
            metricsAddress = new InetSocketAddress(InetAddress.getByName(metricsBindAddress), metricsPort);
        } catch (UnknownHostException e) {
            return Main.usage(spec, "--metrics-bind-address: " + metricsBindAddress + " is not an address of this host");
        }
        io.vertx.core.net.PemKeyCertOptions metricsTls = null;
        if (metricsSecure) {
            try {
                String ns = System.getenv().getOrDefault("POD_NAMESPACE", "arbiter-system");
                metricsTls = dev.arbiter.live.ServingCert.of(metricsCertDir, List.of("arbiter-metrics",
                        "arbiter-metrics." + ns + ".svc", "localhost", "127.0.0.1"));
            } catch (java.io.IOException e) {
                return Main.usage(spec, e.getMessage());
            }
        } else if (metricsCertDir != null) {
            return Main.usage(spec, "--metrics-cert-dir is for --metrics-secure");
        }
        if (shadowRules != null && RulesLocation.problem("--shadow-rules", shadowRules) != null) {
            return Main.usage(spec, RulesLocation.problem("--shadow-rules", shadowRules));
        }
        Config clientConfig = KubeClients.config(kubeconfig, context, Duration.ofSeconds(10));
        KubeClients.allowInFlight(clientConfig, binders + STATUS_AND_OTHER_REQUESTS);
        // The rules compile (or come from the rules cache) and are checked while the client starts and the cluster is
        // tried: each takes seconds in a fresh JVM, and the first cycle needs both.
        CompletableFuture<CheckedRules> checkedRules = CompletableFuture.supplyAsync(() -> {
            RuleBook book = RuleBook.load(rules.folder, RulesCache.fromEnvironment(rulesCache));
            startup.mark(book.fromCache() ? "rules read from the cache" : "rules compiled");
            CheckedRules checked = new CheckedRules(book, dev.arbiter.engine.cycle.PolicyCheck.check(book, List.of()));
            startup.mark("rules checked");
            return checked;
        }, onThread("arbiter-rules-load"));
        // The shadow's rules, compiled and checked as the active ones are, beside them.
        CompletableFuture<CheckedRules> checkedShadow = shadowRules == null ? null : CompletableFuture.supplyAsync(() -> {
            RuleBook book = RuleBook.load(shadowRules, RulesCache.fromEnvironment(rulesCache));
            return new CheckedRules(book, dev.arbiter.engine.cycle.PolicyCheck.check(book, List.of()));
        }, onThread("arbiter-shadow-rules-load"));
        LiveConfig config = config(every, deadline, grace);

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicReference<LiveScheduler> running = new AtomicReference<>();
        CountDownLatch stop = new CountDownLatch(1);
        // From the first instant: a stop arms the watchdog at once, so that nothing start-up waits on can outlive the
        // grace (the shutdown below arms it again, which changes nothing).
        Signals signals = Main.isStandalone() ? Signals.install(stop::countDown, grace.plusSeconds(5)) : null;
        java.util.function.BooleanSupplier healthy = () -> running.get() == null || running.get().isHealthy();
        java.util.function.BooleanSupplier ready = () -> running.get() != null && running.get().isReady();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build();
             MetricsServer http = metricsSecure
                     ? new MetricsServer(metricsAddress, registry, healthy, ready,
                             MetricsServer.Serving.secure(metricsTls, new dev.arbiter.live.MetricsAuth(client)))
                     : new MetricsServer(metricsAddress, registry, healthy, ready);
             MetricsServer probes = metricsSecure
                     ? new MetricsServer(new InetSocketAddress(metricsAddress.getAddress(), healthPort), registry, healthy,
                             ready, MetricsServer.Serving.PROBES)
                     : null) {
            startup.mark("client and probes up");
            // Start-up stops early when either policy turns out unusable (the active one is said first, below).
            CompletableFuture<CheckedRules> bothRules = checkedShadow == null ? checkedRules
                    : checkedRules.thenCombine(checkedShadow, (active, shadow) -> active.findings().isEmpty() ? shadow : active);
            if (!awaitCluster(client, stop, bothRules, startup)) {
                if (stop.getCount() == 0) return 0;
            } else {
                startup.mark("cluster answered");
            }
            // Rules that do not compile (exit 3, each problem on a line), or that compile but loop, throw or leave
            // decisions unmade, never start scheduling.
            CheckedRules checked = rulesOf(checkedRules);
            if (!checked.findings().isEmpty()) return Main.brokenRules(spec, checked.findings());
            RuleBook book = checked.book();
            CheckedRules shadowChecked;
            try {
                shadowChecked = checkedShadow == null ? null : rulesOf(checkedShadow);
            } catch (dev.arbiter.engine.rules.RuleCompileException e) {
                return Main.brokenRules(spec, e.problems().stream().map(p -> "--shadow-rules: " + p).toList());
            }
            if (shadowChecked != null && !shadowChecked.findings().isEmpty()) {
                return Main.brokenRules(spec, shadowChecked.findings().stream().map(f -> "--shadow-rules: " + f).toList());
            }
            LiveScheduler scheduler = new LiveScheduler(client, book, config, registry);
            if (shadowChecked != null) {
                scheduler.shadow(shadowRules.toAbsolutePath().normalize().toString(), shadowChecked.book());
                http.serveShadow(() -> scheduler.shadow() == null ? null : scheduler.shadow().json());
            }
            scheduler.timeStartUp(startup);
            scheduler.estimateStarts(estimateEvery, horizon);
            running.set(scheduler);
            // start() waits for every informer's first list, retrying a server that refuses for now (429, 5xx) for
            // as long as it takes: a stop asked for meanwhile closes the scheduler, which ends that wait.
            Thread stopWhileStarting = new Thread(() -> {
                try {
                    stop.await();
                    scheduler.close(grace);
                } catch (InterruptedException started) {
                    // start() returned: the stop is handled below
                }
            }, "arbiter-stop-while-starting");
            stopWhileStarting.setDaemon(true);
            stopWhileStarting.start();
            try {
                scheduler.start();
                stopWhileStarting.interrupt();
                stopWhileStarting.join();
                scheduler.watchRules(rules.folder, Duration.ofSeconds(2), Duration.ofSeconds(30));
                String started = "arbiter: scheduling pods of " + config.schedulerNames() + " as "
                        + config.identity() + " (rules " + rules.folder.toAbsolutePath().normalize() + " generation "
                        + book.generation() + (shadowChecked == null ? "" : ", shadow rules "
                                + shadowRules.toAbsolutePath().normalize() + " generation " + shadowChecked.book().generation())
                        + ", metrics on " + (metricsSecure ? "https://" : "") + metricsBindAddress + ":"
                        + http.port() + (probes != null ? ", probes on " + metricsBindAddress + ":" + probes.port() : "") + ")";
                // With --log-format json every stderr line is a JSON object, so this line is logged (INFO); as text it
                // is printed as it always was.
                if (logFormat.equals("json")) LOG.info(started);
                else spec.commandLine().getErr().println(started);
                spec.commandLine().getErr().flush();
                stop.await();
                LOG.info("stopping: shutting down within {} s", grace.toSeconds());
            } catch (InterruptedException interrupted) {
                // Stopped from inside the JVM (embedding, tests, the bench): shut down as on SIGTERM.
                Thread.currentThread().interrupt();
            } finally {
                if (signals != null) signals.watchdog(grace.plusSeconds(5));
                scheduler.close(grace);
                LOG.info("stopped");
            }
        } finally {
            if (signals != null) signals.restore();
        }
        return 0;
    }

    /** The rules, and what checking them found (nothing when they may schedule). */
    private record CheckedRules(RuleBook book, List<String> findings) {}

    /** The loaded rules; what loading them threw (a compile error: exit 3) is thrown as it was. */
    private static CheckedRules rulesOf(CompletableFuture<CheckedRules> checkedRules) throws InterruptedException {
        try {
            return checkedRules.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    /** True when {@code rules} are loaded and cannot schedule (they did not compile, or failed the check). */
    private static boolean unusable(CompletableFuture<CheckedRules> rules) {
        return rules.isDone() && (rules.isCompletedExceptionally() || !rules.join().findings().isEmpty());
    }

    /**
     * Tries the cluster until it answers (true), or until a stop is asked for or the rules turn out unusable (false):
     * one log line per failed attempt, waiting 1 s, then twice as long each time, up to 30 s.
     */
    private static boolean awaitCluster(KubernetesClient client, CountDownLatch stop, CompletableFuture<CheckedRules> rules,
                                        StartupTimeline startup) throws InterruptedException {
        long wait = 1;
        for (int attempt = 1; ; attempt++) {
            if (unusable(rules)) return false;
            // The check on a thread of its own: a stop asked for while the server takes its time (up to the request
            // timeout per list, six lists) is answered at once.
            CompletableFuture<Void> check = CompletableFuture.runAsync(() -> LiveScheduler.checkAccess(client, startup),
                    onThread("arbiter-access-check"));
            while (!check.isDone()) {
                if (stop.await(100, TimeUnit.MILLISECONDS)) return false;
            }
            try {
                check.join();
                if (attempt > 1) LOG.info("{} answers; starting", client.getMasterUrl());
                return true;
            } catch (java.util.concurrent.CompletionException e) {
                if (!(e.getCause() instanceof KubeClients.ClusterUnavailable unavailable)) {
                    throw e.getCause() instanceof RuntimeException r ? r : e;
                }
                LOG.warn("{}; retrying in {} s (attempt {})", unavailable.getMessage(), wait, attempt);
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(wait);
            while (System.nanoTime() < until) {
                if (stop.await(100, TimeUnit.MILLISECONDS) || unusable(rules)) return false;
            }
            wait = Math.min(wait * 2, 30);
        }
    }

    /** Runs each task on a daemon thread of its own, named {@code name}: start-up work that a stop must not wait for. */
    private static java.util.concurrent.Executor onThread(String name) {
        return task -> {
            Thread t = new Thread(task, name);
            t.setDaemon(true);
            t.start();
        };
    }

    private LiveConfig config(Duration every, Duration deadline, Duration grace) {
        LiveConfig config = LiveConfig.defaults(schedulerNames.names(), identity()).withPeriod(every).withScoring(scoring)
                .withWriters(Actuator.Writers.standard().withBinders(binders).withEvents(eventQps, eventBurst))
                .withCycleDeadline(deadline).withRulesFallbackAfter(rulesFallbackAfter).withShutdownGrace(grace)
                .withKeptRulesSession(!freshCycles).withWarmUp(warmUp != null ? warmUp : WarmUp.paysInThisJvm());
        if (leaderElect) {
            String ns = leaseNamespace != null ? leaseNamespace : envOr("POD_NAMESPACE", "arbiter-system");
            config = config.withLeaderElection(ns, leaseName, LeaderElection.Timing.standard());
        }
        return config;
    }

    private static String identity() {
        String pod = System.getenv("POD_NAME");
        if (pod != null && !pod.isBlank()) return pod;
        try {
            return InetAddress.getLocalHost().getHostName() + "-" + UUID.randomUUID().toString().substring(0, 8);
        } catch (IOException e) {
            return "arbiter-" + UUID.randomUUID().toString().substring(0, 8);
        }
    }

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
