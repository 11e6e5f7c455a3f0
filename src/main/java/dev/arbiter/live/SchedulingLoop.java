package dev.arbiter.live;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Nomination;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs scheduling cycles on one thread: every {@code period}, and soon after the cache reports a relevant change,
 * whichever comes first. "Soon" is {@value #DEBOUNCE_MILLIS} ms, or as long as the last cycle took if that was longer
 * (at most a second): while changes pour in (a burst of pods), the loop spends at most about half its time in cycles
 * and each cycle takes a larger batch, leaving the CPU to the informers and binders that feed and drain it. A cycle is three timed steps: snapshot the cache, schedule
 * (the same engine the simulator runs), hand the decisions to the actuator — which writes them on its own threads, so
 * a cycle never waits on the API. Cycles never overlap; {@link #runOnce()} may also be called directly (tests do).
 *
 * <p><b>Failures.</b> The loop survives any Throwable a cycle throws (an exception or an Error such as a
 * StackOverflowError in a rule). A failure is logged once, then at most every {@value #FAILURE_LOG_SECONDS} s while
 * it repeats, and counted ({@code arbiter_cycle_failures_total}); while cycles fail, only the timer starts them
 * (changes do not). After {@code fallbackAfter} consecutive failures, if an earlier rules generation completed a
 * cycle, the loop falls back to it and says so ({@link Listener#rulesFellBack}, a log line, a metric). A cycle that
 * never finishes (a rule that loops) cannot be stopped from here: {@link #healthy} turns false once no cycle has
 * finished within the deadline, so the liveness probe restarts the scheduler.
 */
public final class SchedulingLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulingLoop.class);
    static final long DEBOUNCE_MILLIS = 50;
    static final long FAILURE_LOG_SECONDS = 30;

    /** Hears about what the loop does on its own. */
    public interface Listener {
        /** Rules generation {@code broken} failed {@code failures} cycles in a row; the loop went back to {@code good}. */
        void rulesFellBack(String broken, String good, int failures, String lastError);
    }

    private final ClusterCache cache;
    private final Actuator actuator;
    private final Metrics metrics;
    private final Duration period;
    private final Set<String> schedulerNames;
    private final int fallbackAfter;
    private final Listener listener;
    private final ReentrantLock cycleLock = new ReentrantLock();
    private final AtomicInteger cycle = new AtomicInteger();
    private final AtomicBoolean triggered = new AtomicBoolean();
    /** Rules compiled by hot reload, waiting to be swapped in before the next cycle. */
    private final AtomicReference<RuleBook> nextRules = new AtomicReference<>();
    private volatile Scheduler scheduler;
    private volatile ScheduledExecutorService executor;
    private volatile boolean acting;
    private volatile long lastFinishedNanos = System.nanoTime();
    private volatile long cycleStartedNanos;
    private volatile long lastCycleMillis;
    private volatile int consecutiveFailures;
    private volatile StartupTimeline startup;
    /** A candidate policy evaluated after each cycle that acts, acting on nothing ({@code run --shadow-rules}), or null. */
    private volatile ShadowPolicy shadow;
    /** Start-time forecasts offered each cycle's snapshot (off this thread), or null when estimates are off. */
    private volatile StartForecasts forecasts;
    // Guarded by cycleLock:
    private RuleBook lastGood;
    private Map<String, String> nominations = Map.of();
    private long lastFailureLogNanos;
    private String lastFailureMessage;

    /** One cycle's decisions and the writes handed to the actuator; {@code result} is null when the cache was not synced. */
    public record Outcome(int cycle, CycleResult result, CycleWrites writes) {
        /** Waits (up to a minute) for this cycle's writes to finish, and says what they did; null when nothing ran. */
        public Actuator.Report report() {
            return writes == null ? null : writes.await(Duration.ofMinutes(1));
        }
    }

    public SchedulingLoop(ClusterCache cache, Scheduler scheduler, Actuator actuator, Metrics metrics, Duration period,
                          Set<String> schedulerNames, int fallbackAfter, Listener listener) {
        this.cache = cache;
        this.scheduler = scheduler;
        this.actuator = actuator;
        this.metrics = metrics;
        this.period = period;
        this.schedulerNames = Set.copyOf(schedulerNames);
        this.fallbackAfter = fallbackAfter;
        this.listener = listener;
        this.acting = true;
    }

    /**
     * True when cycles share one kept rules session and working copy ({@code run}'s default; {@code --fresh-cycles}
     * turns it off).
     */
    public boolean keepsRulesSession() {
        return scheduler.keepsSession() && scheduler.keepsWorkingCopy();
    }

    /** Hot reload: {@code rules} replace the running policy from the next cycle on (never during one). */
    public void useRules(RuleBook rules) {
        nextRules.set(rules);
        trigger();
    }

    /** The rules the loop schedules with now (before any pending swap). */
    public RuleBook currentRules() {
        return scheduler.rules();
    }

    /** The rules generation the next cycle will use. */
    public String rulesGeneration() {
        RuleBook next = nextRules.get();
        return next != null ? next.generation() : scheduler.rules().generation();
    }

    /**
     * One cycle, now, on the calling thread. Throws what the cycle threw (after counting it, and falling back to the
     * last good rules when it is time to).
     */
    public Outcome runOnce() {
        cycleLock.lock();
        try {
            cycleStartedNanos = System.nanoTime();
            return cycle();
        } catch (Throwable t) {
            failed(t);
            throw t;
        } finally {
            long end = System.nanoTime();
            lastCycleMillis = (end - cycleStartedNanos) / 1_000_000;
            cycleStartedNanos = 0;
            lastFinishedNanos = end;
            cycleLock.unlock();
        }
    }

    private Outcome cycle() {
        RuleBook next = nextRules.getAndSet(null);
        if (next != null) {
            LOG.atInfo().addKeyValue("cycle", cycle.get() + 1).addKeyValue("generation", next.generation())
                    .log("rules generation {} replaces {} from this cycle on", next.generation(), scheduler.rules().generation());
            scheduler = scheduler.withRules(next);
            metrics.rulesGeneration(next.generation());
        }
        if (!cache.hasSynced()) return new Outcome(cycle.get(), null, null);
        int n = cycle.incrementAndGet();
        // The cycle is a field of every line logged on this thread while it runs (text: "cycle=7"; JSON: "cycle": 7).
        try (org.slf4j.MDC.MDCCloseable ignored = org.slf4j.MDC.putCloseable("cycle", Integer.toString(n))) {
            return cycle(n);
        }
    }

    private Outcome cycle(int n) {
        long t0 = System.nanoTime();

        // 1. Snapshot the informer caches (with assumed bindings and evictions), and the victims whose eviction the
        //    API server refused lately (the search passes over them).
        ClusterSnapshot snapshot = cache.snapshot(Instant.now().getEpochSecond(), nominations)
                .withRefusedVictims(actuator.refusedVictims());
        long t1 = System.nanoTime();
        // 2. Schedule: rules and the engine decide, nothing is written.
        CycleResult result = scheduler.schedule(snapshot, n);
        long t2 = System.nanoTime();
        // 3. Act: the actuator's writers take the bindings, evictions, statuses and events.
        CycleWrites writes = acting ? actuator.execute(snapshot, result) : null;
        long t3 = System.nanoTime();
        // 4. Start-time estimates, when on: the snapshot is handed to the forecast's own thread, at most every interval.
        StartForecasts f = forecasts;
        if (f != null && writes != null) f.offer(snapshot, scheduler.rules());
        nominations = nominationsOf(result);
        succeeded(n);
        // 4. The shadow policy, if any, on the same snapshot, on its own thread: it never delays this cycle.
        ShadowPolicy candidate = shadow;
        if (candidate != null && writes != null) candidate.offer(n, snapshot, result);

        int pending = record(snapshot, result, t0, t1, t2, t3);
        StartupTimeline timeline = startup;
        if (timeline != null && writes != null) {
            timeline.mark("first cycle (" + ms1(t0, t3) + " ms)");
            if (timeline.tellOnce()) LOG.info("start-up to the first cycle's writes: {}", timeline.line());
        }
        if (writes != null && (!result.decidedNothing())) {
            LOG.info("cycle {}: {} of {} pending pods placed, {} evictions; snapshot {} ms, schedule {} ms, act {} ms", n,
                    writes.issuedBindings(), pending, writes.issuedEvictions(), ms1(t0, t1), ms1(t1, t2), ms1(t2, t3));
            writes.whenDone(r -> {
                if (r.bindFailures() > 0 || r.evictionFailures() > 0 || r.evictionsRefused() > 0) {
                    LOG.atInfo().addKeyValue("cycle", n).log("cycle {} writes: {} bound, {} evicted ({} refused), {} bind failures, {} rolled back, {} status writes",
                            n, r.bound(), r.evicted(), r.evictionsRefused(), r.bindFailures(), r.rolledBack(), r.statusWrites());
                }
            });
        }
        return new Outcome(n, result, writes);
    }

    private void succeeded(int n) {
        if (consecutiveFailures > 0) {
            LOG.info("cycle {} succeeded after {} failed cycle(s)", n, consecutiveFailures);
        }
        consecutiveFailures = 0;
        lastFailureMessage = null;
        lastGood = scheduler.rules();
    }

    /** Counts a failed cycle, logs it without flooding, and falls back to the last good rules when it is time. */
    private void failed(Throwable t) {
        int failures = ++consecutiveFailures;
        metrics.cycleFailed();
        String message = oneLine(t);
        long now = System.nanoTime();
        if (failures == 1 || !message.equals(lastFailureMessage)) {
            LogFields.known(LOG.atError().addKeyValue("cycle", cycle.get())
                    .addKeyValue("generation", scheduler.rules().generation()), "rule", ruleOf(t))
                    .log("scheduling cycle failed (rules {}): {}; the next cycle starts from a fresh snapshot",
                            scheduler.rules().generation(), message);
            LOG.atDebug().addKeyValue("cycle", cycle.get()).setCause(t).log("the failed cycle's stack trace");
            lastFailureLogNanos = now;
        } else if (now - lastFailureLogNanos > TimeUnit.SECONDS.toNanos(FAILURE_LOG_SECONDS)) {
            LOG.atError().addKeyValue("cycle", cycle.get()).addKeyValue("generation", scheduler.rules().generation())
                    .log("scheduling cycles keep failing ({} in a row): {}", failures, message);
            lastFailureLogNanos = now;
        }
        lastFailureMessage = message;
        RuleBook current = scheduler.rules();
        if (failures >= fallbackAfter && lastGood != null && !lastGood.generation().equals(current.generation())) {
            LOG.atError().addKeyValue("cycle", cycle.get()).addKeyValue("generation", lastGood.generation())
                    .log("rules generation {} failed {} cycles in a row; falling back to generation {}, the last that worked",
                            current.generation(), failures, lastGood.generation());
            scheduler = scheduler.withRules(lastGood);
            metrics.rulesGeneration(lastGood.generation());
            metrics.rulesFellBack();
            consecutiveFailures = 0;
            if (listener != null) listener.rulesFellBack(current.generation(), lastGood.generation(), failures, message);
        }
    }

    /** The rule a policy failure names (a rule that threw, looped or ran past its deadline), else null. */
    private static String ruleOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof dev.arbiter.engine.rules.PolicyException p) return p.rule();
        }
        return null;
    }

    private static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String text = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        if (root != t) text += " (caused by " + root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")";
        text = text.replaceAll("\\s+", " ");
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    /** What a cycle would decide now, without acting on it (no writes, no cycle number consumed). */
    public CycleResult plan() {
        cycleLock.lock();
        try {
            return scheduler.schedule(cache.snapshot(Instant.now().getEpochSecond(), nominations)
                    .withRefusedVictims(actuator.refusedVictims()), cycle.get() + 1);
        } finally {
            cycleLock.unlock();
        }
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

    /** Records the cycle's metrics; returns how many pods of this scheduler were pending in the snapshot. */
    private int record(ClusterSnapshot snapshot, CycleResult result, long t0, long t1, long t2, long t3) {
        metrics.phase("snapshot", ms(t0, t1));
        metrics.phase("schedule", ms(t1, t2));
        metrics.phase("act", ms(t2, t3));
        metrics.phase("total", ms(t0, t3));
        for (Map.Entry<String, Double> e : result.phaseMillis().entrySet()) metrics.phase("engine_" + e.getKey(), e.getValue());
        metrics.queues(result.queues());
        metrics.evictions(result.evictions());
        metrics.reservations(result);
        int pending = 0;
        for (PodSpec p : snapshot.pods()) {
            if (!p.isBound() && !p.terminating() && schedulerNames.contains(p.schedulerName())
                    && !p.finished()) pending++;
        }
        metrics.pendingPods(pending - result.bindings().size());
        metrics.unschedulable(pending - result.bindings().size());
        Map<String, Integer> placed = new HashMap<>();
        for (Binding b : result.bindings()) {
            PodSpec p = cache.pod(b.pod());
            if (p != null) placed.merge(StatusViews.groupKey(p), 1, Integer::sum);
        }
        metrics.jobs(snapshot.podGroups(), placed, System.currentTimeMillis());
        metrics.cycleFinished();
        return pending;
    }

    /** Milliseconds with one decimal, for log lines. */
    private static String ms1(long from, long to) {
        return String.format(java.util.Locale.ROOT, "%.1f", (to - from) / 1e6);
    }

    private static double ms(long from, long to) {
        return (to - from) / 1e6;
    }

    /**
     * From the next cycle on, {@code candidate} decides beside the active policy on each cycle that acts, and acts on
     * nothing ({@link ShadowPolicy}); null: no shadow.
     */
    public void shadow(ShadowPolicy candidate) {
        shadow = candidate;
    }

    /** The shadow policy, or null. */
    public ShadowPolicy shadow() {
        return shadow;
    }

    /** Each acting cycle offers its snapshot to {@code f} (null: no start-time estimates). */
    void forecastStarts(StartForecasts f) {
        forecasts = f;
    }

    /** The first cycle that acts marks itself on {@code timeline} and logs it. */
    void timeStartUp(StartupTimeline timeline) {
        startup = timeline;
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
        acting = true;
        lastFinishedNanos = System.nanoTime();
        executor = ex;
        executor.scheduleWithFixedDelay(this::safeCycle, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks for a cycle soon; many triggers before it runs make one cycle. No-op while stopped or while cycles fail. */
    public void trigger() {
        ScheduledExecutorService ex = executor;
        if (ex == null || consecutiveFailures > 0 || !triggered.compareAndSet(false, true)) return;
        try {
            ex.schedule(() -> {
                triggered.set(false);
                safeCycle();
            }, Math.max(DEBOUNCE_MILLIS, Math.min(1000, lastCycleMillis)), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            triggered.set(false);
        }
    }

    /** A timer or trigger cycle: whatever it throws has been counted and logged by {@link #runOnce()}. */
    private void safeCycle() {
        if (executor == null) return;
        try {
            runOnce();
        } catch (Throwable alreadyReported) {
            // the loop goes on
        }
    }

    public boolean isRunning() {
        return executor != null;
    }

    /**
     * False while the loop runs but no cycle has finished within {@code deadline} (a cycle stuck in a rule, or a
     * timer that died): the process should be restarted. True while the loop is stopped (a standby replica).
     */
    public boolean healthy(Duration deadline) {
        if (executor == null) return true;
        long now = System.nanoTime();
        long started = cycleStartedNanos;
        if (started != 0 && now - started > deadline.toNanos()) return false;
        return now - lastFinishedNanos <= deadline.toNanos() + period.toNanos();
    }

    /** Consecutive failed cycles now (0 once a cycle succeeds). */
    public int consecutiveFailures() {
        return consecutiveFailures;
    }

    /**
     * Stops the timer and interrupts a running cycle, without waiting for it: a cycle stuck in a rule, or in an API
     * call, cannot delay shutdown or a lost Lease. A cycle that finishes later hands nothing to the actuator.
     */
    public void stop() {
        ScheduledExecutorService ex;
        synchronized (this) {
            ex = executor;
            executor = null;
            acting = false;
        }
        if (ex == null) return;
        ex.shutdownNow();
        try {
            ex.awaitTermination(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
