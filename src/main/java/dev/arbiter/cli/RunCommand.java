package dev.arbiter.cli;

import dev.arbiter.engine.RuleBook;
import dev.arbiter.engine.SchedulerConfig;
import dev.arbiter.live.Durations;
import dev.arbiter.live.LeaderElection;
import dev.arbiter.live.LiveConfig;
import dev.arbiter.live.LiveScheduler;
import dev.arbiter.live.MetricsServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter run}: schedules a live cluster. Informers feed the same engine {@code simulate} runs; the actuator
 * binds, evicts and writes status. Runs until SIGTERM/SIGINT (or until its thread is interrupted), then finishes its
 * cycle, releases the Lease and exits 0.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run as a Kubernetes cluster's batch scheduler (pods whose spec.schedulerName is one of ours).")
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "PATH",
            description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else the in-cluster service account).")
    Path kubeconfig;

    @Option(names = "--scheduler-name", paramLabel = "NAME",
            description = "spec.schedulerName to answer; repeat for several (default: arbiter and volcano, as simulate)."
                    + " Beside a running Volcano scheduler, pass arbiter alone.")
    List<String> schedulerNames;

    @Option(names = "--rules", paramLabel = "DIR", description = "Folder of .drl policy files (default: ${DEFAULT-VALUE}).")
    Path rules = RulesLocation.defaultFolder();

    @Option(names = "--period", paramLabel = "DURATION", defaultValue = "1s",
            description = "Time between cycles when nothing changes, e.g. 500ms, 1s, 2m (default: ${DEFAULT-VALUE}).")
    String period;

    @Option(names = "--leader-elect", description = "Schedule only while holding the Lease (run 2+ replicas).")
    boolean leaderElect;

    @Option(names = "--lease-namespace", paramLabel = "NS",
            description = "Namespace of the Lease (default: $POD_NAMESPACE, else arbiter-system).")
    String leaseNamespace;

    @Option(names = "--lease-name", paramLabel = "NAME", defaultValue = "arbiter",
            description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
    String leaseName;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "8080",
            description = "Port of /metrics, /healthz and /readyz (default: ${DEFAULT-VALUE}).")
    int metricsPort;

    @Option(names = "--scoring", paramLabel = "STRATEGY", defaultValue = "binpack",
            description = "binpack or spread (default: ${DEFAULT-VALUE}).")
    String scoring;

    @Override
    public Integer call() throws IOException {
        Duration every;
        try {
            every = Durations.parse(period);
        } catch (IllegalArgumentException e) {
            return Main.usage(spec, "--period: " + e.getMessage());
        }
        if (every.isZero()) return Main.usage(spec, "--period must be positive");
        if (!scoring.equals("binpack") && !scoring.equals("spread")) return Main.usage(spec, "--scoring must be binpack or spread, got " + scoring);
        if (metricsPort < 0 || metricsPort > 65535) return Main.usage(spec, "--metrics-port must be 0..65535, got " + metricsPort);
        if (kubeconfig != null && !Files.isReadable(kubeconfig)) return Main.usage(spec, "--kubeconfig: " + kubeconfig + ": cannot read");
        RuleBook book = RuleBook.load(rules);
        LiveConfig config = config(every);

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CountDownLatch stopped = new CountDownLatch(1);
        try (KubernetesClient client = client();
             LiveScheduler scheduler = new LiveScheduler(client, book, config, registry);
             MetricsServer http = new MetricsServer(metricsPort, registry, scheduler::isHealthy, scheduler::isReady)) {
            Thread hook = new Thread(() -> {
                scheduler.close();
                stopped.countDown();
            }, "arbiter-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                scheduler.start();
                scheduler.watchRules(rules, Duration.ofSeconds(2), Duration.ofSeconds(30));
                spec.commandLine().getErr().println("arbiter: scheduling pods of " + config.schedulerNames() + " as "
                        + config.identity() + " (rules " + book.generation() + ", metrics on :" + http.port() + ")");
                spec.commandLine().getErr().flush();
                stopped.await();
            } catch (InterruptedException interrupted) {
                // Stopped from inside the JVM (embedding, tests): shut down as on SIGTERM.
                Thread.currentThread().interrupt();
            } finally {
                removeHook(hook);
            }
        }
        return 0;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    private LiveConfig config(Duration every) {
        LinkedHashSet<String> names = new LinkedHashSet<>(schedulerNames == null ? SchedulerConfig.DEFAULT_NAMES : schedulerNames);
        LiveConfig config = LiveConfig.defaults(names, identity()).withPeriod(every);
        if (!scoring.equals("binpack")) {
            config = new LiveConfig(config.schedulerNames(), config.period(), false, config.leaseNamespace(),
                    config.leaseName(), config.identity(), config.leaseTiming(), config.backoff(), config.assumeTtl(), scoring);
        }
        if (leaderElect) {
            String ns = leaseNamespace != null ? leaseNamespace : envOr("POD_NAMESPACE", "arbiter-system");
            config = config.withLeaderElection(ns, leaseName, LeaderElection.Timing.standard());
        }
        return config;
    }

    /** Auto-configured (kubeconfig, else in-cluster) unless --kubeconfig names one; fabric8's own retries bounded. */
    private KubernetesClient client() throws IOException {
        Config config = kubeconfig == null ? Config.autoConfigure(null) : Config.fromKubeconfig(Files.readString(kubeconfig));
        config.setRequestRetryBackoffLimit(3);
        return new KubernetesClientBuilder().withConfig(config).build();
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
