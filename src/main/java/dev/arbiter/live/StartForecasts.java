package dev.arbiter.live;

import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.forecast.Forecast;
import dev.arbiter.forecast.Forecaster;
import dev.arbiter.model.ClusterSnapshot;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live start-time estimates (docs/estimates.md): off the scheduling thread, at most once per {@code interval}, a
 * forecast from the snapshot a cycle just decided on ({@link Forecaster}, the real engine run forward). The loop
 * {@linkplain #offer offers} each cycle's snapshot and goes on at once; an offer while a forecast runs, or before the
 * interval has passed since the last one started, is passed over. The latest forecast is the one table the actuator
 * reads to write each pending PodGroup's {@code arbiter.dev/estimated-start}; the metrics show it per queue.
 *
 * <p>The forward run has its own scheduler (fresh each time, never the loop's kept session or working copy), on one
 * daemon thread of minimum priority. A forecast that fails is logged (once while the failure repeats) and leaves the
 * last one in place; it never touches a cycle.
 */
public final class StartForecasts implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StartForecasts.class);
    /** The forward run's cycle: estimates are to the nearest 10 s. */
    static final long CYCLE_SECONDS = 10;

    private final Duration interval;
    /** Makes one forecast from a snapshot with the rules it was decided with (the real engine run forward). */
    private final java.util.function.BiFunction<ClusterSnapshot, RuleBook, Forecast> forecast;
    private final Metrics metrics;
    private final LongSupplier nanos;
    private final ExecutorService worker;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long lastStartedNanos;
    private volatile boolean startedOnce;
    private volatile Forecast latest;
    private volatile String lastFailure;

    public StartForecasts(Duration interval, long horizonSeconds, SchedulerConfig config, Metrics metrics, LongSupplier nanos) {
        this(interval, (snapshot, rules) -> new Forecaster(rules, config, new Forecaster.Settings(horizonSeconds,
                Forecaster.Settings.defaults(CYCLE_SECONDS).maxCycles(), CYCLE_SECONDS, true)).forecast(snapshot), metrics, nanos);
    }

    /** With another way to forecast (tests hold it to see what the loop does meanwhile). */
    StartForecasts(Duration interval, java.util.function.BiFunction<ClusterSnapshot, RuleBook, Forecast> forecast,
                   Metrics metrics, LongSupplier nanos) {
        this.interval = interval;
        this.forecast = forecast;
        this.metrics = metrics;
        this.nanos = nanos;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(1), r -> {
            Thread t = new Thread(r, "arbiter-start-forecast");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        this.worker = pool;
    }

    /**
     * A cycle decided on {@code snapshot} with {@code rules}: forecast from it, off this thread, unless one runs or the
     * interval has not passed. Returns at once; true when a forecast was started.
     */
    public boolean offer(ClusterSnapshot snapshot, RuleBook rules) {
        long now = nanos.getAsLong();
        if (startedOnce && now - lastStartedNanos < interval.toNanos()) return false;
        if (!running.compareAndSet(false, true)) {
            metrics.forecast("skipped", 0);
            return false;
        }
        lastStartedNanos = now;
        startedOnce = true;
        try {
            worker.execute(() -> run(snapshot, rules));
            return true;
        } catch (RejectedExecutionException closed) {
            running.set(false);
            return false;
        }
    }

    private void run(ClusterSnapshot snapshot, RuleBook rules) {
        long t0 = System.nanoTime();
        try {
            Forecast f = forecast.apply(snapshot, rules);
            latest = f;
            metrics.estimates(f);
            metrics.forecast("done", (System.nanoTime() - t0) / 1e9);
            if (lastFailure != null) LOG.info("start-time forecasts work again");
            lastFailure = null;
        } catch (RuntimeException | StackOverflowError e) {
            metrics.forecast("failed", (System.nanoTime() - t0) / 1e9);
            String line = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            if (!line.equals(lastFailure)) LOG.warn("start-time forecast failed: {}; the last one stays until one works", line);
            lastFailure = line;
        } finally {
            running.set(false);
        }
    }

    /** The latest forecast, or null before the first. */
    public Forecast latest() {
        return latest;
    }

    /** True while a forecast runs (for tests). */
    boolean isRunning() {
        return running.get();
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
