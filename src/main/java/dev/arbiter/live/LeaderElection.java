package dev.arbiter.live;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a {@code coordination.k8s.io} Lease, so that of several replicas exactly one schedules.
 * {@code onStartLeading} runs when this replica acquires the Lease; {@code onStopLeading} when it loses it (renewal
 * failed within the renew deadline) or gives it up on {@link #close()}, which releases the Lease so a standby takes
 * over at once instead of after the lease duration. A replica that loses the Lease without closing campaigns again.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

    /** Lease timing: how long a Lease is valid, how soon the leader must renew it, how often candidates retry. */
    public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        /** kube-scheduler's defaults: 15 s, 10 s, 2 s. */
        public static Timing standard() {
            return new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String leaseName;
    private final String identity;
    private final Timing timing;
    private final Runnable onStartLeading;
    private final Runnable onStopLeading;
    private final AtomicBoolean leading = new AtomicBoolean();
    private volatile boolean closing;
    private volatile CompletableFuture<?> election;
    private volatile LeaderElector elector;

    public LeaderElection(KubernetesClient client, String namespace, String leaseName, String identity, Timing timing,
                          Runnable onStartLeading, Runnable onStopLeading) {
        this.client = client;
        this.namespace = namespace;
        this.leaseName = leaseName;
        this.identity = identity;
        this.timing = timing;
        this.onStartLeading = onStartLeading;
        this.onStopLeading = onStopLeading;
    }

    /** Starts campaigning in the background. */
    public synchronized void start() {
        if (closing || election != null) return;
        elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName(leaseName)
                .withLock(new LeaseLock(namespace, leaseName, identity))
                .withLeaseDuration(timing.leaseDuration())
                .withRenewDeadline(timing.renewDeadline())
                .withRetryPeriod(timing.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::started, this::stopped,
                        leader -> LOG.info("{}: leader of {}/{} is now {}", identity, namespace, leaseName, leader)))
                .build()).build();
        election = elector.start();
        election.whenComplete((ok, error) -> campaignEnded());
    }

    public boolean isLeader() {
        return leading.get();
    }

    public String identity() {
        return identity;
    }

    private void started() {
        LOG.info("{}: acquired Lease {}/{}; scheduling", identity, namespace, leaseName);
        leading.set(true);
        onStartLeading.run();
    }

    private void stopped() {
        if (!leading.getAndSet(false)) return;
        LOG.info("{}: no longer holds Lease {}/{}; scheduling stopped", identity, namespace, leaseName);
        onStopLeading.run();
    }

    /** The elector's loop ends when leadership is lost; campaign again unless closing. */
    private void campaignEnded() {
        stopped();
        synchronized (this) {
            election = null;
        }
        if (!closing) start();
    }

    /** Stops scheduling (if leading) and releases the Lease, waiting at most 10 s for the API server. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * Stops scheduling (if leading) and releases the Lease; a release the API server does not answer within
     * {@code timeout} is abandoned (the standby then takes over when the Lease expires).
     */
    public void close(Duration timeout) {
        closing = true;
        CompletableFuture<?> running;
        synchronized (this) {
            running = election;
        }
        if (running != null) running.cancel(true);
        stopped();
        // Give the Lease up now rather than relying on the cancelled loop, so the client can close.
        LeaderElector le = elector;
        if (le == null) return;
        Thread release = new Thread(() -> {
            try {
                le.release();
                LOG.info("{}: released Lease {}/{}", identity, namespace, leaseName);
            } catch (RuntimeException e) {
                LOG.warn("{}: could not release Lease {}/{}: {}; the standby takes over when it expires", identity,
                        namespace, leaseName, e.getMessage());
            }
        }, "arbiter-lease-release");
        release.setDaemon(true);
        release.start();
        try {
            release.join(Math.max(1, timeout.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (release.isAlive()) {
            LOG.warn("{}: releasing Lease {}/{} took longer than {} s; giving up", identity, namespace, leaseName,
                    timeout.toSeconds());
        }
    }
}
