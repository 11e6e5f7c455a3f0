package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a {@code coordination.k8s.io} Lease, so that of several replicas exactly one schedules, the way
 * client-go's leaderelection does it, with the renew deadline kept by a clock rather than by the requests.
 *
 * <p><b>The contract.</b> {@code onStartLeading} runs when this replica acquires the Lease. {@code onStopLeading} runs
 * no later than {@code renewDeadline} after the start of the last renewal that succeeded, whatever the API server
 * does: a timer fires at that moment and steps down even while a renewal is stuck in flight (the stuck request is
 * then cancelled), and every Lease request is bounded by the time left before the deadline. {@link #isLeader()} reads
 * the clock too, so it is false from the deadline on even if the timer runs late. Since {@code renewDeadline} is
 * below {@code leaseDuration}, and a standby measures the Lease's expiry from when it saw the last renewal, which is
 * after that renewal started, the two never act at once. A replica that loses the Lease campaigns again; one that
 * {@link #close()}s releases it, so a standby takes over at once instead of after the lease duration.
 *
 * <p>Example with {@link Timing#standard()} (15 s, 10 s, 2 s): the leader renews every 2 s; its API server freezes
 * just after a renewal that started at t=0; at t=10 s it stops scheduling and abandons its writes; the standby, which
 * saw that renewal at t≥0, takes over at t≥15 s.
 *
 * <p>Writes to the Lease are JSON merge patches carrying its {@code resourceVersion} (as fabric8's and client-go's
 * locks write it: the Role grants get, create and patch), so of two replicas racing for it one gets 409 and waits.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);
    /** client-go's jitter for candidates' retries: up to 1.2 retry periods more. */
    private static final double JITTER = 1.2;

    /**
     * Lease timing: how long a Lease is valid, how soon after its last renewal the leader must have renewed it again
     * (else it stops scheduling), how often the leader renews and candidates retry. {@code leaseDuration} must exceed
     * {@code renewDeadline}, which must exceed {@code retryPeriod}.
     */
    public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        public Timing {
            if (retryPeriod.isNegative() || retryPeriod.isZero()) throw new IllegalArgumentException("retry period must be positive");
            if (renewDeadline.compareTo(retryPeriod) <= 0) {
                throw new IllegalArgumentException("renew deadline " + renewDeadline + " must exceed the retry period " + retryPeriod);
            }
            if (leaseDuration.compareTo(renewDeadline) <= 0) {
                throw new IllegalArgumentException("lease duration " + leaseDuration + " must exceed the renew deadline " + renewDeadline);
            }
            if (leaseDuration.toMillis() % 1000 != 0) {
                throw new IllegalArgumentException("lease duration must be whole seconds (the Lease stores seconds): " + leaseDuration);
            }
        }

        /** kube-scheduler's defaults: 15 s, 10 s, 2 s. */
        public static Timing standard() {
            return new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
        }
    }

    private final ApiCalls api;
    private final KubernetesSerialization json;
    private final String namespace;
    private final String leaseName;
    private final String path;
    private final String identity;
    private final Timing timing;
    private final Runnable onStartLeading;
    private final Runnable onStopLeading;
    /** Two threads: the campaign (requests, one at a time) and the deadline timer, which a stuck request cannot hold. */
    private final ScheduledExecutorService threads;

    // Written under this; leading and renewBy are read without it (isLeader must not wait for a transition).
    private boolean started;
    private boolean closing;
    private volatile boolean leading;
    /** Counts terms: a deadline timer of an earlier term does nothing. */
    private long term;
    /** System.nanoTime by which the leader must have renewed again: the start of its last renewal + renewDeadline. */
    private volatile long renewBy;
    private ScheduledFuture<?> deadlineTimer;
    private String lastLeader;

    // Campaign thread only: the Lease as last read, and when (System.nanoTime) it was first seen as it is.
    private Lease observed;
    private long observedAt;

    public LeaderElection(KubernetesClient client, String namespace, String leaseName, String identity, Timing timing,
                          Runnable onStartLeading, Runnable onStopLeading) {
        this.api = new ApiCalls(client, timing.renewDeadline());
        this.json = client.getKubernetesSerialization();
        this.namespace = namespace;
        this.leaseName = leaseName;
        this.path = "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/" + leaseName;
        this.identity = identity;
        this.timing = timing;
        this.onStartLeading = onStartLeading;
        this.onStopLeading = onStopLeading;
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "arbiter-lease");
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true);
        this.threads = pool;
    }

    /** Starts campaigning in the background. */
    public synchronized void start() {
        if (closing || started) return;
        started = true;
        threads.execute(this::campaign);
    }

    /** True while this replica holds the Lease and its renew deadline has not passed. */
    public boolean isLeader() {
        return leading && System.nanoTime() - renewBy < 0;
    }

    public String identity() {
        return identity;
    }

    // ---- the campaign ---------------------------------------------------------------------------------------

    /** One step: renew while leading, else try to acquire; then the next step after the retry period. */
    private void campaign() {
        boolean wasLeading;
        synchronized (this) {
            if (closing) return;
            wasLeading = leading;
        }
        long nextMillis;
        try {
            if (wasLeading) renew();
            else acquire();
        } catch (RuntimeException e) {
            leaseLine(LOG.atWarn()).log("{}: Lease {}/{}: {}", identity, namespace, leaseName, e.toString());
        }
        synchronized (this) {
            if (closing) return;
            nextMillis = leading ? timing.retryPeriod().toMillis() : jittered(timing.retryPeriod());
            threads.schedule(this::campaign, nextMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** A candidate's attempt: take the Lease if it is free, expired, or already ours. */
    private void acquire() {
        long sentAt = System.nanoTime();
        ApiCalls.Answer got = api.exchange("GET", path, null, timing.renewDeadline());
        if (got.outcome().notFound()) {
            Lease fresh = new LeaseBuilder().withNewMetadata().withNamespace(namespace).withName(leaseName).endMetadata()
                    .withSpec(spec(null, 0)).build();
            ApiCalls.Answer created = api.exchange("POST", "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases",
                    json.asJson(fresh), timeLeft(sentAt));
            if (created.outcome().ok()) becomeLeader(sentAt, read(created));
            else leaseLine(LOG.atDebug()).log("{}: creating Lease {}/{}: {}", identity, namespace, leaseName, created.outcome());
            return;
        }
        if (!got.outcome().ok()) {
            leaseLine(LOG.atDebug()).log("{}: reading Lease {}/{}: {}", identity, namespace, leaseName, got.outcome());
            return;
        }
        Lease current = read(got);
        observe(current);
        LeaseSpec s = current.getSpec() == null ? new LeaseSpec() : current.getSpec();
        boolean ours = identity.equals(s.getHolderIdentity());
        if (!ours && !isNullOrEmpty(s.getHolderIdentity()) && !observedExpired(s)) return;
        int transitions = s.getLeaseTransitions() == null ? 0 : s.getLeaseTransitions();
        Lease update = new LeaseBuilder(current).withSpec(spec(ours ? s.getAcquireTime() : null,
                ours ? transitions : transitions + 1)).build();
        ApiCalls.Answer put = api.exchange("PATCH", path, json.asJson(update), timeLeft(sentAt));
        if (put.outcome().ok()) becomeLeader(sentAt, read(put));
        else leaseLine(LOG.atDebug()).log("{}: taking Lease {}/{}: {}", identity, namespace, leaseName, put.outcome());
    }

    /**
     * The leader's renewal: read the Lease, write it back with a new renew time, each request bounded by the time
     * left before the deadline. A failure is retried at the next step; the deadline timer ends the term.
     */
    private void renew() {
        long sentAt = System.nanoTime();
        long term0;
        synchronized (this) {
            term0 = term;
        }
        ApiCalls.Answer got = api.exchange("GET", path, null, timeLeft(sentAt));
        if (!got.outcome().ok()) {
            if (got.outcome().notFound()) stepDown(term0, "Lease " + namespace + "/" + leaseName + " was deleted");
            else leaseLine(LOG.atDebug()).log("{}: renewing Lease {}/{}: {}", identity, namespace, leaseName, got.outcome());
            return;
        }
        Lease current = read(got);
        observe(current);
        LeaseSpec s = current.getSpec() == null ? new LeaseSpec() : current.getSpec();
        if (!identity.equals(s.getHolderIdentity())) {
            stepDown(term0, "Lease " + namespace + "/" + leaseName + " is held by " + s.getHolderIdentity());
            return;
        }
        Lease update = new LeaseBuilder(current).withSpec(spec(s.getAcquireTime(),
                s.getLeaseTransitions() == null ? 0 : s.getLeaseTransitions())).build();
        ApiCalls.Answer put = api.exchange("PATCH", path, json.asJson(update), timeLeft(sentAt));
        if (put.outcome().ok()) {
            observe(read(put));
            renewed(term0, sentAt);
        } else {
            leaseLine(LOG.atDebug()).log("{}: renewing Lease {}/{}: {}", identity, namespace, leaseName, put.outcome());
        }
    }

    /** The time left before the deadline of an attempt that started at {@code sentAt} (at least 1 ms). */
    private Duration timeLeft(long sentAt) {
        long by;
        synchronized (this) {
            by = leading ? renewBy : sentAt + timing.renewDeadline().toNanos();
        }
        return Duration.ofNanos(Math.max(1_000_000, by - System.nanoTime()));
    }

    private LeaseSpec spec(ZonedDateTime acquired, int transitions) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        return new io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpecBuilder()
                .withHolderIdentity(identity)
                .withLeaseDurationSeconds((int) timing.leaseDuration().toSeconds())
                .withAcquireTime(acquired == null ? now : acquired)
                .withRenewTime(now)
                .withLeaseTransitions(transitions)
                .build();
    }

    private Lease read(ApiCalls.Answer a) {
        return json.unmarshal(a.body(), Lease.class);
    }

    /** Remembers when the Lease's record last changed, by this replica's clock (not the holder's). */
    private void observe(Lease lease) {
        LeaseSpec now = lease.getSpec();
        LeaseSpec before = observed == null ? null : observed.getSpec();
        if (before == null || !Objects.equals(now, before)) observedAt = System.nanoTime();
        observed = lease;
        String holder = now == null ? null : now.getHolderIdentity();
        if (!Objects.equals(holder, lastLeader)) {
            lastLeader = holder;
            if (!isNullOrEmpty(holder)) leaseLine(LOG.atInfo()).log("{}: leader of {}/{} is now {}", identity, namespace, leaseName, holder);
        }
    }

    /** The holder has not renewed for its lease duration since this replica saw its record change. */
    private boolean observedExpired(LeaseSpec s) {
        long seconds = s.getLeaseDurationSeconds() == null ? timing.leaseDuration().toSeconds() : s.getLeaseDurationSeconds();
        return System.nanoTime() - observedAt > TimeUnit.SECONDS.toNanos(seconds);
    }

    // ---- terms ----------------------------------------------------------------------------------------------

    private void becomeLeader(long sentAt, Lease lease) {
        observe(lease);
        synchronized (this) {
            if (closing || leading) return;
            leading = true;
            term++;
            armDeadline(sentAt);
            leaseLine(LOG.atInfo()).log("{}: acquired Lease {}/{}; scheduling", identity, namespace, leaseName);
            onStartLeading.run();
        }
    }

    private synchronized void renewed(long term0, long sentAt) {
        if (!leading || term != term0) return;
        armDeadline(sentAt);
    }

    /** The renewal that started at {@code sentAt} succeeded: the next must succeed within the renew deadline. */
    private void armDeadline(long sentAt) {
        renewBy = sentAt + timing.renewDeadline().toNanos();
        if (deadlineTimer != null) deadlineTimer.cancel(false);
        long t = term;
        deadlineTimer = threads.schedule(() -> deadlinePassed(t), Math.max(0, renewBy - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    private void deadlinePassed(long term0) {
        synchronized (this) {
            if (!leading || term != term0 || System.nanoTime() - renewBy < 0) return;
        }
        stepDown(term0, "could not renew Lease " + namespace + "/" + leaseName + " within the renew deadline ("
                + timing.renewDeadline().toMillis() + " ms)");
    }

    /** Ends term {@code term0} (if still current): stop scheduling, and cancel a Lease request stuck in flight. */
    private void stepDown(long term0, String why) {
        synchronized (this) {
            if (!leading || term != term0) return;
            leading = false;
            if (deadlineTimer != null) deadlineTimer.cancel(false);
            leaseLine(LOG.atWarn()).log("{}: {}; scheduling stopped", identity, why);
            onStopLeading.run();
        }
        api.cancelInFlight();
    }

    // ---- closing --------------------------------------------------------------------------------------------

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
        boolean wasLeading;
        synchronized (this) {
            if (closing) return;
            closing = true;
            wasLeading = leading;
            leading = false;
            if (deadlineTimer != null) deadlineTimer.cancel(false);
            if (wasLeading) {
                leaseLine(LOG.atInfo()).log("{}: giving up Lease {}/{}; scheduling stopped", identity, namespace, leaseName);
                onStopLeading.run();
            }
        }
        api.cancelInFlight();
        threads.shutdownNow();
        if (wasLeading) release(timeout);
        api.close();
    }

    /** As client-go does: holder cleared, lease duration 1 s, so a standby need not wait for the expiry. */
    private void release(Duration timeout) {
        long start = System.nanoTime();
        ApiCalls.Answer got = api.exchange("GET", path, null, timeout);
        String outcome;
        if (got.outcome().ok()) {
            Lease current = read(got);
            if (current.getSpec() == null || !identity.equals(current.getSpec().getHolderIdentity())) return;
            ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
            Lease released = new LeaseBuilder(current).editSpec().withHolderIdentity("").withLeaseDurationSeconds(1)
                    .withRenewTime(now).endSpec().build();
            Duration left = timeout.minusNanos(System.nanoTime() - start);
            ApiCalls.Answer put = api.exchange("PATCH", path, json.asJson(released),
                    left.isNegative() ? Duration.ofMillis(1) : left);
            if (put.outcome().ok()) {
                leaseLine(LOG.atInfo()).log("{}: released Lease {}/{}", identity, namespace, leaseName);
                return;
            }
            outcome = put.outcome().toString();
        } else {
            outcome = got.outcome().toString();
        }
        leaseLine(LOG.atWarn()).log("{}: could not release Lease {}/{} ({}); the standby takes over when it expires", identity, namespace,
                leaseName, outcome);
    }

    private static long jittered(Duration d) {
        return d.toMillis() + (long) (d.toMillis() * ThreadLocalRandom.current().nextDouble() * JITTER);
    }

    private static boolean isNullOrEmpty(String s) {
        return s == null || s.isEmpty();
    }

    /** Every line of the election names the Lease ({@code lease=namespace/name}) and this replica ({@code identity}). */
    private org.slf4j.spi.LoggingEventBuilder leaseLine(org.slf4j.spi.LoggingEventBuilder line) {
        return line.addKeyValue("lease", namespace + "/" + leaseName).addKeyValue("identity", identity);
    }
}
