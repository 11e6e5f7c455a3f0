package dev.arbiter.live;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Nomination;
import dev.arbiter.engine.Scheduler;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs scheduling cycles on one thread: every {@code period}, and soon ({@value #DEBOUNCE_MILLIS} ms) after the
 * cache reports a relevant change, whichever comes first. A cycle is three timed steps: snapshot the cache, schedule
 * (the same engine the simulator runs), act. Cycles never overlap; {@link #runOnce()} may also be called directly
 * (tests do), and is serialized with the timer's cycles.
 */
public final class SchedulingLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulingLoop.class);
    static final long DEBOUNCE_MILLIS = 50;

    private final ClusterCache cache;
    private Scheduler scheduler;
    private final Actuator actuator;
    private final Metrics metrics;
    private final Duration period;
    private final Set<String> schedulerNames;
    private final AtomicInteger cycle = new AtomicInteger();
    private final AtomicBoolean triggered = new AtomicBoolean();
    private volatile ScheduledExecutorService executor;

    /** One cycle's decisions and what the actuator made of them; {@code result} is null when the cache was not synced. */
    public record Outcome(int cycle, CycleResult result, Actuator.Report report) {}

    private Map<String, String> nominations = Map.of();
    /** Rules compiled by hot reload, waiting to be swapped in before the next cycle. */
    private final java.util.concurrent.atomic.AtomicReference<dev.arbiter.engine.RuleBook> nextRules =
            new java.util.concurrent.atomic.AtomicReference<>();

    public SchedulingLoop(ClusterCache cache, Scheduler scheduler, Actuator actuator, Metrics metrics, Duration period,
                          Set<String> schedulerNames) {
        this.cache = cache;
        this.scheduler = scheduler;
        this.actuator = actuator;
        this.metrics = metrics;
        this.period = period;
        this.schedulerNames = Set.copyOf(schedulerNames);
    }

    /** Hot reload: {@code rules} replace the running policy from the next cycle on (never during one). */
    public void useRules(dev.arbiter.engine.RuleBook rules) {
        nextRules.set(rules);
        trigger();
    }

    /** The rules the loop schedules with now (before any pending swap). */
    public synchronized dev.arbiter.engine.RuleBook currentRules() {
        return scheduler.rules();
    }

    /** The rules generation the next cycle will use. */
    public synchronized String rulesGeneration() {
        dev.arbiter.engine.RuleBook next = nextRules.get();
        return next != null ? next.generation() : scheduler.rules().generation();
    }

    /** One cycle, now, on the calling thread. */
    public synchronized Outcome runOnce() {
        dev.arbiter.engine.RuleBook next = nextRules.getAndSet(null);
        if (next != null) {
            LOG.info("rules generation {} replaces {} from this cycle on", next.generation(), scheduler.rules().generation());
            scheduler = scheduler.withRules(next);
            metrics.rulesGeneration(next.generation());
        }
        if (!cache.hasSynced()) return new Outcome(cycle.get(), null, null);
        int n = cycle.incrementAndGet();
        long t0 = System.nanoTime();
        actuator.ensureDefaultQueue();

        // 1. Snapshot the informer caches (with assumed bindings and evictions).
        ClusterSnapshot snapshot = cache.snapshot(java.time.Instant.now().getEpochSecond(), nominations);
        long t1 = System.nanoTime();
        // 2. Schedule: rules and the engine decide, nothing is written.
        CycleResult result = scheduler.schedule(snapshot, n);
        long t2 = System.nanoTime();
        // 3. Act: the actuator writes bindings, evictions, statuses and events.
        Actuator.Report report = actuator.execute(snapshot, result);
        long t3 = System.nanoTime();
        nominations = nominationsOf(result);

        record(snapshot, result, t0, t1, t2, t3);
        if (!result.decidedNothing() || report.bindFailures() > 0) {
            LOG.info("cycle {}: {} bound, {} evicted ({} refused), {} bind failures, {} status writes; "
                            + "snapshot {} ms, schedule {} ms, act {} ms", n, report.bound(), report.evicted(),
                    report.evictionsRefused(), report.bindFailures(), report.statusWrites(),
                    ms(t0, t1), ms(t1, t2), ms(t2, t3));
        }
        return new Outcome(n, result, report);
    }

    /** What a cycle would decide now, without acting on it (no writes, no cycle number consumed). */
    public synchronized CycleResult plan() {
        return scheduler.schedule(cache.snapshot(java.time.Instant.now().getEpochSecond(), nominations), cycle.get() + 1);
    }

    /**
     * Room the cycle made for preemptors whose victims are leaving, held for them next cycle. Kept in memory: only
     * the leader schedules, and a new leader starts without nominations (at worst one cycle re-decides them).
     */
    private static Map<String, String> nominationsOf(CycleResult result) {
        Map<String, String> out = new HashMap<>();
        for (Nomination n : result.nominations()) out.put(n.pod(), n.node());
        return out;
    }

    private void record(ClusterSnapshot snapshot, CycleResult result, long t0, long t1, long t2, long t3) {
        metrics.phase("snapshot", ms(t0, t1));
        metrics.phase("schedule", ms(t1, t2));
        metrics.phase("act", ms(t2, t3));
        metrics.phase("total", ms(t0, t3));
        for (Map.Entry<String, Double> e : result.phaseMillis().entrySet()) metrics.phase("engine_" + e.getKey(), e.getValue());
        metrics.queues(result.queues());
        int pending = 0;
        for (PodSpec p : snapshot.pods()) {
            if (!p.isBound() && !p.terminating() && schedulerNames.contains(p.schedulerName())
                    && !"Succeeded".equals(p.phase()) && !"Failed".equals(p.phase())) pending++;
        }
        metrics.pendingPods(pending - result.bindings().size());
    }

    private static double ms(long from, long to) {
        return (to - from) / 1e6;
    }

    /** Starts periodic and change-triggered cycles on a dedicated thread. */
    public synchronized void start() {
        if (executor != null) return;
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "arbiter-scheduling-loop");
            t.setDaemon(true);
            return t;
        });
        ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor = ex;
        executor.scheduleWithFixedDelay(this::safeCycle, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks for a cycle soon; many triggers before it runs make one cycle. No-op while stopped. */
    public void trigger() {
        ScheduledExecutorService ex = executor;
        if (ex == null || !triggered.compareAndSet(false, true)) return;
        try {
            ex.schedule(() -> {
                triggered.set(false);
                safeCycle();
            }, DEBOUNCE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            triggered.set(false);
        }
    }

    private void safeCycle() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            LOG.error("scheduling cycle failed; the next one starts from a fresh snapshot", e);
        }
    }

    public boolean isRunning() {
        return executor != null;
    }

    /** Stops the timer and lets a running cycle finish (waiting up to 30 s); its writes are not cut off midway. */
    public void stop() {
        ScheduledExecutorService ex;
        synchronized (this) {
            ex = executor;
            executor = null;
        }
        if (ex == null) return;
        ex.shutdown();
        try {
            ex.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
