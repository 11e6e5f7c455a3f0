package dev.arbiter.live;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.StuckRules;
import dev.arbiter.json.JsonWriter;
import dev.arbiter.model.ClusterSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate policy run beside the active one on a live cluster ({@code arbiter run --shadow-rules DIR}): after each
 * cycle has handed its decisions to the actuator, the shadow decides on the same immutable snapshot, with the real
 * engine and its own rules, and what it decided is compared with what the active policy decided
 * ({@link ShadowDifferences}). Nothing the shadow decides is acted on: its results go to the comparison, and from it
 * to metrics, a log line and {@code /shadow}, never to the actuator.
 *
 * <p><b>Isolation.</b> The shadow runs on one thread of its own, at the lowest priority, after the active cycle's
 * writes are handed over, so it never delays a binding. While a shadow evaluation still runs, the next cycle's is
 * skipped (counted {@code skipped}); one that finishes but took longer than the loop's period is counted
 * {@code overrun}. Its rules fire under the limits of its own {@code policy.yaml} ({@code RuleLimits}): a rule that
 * throws, keeps firing or runs past the deadline fails that evaluation ({@code failed}, logged without flooding) and
 * the next starts afresh. A rule stuck for good (it cannot be stopped) keeps the shadow's thread: the shadow says so
 * once and every later evaluation is skipped, while the active policy and {@code /healthz} are not affected.
 *
 * <p><b>Memory.</b> The shadow scheduler keeps its own rules session and working copy (protections, victim memory),
 * but it sees the cluster as the active policy shaped it: the snapshot holds the active policy's bindings, evictions,
 * nominations and queue usage. Its differences are one-cycle differences — what it would decide now in the active
 * policy's world — not the history it would have made on its own.
 */
public final class ShadowPolicy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShadowPolicy.class);
    /** Cycles kept for {@code /shadow}: the last that differed or failed. */
    static final int KEPT_CYCLES = 20;
    /** Differences listed per kept cycle (the counts cover them all). */
    static final int LISTED_PER_CYCLE = 50;
    static final List<String> RESULTS = List.of("ok", "failed", "skipped", "overrun");
    private static final long FAILURE_LOG_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String folder;
    private final Scheduler scheduler;
    private final Metrics metrics;
    private final Duration overrunAfter;
    private final ThreadPoolExecutor executor;
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile Thread thread;
    private volatile String stuck;
    private volatile boolean quiet;
    // Guarded by this:
    private final Deque<Evaluation> kept = new ArrayDeque<>();
    private final Map<String, Long> cycles = new LinkedHashMap<>();
    private final Map<ShadowDifferences.Kind, Long> differences = new EnumMap<>(ShadowDifferences.Kind.class);
    private final Map<String, Integer> rules = new HashMap<>();
    private Evaluation last;
    // The shadow thread's own:
    private String lastFailure;
    private long lastFailureLogNanos;

    /**
     * One evaluation, as {@code /shadow} shows it: {@code counts} and {@code rules} cover every difference it found
     * ({@code total}), {@code differences} holds the first {@value #LISTED_PER_CYCLE} of them (what is kept across
     * cycles stays small on a large cluster). {@code firstCycle} is the first of the consecutive kept cycles that found
     * the same differences (a cluster that does not change shows the same ones every cycle), up to {@code cycle}.
     */
    public record Evaluation(int cycle, int firstCycle, int repeats, long time, String result, double millis,
                             String activeGeneration, String error, Map<ShadowDifferences.Kind, Integer> counts,
                             Map<String, Integer> rules, int total, ShadowDifferences differences) {
        Evaluation(int cycle, long time, String result, double millis, String activeGeneration, String error, ShadowDifferences all) {
            this(cycle, cycle, 1, time, result, millis, activeGeneration, error, all.counts(), all.rules(), all.differences().size(),
                    new ShadowDifferences(all.differences().subList(0, Math.min(all.differences().size(), LISTED_PER_CYCLE))));
        }

        Evaluation repeating(Evaluation earlier) {
            return new Evaluation(cycle, earlier.firstCycle, earlier.repeats + 1, time, result, millis, activeGeneration, error,
                    counts, rules, total, differences);
        }

        boolean sameAs(Evaluation o) {
            return java.util.Objects.equals(error, o.error) && total == o.total && counts.equals(o.counts)
                    && rules.equals(o.rules) && differences.equals(o.differences);
        }
    }

    /**
     * A shadow of {@code rules} (compiled and checked by the caller, as {@code --rules} are), scheduling as
     * {@code config} says, counted on {@code metrics}; an evaluation that takes longer than {@code overrunAfter} is an
     * overrun. {@code folder} names the rules in logs and {@code /shadow}.
     */
    public ShadowPolicy(String folder, RuleBook rules, SchedulerConfig config, boolean keepSession, Metrics metrics,
                        Duration overrunAfter) {
        this.folder = folder;
        Scheduler s = new Scheduler(rules, config).withoutTrace().answeringUnchanged();
        this.scheduler = keepSession ? s.keepingSession().keepingWorkingCopy() : s;
        this.metrics = metrics;
        this.overrunAfter = overrunAfter;
        for (String r : RESULTS) cycles.put(r, 0L);
        List<String> kinds = new ArrayList<>();
        for (ShadowDifferences.Kind k : ShadowDifferences.Kind.values()) {
            kinds.add(k.metricName());
            differences.put(k, 0L);
        }
        metrics.shadowMetrics(RESULTS, kinds);
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "arbiter-shadow-policy");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            // A shadow rule stuck for good is the shadow's business: the active policy's health check stays as it is.
            StuckRules.whenStuckOn(t, this::stuck);
            thread = t;
            return t;
        });
    }

    /** The rules generation the shadow decides with. */
    public String generation() {
        return scheduler.rules().generation();
    }

    public String folder() {
        return folder;
    }

    /**
     * Called by the loop once cycle {@code cycle}'s decisions are handed to the actuator: evaluates the shadow on
     * {@code snapshot} on the shadow's thread, or skips it while the last evaluation still runs. Never blocks, never
     * throws.
     */
    public void offer(int cycle, ClusterSnapshot snapshot, CycleResult active) {
        if (!busy.compareAndSet(false, true)) {
            count("skipped");
            return;
        }
        try {
            executor.execute(() -> evaluate(cycle, snapshot, active));
        } catch (RejectedExecutionException closed) {
            busy.set(false);
        }
    }

    /** No log lines from now on (tools that print the report themselves: specs, the offline shadow-report). */
    public ShadowPolicy quiet() {
        quiet = true;
        return this;
    }

    /** What a shadow rule stuck for good said, or null. */
    public String stuck() {
        return stuck;
    }

    /** True while an evaluation runs (or is stuck for good). */
    public boolean running() {
        return busy.get();
    }

    /**
     * Evaluates the shadow on {@code snapshot} now, on the calling thread, and records it as {@link #offer} does (no
     * skip, no thread of its own): for the specs and tools that drive cycles themselves.
     */
    public Evaluation evaluateNow(int cycle, ClusterSnapshot snapshot, CycleResult active) {
        busy.set(true);
        return evaluate(cycle, snapshot, active);
    }

    private Evaluation evaluate(int cycle, ClusterSnapshot snapshot, CycleResult active) {
        long t0 = System.nanoTime();
        try (org.slf4j.MDC.MDCCloseable ignored = org.slf4j.MDC.putCloseable("cycle", Integer.toString(cycle))) {
            ShadowDifferences diff;
            try {
                diff = ShadowDifferences.compare(active, scheduler.schedule(snapshot, cycle), snapshot);
            } catch (Throwable t) {
                long nanos = System.nanoTime() - t0;
                metrics.shadowDuration(nanos);
                return failed(cycle, snapshot, active, nanos, t);
            }
            long nanos = System.nanoTime() - t0;
            metrics.shadowDuration(nanos);
            String result = nanos > overrunAfter.toNanos() ? "overrun" : "ok";
            lastFailure = null;
            Evaluation e = new Evaluation(cycle, snapshot.now(), result, nanos / 1e6, active.rulesGeneration(), null, diff);
            record(e);
            if (!diff.isEmpty() && !quiet) log(cycle, active, diff);
            return e;
        } finally {
            busy.set(false);
        }
    }

    private Evaluation failed(int cycle, ClusterSnapshot snapshot, CycleResult active, long nanos, Throwable t) {
        String message = oneLine(t);
        long now = System.nanoTime();
        if (!quiet && (!message.equals(lastFailure) || now - lastFailureLogNanos > FAILURE_LOG_NANOS)) {
            LOG.warn("shadow policy {} failed (the active policy is not affected): {}", folder, message);
            LOG.debug("the shadow's stack trace", t);
            lastFailureLogNanos = now;
        }
        lastFailure = message;
        Evaluation e = new Evaluation(cycle, snapshot.now(), "failed", nanos / 1e6, active.rulesGeneration(), message,
                new ShadowDifferences(List.of()));
        record(e);
        return e;
    }

    private void log(int cycle, CycleResult active, ShadowDifferences diff) {
        StringBuilder counts = new StringBuilder();
        for (Map.Entry<ShadowDifferences.Kind, Integer> e : diff.counts().entrySet()) {
            counts.append(counts.length() == 0 ? "" : ", ").append(e.getValue()).append(' ').append(e.getKey().metricName());
        }
        StringBuilder top = new StringBuilder();
        int n = 0;
        for (Map.Entry<String, Integer> e : diff.rules().entrySet()) {
            if (n++ == 3) break;
            top.append(top.length() == 0 ? "" : ", ").append(e.getKey()).append(" (").append(e.getValue()).append(')');
        }
        LOG.info("shadow policy {} differs in cycle {}: {}{}; nothing it decided was acted on", folder, cycle, counts,
                top.length() == 0 ? "" : "; rules: " + top);
    }

    private void count(String result) {
        metrics.shadowCycle(result);
        synchronized (this) {
            cycles.merge(result, 1L, Long::sum);
        }
    }

    private void record(Evaluation k) {
        metrics.shadowCycle(k.result());
        for (Map.Entry<ShadowDifferences.Kind, Integer> e : k.counts().entrySet()) {
            metrics.shadowDifferences(e.getKey().metricName(), e.getValue());
        }
        Map<String, Integer> ruleCounts = k.rules();
        synchronized (this) {
            cycles.merge(k.result(), 1L, Long::sum);
            for (Map.Entry<ShadowDifferences.Kind, Integer> e : k.counts().entrySet()) {
                differences.merge(e.getKey(), (long) e.getValue(), Long::sum);
            }
            for (Map.Entry<String, Integer> e : ruleCounts.entrySet()) rules.merge(e.getKey(), e.getValue(), Integer::sum);
            last = k;
            if (k.error() != null || k.total() > 0) {
                Evaluation newest = kept.peekFirst();
                if (newest != null && newest.sameAs(k)) {
                    kept.removeFirst();
                    k = k.repeating(newest);
                }
                kept.addFirst(k);
                while (kept.size() > KEPT_CYCLES) kept.removeLast();
            }
        }
    }

    private void stuck(String message) {
        stuck = message;
        LOG.error("shadow policy {} is stuck: {}; it is skipped from now on (the active policy is not affected)", folder, message);
    }

    /** What {@code /shadow} serves: the totals, the last evaluation, and the last cycles that differed or failed. */
    public synchronized String json() {
        JsonWriter w = JsonWriter.spaced().startObject();
        w.field("shadowRules", folder).field("shadowGeneration", generation());
        w.name("stuck").value(stuck);
        w.name("totals").startObject();
        w.name("cycles").startObject();
        for (Map.Entry<String, Long> e : cycles.entrySet()) w.field(e.getKey(), e.getValue().longValue());
        w.endObject().name("differences").startObject();
        for (Map.Entry<ShadowDifferences.Kind, Long> e : differences.entrySet()) w.field(e.getKey().metricName(), e.getValue().longValue());
        w.endObject().name("rules").startObject();
        for (Map.Entry<String, Integer> e : ShadowDifferences.byCount(rules).entrySet()) w.field(e.getKey(), e.getValue().longValue());
        w.endObject().endObject();
        w.name("last");
        if (last == null) w.nullValue();
        else cycle(w, last);
        w.name("cycles").startArray();
        for (Evaluation k : kept) cycle(w, k);
        w.endArray().endObject();
        return w.toString();
    }

    private static void cycle(JsonWriter w, Evaluation k) {
        w.startObject().field("cycle", k.cycle()).field("firstCycle", k.firstCycle()).field("repeats", k.repeats())
                .field("time", Instant.ofEpochSecond(k.time()).toString())
                .field("result", k.result()).name("millis").decimal(k.millis(), 1)
                .field("activeGeneration", k.activeGeneration());
        w.name("error").value(k.error());
        w.name("counts").startObject();
        for (Map.Entry<ShadowDifferences.Kind, Integer> e : k.counts().entrySet()) {
            w.field(e.getKey().metricName(), e.getValue().longValue());
        }
        w.endObject().name("rules").startObject();
        for (Map.Entry<String, Integer> e : k.rules().entrySet()) w.field(e.getKey(), e.getValue().longValue());
        w.endObject().name("differences").startArray();
        List<ShadowDifferences.Difference> listed = k.differences().differences();
        for (ShadowDifferences.Difference d : listed) {
            w.startObject().field("kind", d.kind().metricName()).field("subject", d.subject())
                    .field("active", d.active()).field("shadow", d.shadow());
            w.name("activeRule").value(d.activeRule());
            w.name("shadowRule").value(d.shadowRule());
            w.endObject();
        }
        w.endArray().field("unlisted", k.total() - listed.size()).endObject();
    }

    private static String oneLine(Throwable t) {
        String text = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        text = text.replaceAll("\\s+", " ");
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    /** Stops the shadow's thread (an evaluation running is interrupted and not waited for). */
    @Override
    public void close() {
        executor.shutdownNow();
        Thread t = thread;
        if (t != null && stuck == null) StuckRules.forget(t);
    }
}
