package dev.arbiter.live;

import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Resources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Live mode's meters. As Prometheus exposes them:
 * <ul>
 *   <li>{@code arbiter_cycle_duration_seconds{phase}}: snapshot, schedule, act and total per cycle, plus the engine's
 *       own steps (rules, enqueue, allocate, victims, status) prefixed {@code engine_}.</li>
 *   <li>{@code arbiter_scheduling_e2e_latency_seconds}: pod creation to accepted binding;
 *       {@code arbiter_bind_latency_seconds}: one pod's binding call, retries included. These and the cycle's are
 *       histograms with buckets ({@code _bucket{le}}), so quantiles and alerts on them can be written in PromQL.</li>
 *   <li>Volcano's names for what both schedulers measure ({@link VolcanoMetrics}), so Volcano dashboards work.</li>
 *   <li>{@code arbiter_decisions_total{action,outcome}}: action bind, preempt, reclaim, rollback; outcome ok, failed,
 *       refused (an eviction a PodDisruptionBudget refused, dry runs included).</li>
 *   <li>{@code arbiter_refused_victims}: pods whose eviction was refused and that the victim search passes over
 *       now (their backoff runs).</li>
 *   <li>{@code arbiter_queue_deserved{queue,resource}}, {@code arbiter_queue_allocated{queue,resource}}: in units
 *       (cores, bytes, devices), as of the last cycle.</li>
 *   <li>{@code arbiter_pending_pods}: pods of this scheduler waiting for a node, as of the last cycle.</li>
 *   <li>{@code arbiter_leader}: 1 while this replica holds the Lease (or runs without leader election).</li>
 *   <li>{@code arbiter_cycle_failures_total}: cycles that threw; {@code arbiter_last_cycle_timestamp_seconds}: when
 *       the last cycle finished.</li>
 *   <li>{@code arbiter_rules_fallbacks_total}: times the loop went back to the last rules that worked.</li>
 *   <li>{@code arbiter_unreadable_objects{kind}}: objects the cache cannot read now.</li>
 *   <li>{@code arbiter_manifest_notices_total{kind}}: likely mistakes said (a Warning Event LikelyMistake each):
 *       near-miss-key, podgroup-in-other-namespace, missing-podgroup, missing-queue.</li>
 *   <li>{@code arbiter_events_total{outcome}}: events sent, aggregated (an existing Event's count raised), throttled
 *       (per-object limit), dropped (queue full or shutting down), failed.</li>
 *   <li>{@code arbiter_writes_pending}, {@code arbiter_events_pending}, {@code arbiter_stranded_gangs}: the writers'
 *       backlog, and gangs bound below minMember that never ran whole.</li>
 *   <li>{@code arbiter_write_failures_total{kind}}: binds, evictions and status writes that failed, after which their
 *       object waits (1 s doubling to 5 min) before the next write of that kind.</li>
 *   <li>With start-time estimates on ({@code --estimate-interval}, docs/estimates.md), as of the latest forecast:
 *       {@code arbiter_job_estimated_start_seconds{queue,stat}}, the seconds from the forecast until the pending jobs
 *       of the queue start, {@code stat} median or max over the jobs that have an estimate;
 *       {@code arbiter_jobs_without_estimated_start{queue}}, pending jobs with none; and
 *       {@code arbiter_start_forecasts_total{outcome}} (done, skipped: one still ran, failed) with
 *       {@code arbiter_start_forecast_duration_seconds}. No per-job labels.</li>
 * </ul>
 */
public final class Metrics {
    private final MeterRegistry registry;
    private final Timer e2eLatency;
    private final Timer bindLatency;
    private final VolcanoMetrics volcano;

    /** Buckets of a cycle and its phases: 1 ms to 60 s. */
    private static final Duration[] CYCLE_BUCKETS = durations(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
            2.5, 5, 10, 30, 60);
    /** Buckets of a pod's wait from creation to binding: 10 ms to 30 min. */
    private static final Duration[] LATENCY_BUCKETS = durations(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
            300, 600, 1800);
    /** Buckets of one API call: 1 ms to 30 s. */
    private static final Duration[] CALL_BUCKETS = durations(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
            2.5, 5, 10, 30);

    private static Duration[] durations(double... seconds) {
        Duration[] out = new Duration[seconds.length];
        for (int i = 0; i < seconds.length; i++) out[i] = Duration.ofNanos((long) (seconds[i] * 1e9));
        return out;
    }
    private final MultiGauge deserved;
    private final MultiGauge allocated;
    /** Built on the first forecast: without estimates these series do not exist. */
    private MultiGauge estimatedStart;
    private MultiGauge withoutEstimate;
    private final AtomicInteger pendingPods = new AtomicInteger();
    private final AtomicInteger reservations = new AtomicInteger();
    private final AtomicInteger leader = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong lastCycleMillis = new java.util.concurrent.atomic.AtomicLong();

    public Metrics(MeterRegistry registry) {
        this.registry = registry;
        this.e2eLatency = Timer.builder("arbiter.scheduling.e2e.latency")
                .description("Time from pod creation to an accepted binding").serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        this.bindLatency = Timer.builder("arbiter.bind.latency")
                .description("One pod's binding call, retries included").serviceLevelObjectives(CALL_BUCKETS)
                .register(registry);
        this.volcano = new VolcanoMetrics(registry);
        this.deserved = MultiGauge.builder("arbiter.queue.deserved").description("Deserved share per resource")
                .register(registry);
        this.allocated = MultiGauge.builder("arbiter.queue.allocated").description("Allocated per resource")
                .register(registry);
        // The counters alerts watch exist from the start at 0, so rate() and increase() see their first increment.
        for (String action : List.of("bind", "preempt", "reclaim", "rollback")) {
            for (String outcome : List.of("ok", "failed", "refused")) {
                if (!action.equals("bind") || !outcome.equals("refused")) decisionCounter(action, outcome);
            }
        }
        for (String kind : List.of("bind", "evict", "status")) writeFailureCounter(kind);
        Counter.builder("arbiter.cycle.failures").description("Scheduling cycles that threw").register(registry);
        Counter.builder("arbiter.rules.fallbacks").description("Fallbacks to the last rules that completed a cycle")
                .register(registry);
        registry.gauge("arbiter.pending.pods", pendingPods);
        Gauge.builder("arbiter.reservations", reservations, AtomicInteger::get)
                .description("Jobs holding a node reservation after the last cycle (reservation in policy.yaml)").register(registry);
        Counter.builder("arbiter.backfilled.pods").description("Pods bound on nodes reserved for another job (backfill)")
                .register(registry);
        registry.gauge("arbiter.leader", leader);
        registry.gauge("arbiter.last.cycle.timestamp.seconds", lastCycleMillis, a -> a.get() / 1000.0);
    }

    /**
     * The last cycle's reservations: how many jobs hold one, and the pods of other jobs it bound on their nodes
     * (backfill).
     */
    public void reservations(dev.arbiter.decision.CycleResult r) {
        reservations.set(r.reservations().size());
        int backfilled = 0;
        for (dev.arbiter.decision.Reservation v : r.reservations()) backfilled += v.backfilled();
        if (backfilled > 0) registry.find("arbiter.backfilled.pods").counter().increment(backfilled);
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void phase(String phase, double millis) {
        Timer.builder("arbiter.cycle.duration").description("Scheduling cycle duration by phase")
                .serviceLevelObjectives(CYCLE_BUCKETS).tag("phase", phase).register(registry)
                .record((long) (millis * 1e6), TimeUnit.NANOSECONDS);
        volcano.phase(phase, millis);
    }

    /**
     * A shadow policy's metrics ({@code run --shadow-rules}), registered at zero when a shadow is configured (never
     * otherwise): {@code arbiter_shadow_cycles_total{result}}, {@code arbiter_shadow_differences_total{kind}} and the
     * {@code arbiter_shadow_duration_seconds} histogram.
     */
    void shadowMetrics(java.util.Collection<String> results, java.util.Collection<String> kinds) {
        for (String r : results) shadowCycleCounter(r);
        for (String k : kinds) shadowDifferenceCounter(k);
        shadowTimer();
    }

    void shadowCycle(String result) {
        shadowCycleCounter(result).increment();
    }

    void shadowDifferences(String kind, int n) {
        shadowDifferenceCounter(kind).increment(n);
    }

    void shadowDuration(long nanos) {
        shadowTimer().record(nanos, TimeUnit.NANOSECONDS);
    }

    public double shadowCycles(String result) {
        Counter c = registry.find("arbiter.shadow.cycles").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }

    public double shadowDifferenceCount(String kind) {
        Counter c = registry.find("arbiter.shadow.differences").tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    private Counter shadowCycleCounter(String result) {
        return Counter.builder("arbiter.shadow.cycles")
                .description("Shadow policy evaluations by result (ok, failed, skipped while the last ran, overrun: took longer than --period)")
                .tag("result", result).register(registry);
    }

    private Counter shadowDifferenceCounter(String kind) {
        return Counter.builder("arbiter.shadow.differences")
                .description("Decisions the shadow policy made differently from the active one, by kind")
                .tag("kind", kind).register(registry);
    }

    private Timer shadowTimer() {
        return Timer.builder("arbiter.shadow.duration").description("Shadow policy evaluation duration")
                .serviceLevelObjectives(CYCLE_BUCKETS).register(registry);
    }

    public void e2eLatency(Duration d) {
        if (d.isNegative()) return;
        e2eLatency.record(d);
        volcano.taskBound(d);
    }

    public void bindLatency(Duration d) {
        bindLatency.record(d);
    }

    public void decision(String action, String outcome) {
        decisionCounter(action, outcome).increment();
        if (action.equals("bind")) volcano.attempts(outcome.equals("ok") ? "scheduled" : "error", 1);
    }

    /** {@code n} pending pods a cycle left without a node ({@code volcano_schedule_attempts_total{result="unschedulable"}}). */
    public void unschedulable(int n) {
        volcano.attempts("unschedulable", n);
    }

    /** Where the Queue objects' status is read, for the PodGroup counts Volcano's queue controller writes. */
    public void queueObjects(java.util.function.Function<String, VolcanoQueue.Status> status) {
        volcano.queueObjects(status);
    }

    /**
     * The per-job series: the cycle's PodGroups ({@code groups}) and how many tasks of each (by
     * {@code namespace/name}) the cycle placed; the series of a PodGroup that left the cluster go.
     */
    public void jobs(List<dev.arbiter.model.PodGroupSpec> groups, Map<String, Integer> placed, long nowMillis) {
        volcano.jobs(groups, placed, nowMillis);
    }

    private Counter decisionCounter(String action, String outcome) {
        return Counter.builder("arbiter.decisions").description("Decisions executed, by action and outcome")
                .tag("action", action).tag("outcome", outcome).register(registry);
    }

    /** A write of {@code kind} (bind, evict, status) failed and its object now waits before the next (see FailedWrites). */
    public void writeFailure(String kind) {
        writeFailureCounter(kind).increment();
    }

    private Counter writeFailureCounter(String kind) {
        return Counter.builder("arbiter.write.failures").description("Writes that failed and made their object wait, by kind")
                .tag("kind", kind).register(registry);
    }

    public double writeFailures(String kind) {
        Counter c = registry.find("arbiter.write.failures").tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    public double decisions(String action, String outcome) {
        Counter c = registry.find("arbiter.decisions").tag("action", action).tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    /** A new rules generation is in use; {@code arbiter_rules_info{generation}} is 1 for it and 0 for the old one. */
    public void rulesGeneration(String generation) {
        registry.find("arbiter.rules.info").gauges().forEach(g -> registry.remove(g));
        io.micrometer.core.instrument.Gauge.builder("arbiter.rules.info", () -> 1)
                .description("The rules generation (content hash) in use").tag("generation", generation).register(registry);
    }

    /** A rules reload that compiled ({@code arbiter_rules_reloads_total}). */
    public void rulesReloaded() {
        Counter.builder("arbiter.rules.reloads").description("Rules reloads that compiled and were swapped in")
                .register(registry).increment();
    }

    /** A rules reload that did not compile ({@code arbiter_rules_reload_failures_total}); the running rules stay. */
    public void rulesReloadFailed() {
        Counter.builder("arbiter.rules.reload.failures").description("Rules reloads that did not compile")
                .register(registry).increment();
    }

    public double rulesReloadFailures() {
        Counter c = registry.find("arbiter.rules.reload.failures").counter();
        return c == null ? 0 : c.count();
    }

    public void cycleFailed() {
        Counter.builder("arbiter.cycle.failures").description("Scheduling cycles that threw").register(registry).increment();
    }

    public double cycleFailures() {
        Counter c = registry.find("arbiter.cycle.failures").counter();
        return c == null ? 0 : c.count();
    }

    /** A cycle finished: {@code arbiter_last_cycle_timestamp_seconds}. */
    public void cycleFinished() {
        lastCycleMillis.set(System.currentTimeMillis());
    }

    /** A rule ran past its deadline and could not be stopped ({@code arbiter_rules_stuck_total}); /healthz fails. */
    public void rulesStuck() {
        Counter.builder("arbiter.rules.stuck").description("Rules that ran past the deadline and could not be stopped")
                .register(registry).increment();
    }

    /** The loop fell back to the last rules that worked ({@code arbiter_rules_fallbacks_total}). */
    public void rulesFellBack() {
        Counter.builder("arbiter.rules.fallbacks").description("Fallbacks to the last rules that completed a cycle")
                .register(registry).increment();
    }

    public double rulesFallbacks() {
        Counter c = registry.find("arbiter.rules.fallbacks").counter();
        return c == null ? 0 : c.count();
    }

    /**
     * A likely mistake said ({@code arbiter_manifest_notices_total{kind}}: near-miss-key, podgroup-in-other-namespace,
     * missing-podgroup, missing-queue), once per object and distinct message.
     */
    public void notice(String kind) {
        Counter.builder("arbiter.manifest.notices").description("Likely mistakes in objects, said once each, by kind")
                .tag("kind", kind).register(registry).increment();
    }

    public double notices(String kind) {
        Counter c = registry.find("arbiter.manifest.notices").tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    /** An event's fate: sent, aggregated, throttled, dropped or failed. */
    public void event(String outcome) {
        Counter.builder("arbiter.events").description("Events by outcome").tag("outcome", outcome).register(registry).increment();
    }

    public double events(String outcome) {
        Counter c = registry.find("arbiter.events").tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    /** Registers {@code arbiter_unreadable_objects{kind}} for the kinds the cache reads. */
    public void unreadableObjects(java.util.function.ToIntFunction<String> count) {
        for (String kind : List.of("Node", "Pod", "PriorityClass", "Queue", "PodGroup")) {
            io.micrometer.core.instrument.Gauge.builder("arbiter.unreadable.objects", () -> count.applyAsInt(kind))
                    .description("Objects the cache cannot read").tag("kind", kind).register(registry);
        }
    }

    public double unreadable(String kind) {
        io.micrometer.core.instrument.Gauge g = registry.find("arbiter.unreadable.objects").tag("kind", kind).gauge();
        return g == null ? 0 : g.value();
    }

    /** Registers the writers' backlog gauges. */
    public void writers(java.util.function.IntSupplier pendingWrites, java.util.function.IntSupplier strandedGangs,
                        java.util.function.IntSupplier pendingEvents) {
        io.micrometer.core.instrument.Gauge.builder("arbiter.writes.pending", pendingWrites::getAsInt)
                .description("Bindings, evictions and status writes queued or in flight").register(registry);
        io.micrometer.core.instrument.Gauge.builder("arbiter.stranded.gangs", strandedGangs::getAsInt)
                .description("Gangs left half-bound by a failed rollback").register(registry);
        io.micrometer.core.instrument.Gauge.builder("arbiter.events.pending", pendingEvents::getAsInt)
                .description("Events waiting to be sent").register(registry);
    }

    /** Registers the gauge of victims passed over because their eviction was refused. */
    public void refusedVictims(java.util.function.IntSupplier passedOver) {
        io.micrometer.core.instrument.Gauge.builder("arbiter.refused.victims", passedOver::getAsInt)
                .description("Pods whose eviction was refused, passed over by the victim search now").register(registry);
    }

    public void pendingPods(int n) {
        pendingPods.set(n);
    }

    public void leader(boolean isLeader) {
        leader.set(isLeader ? 1 : 0);
    }

    public void queues(List<QueueStatus> queues) {
        List<MultiGauge.Row<?>> d = new ArrayList<>();
        List<MultiGauge.Row<?>> a = new ArrayList<>();
        for (QueueStatus q : queues) {
            rows(d, q.queue(), q.deserved());
            rows(a, q.queue(), q.allocated());
        }
        deserved.register(d, true);
        allocated.register(a, true);
        volcano.queues(queues);
    }

    /** A cycle's evictions, preemption and reclaim together. */
    public void evictions(List<dev.arbiter.decision.Eviction> evictions) {
        volcano.evictions(evictions);
    }

    /** A start-time forecast ended ({@code done}, {@code failed}) after {@code seconds}, or was {@code skipped}. */
    public void forecast(String outcome, double seconds) {
        Counter.builder("arbiter.start.forecasts").description("Start-time forecasts, by outcome").tag("outcome", outcome)
                .register(registry).increment();
        if (!outcome.equals("skipped")) {
            Timer.builder("arbiter.start.forecast.duration").description("How long a start-time forecast took")
                    .serviceLevelObjectives(CYCLE_BUCKETS).register(registry)
                    .record((long) (seconds * 1e9), TimeUnit.NANOSECONDS);
        }
    }

    /** The latest forecast's estimates per queue: median and max seconds until start, and the jobs with none. */
    public synchronized void estimates(dev.arbiter.forecast.Forecast f) {
        if (estimatedStart == null) {
            estimatedStart = MultiGauge.builder("arbiter.job.estimated.start.seconds")
                    .description("Seconds from the latest forecast until pending jobs start, per queue (median, max)")
                    .register(registry);
            withoutEstimate = MultiGauge.builder("arbiter.jobs.without.estimated.start")
                    .description("Pending jobs with no estimated start in the latest forecast, per queue").register(registry);
        }
        Map<String, List<Long>> seconds = new java.util.TreeMap<>();
        Map<String, Integer> none = new java.util.TreeMap<>();
        for (dev.arbiter.forecast.StartEstimate e : f.estimates()) {
            if (e.isKnown()) seconds.computeIfAbsent(e.queue(), q -> new ArrayList<>()).add(e.secondsAfter(f.now()));
            else none.merge(e.queue(), 1, Integer::sum);
            none.putIfAbsent(e.queue(), 0);
        }
        List<MultiGauge.Row<?>> starts = new ArrayList<>();
        seconds.forEach((queue, s) -> {
            java.util.Collections.sort(s);
            starts.add(MultiGauge.Row.of(Tags.of("queue", queue, "stat", "median"), s.get((s.size() - 1) / 2)));
            starts.add(MultiGauge.Row.of(Tags.of("queue", queue, "stat", "max"), s.get(s.size() - 1)));
        });
        List<MultiGauge.Row<?>> without = new ArrayList<>();
        none.forEach((queue, n) -> without.add(MultiGauge.Row.of(Tags.of("queue", queue), n)));
        estimatedStart.register(starts, true);
        withoutEstimate.register(without, true);
    }

    private static void rows(List<MultiGauge.Row<?>> out, String queue, Resources r) {
        for (Map.Entry<String, Long> e : r.asMilliMap().entrySet()) {
            // Resources keeps byte-valued amounts (memory, storage) in bytes, the rest in thousandths.
            double units = dev.arbiter.model.Quantity.isBytes(e.getKey()) ? e.getValue() : e.getValue() / 1000.0;
            out.add(MultiGauge.Row.of(Tags.of("queue", queue, "resource", e.getKey()), units));
        }
    }
}
