package dev.arbiter.live;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Caps;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Volcano's scheduler metrics ({@code pkg/scheduler/metrics} of volcano-sh/volcano, and the queue controller's
 * {@code pkg/controllers/metrics/queue.go}) for what Arbiter measures too, with Volcano's names, labels, units and
 * buckets, so that a Volcano dashboard or alert shows Arbiter's numbers unchanged (docs/operations.md lists the
 * mapping, and what is not served and why):
 * <ul>
 *   <li>{@code volcano_e2e_scheduling_latency_milliseconds}: a whole cycle (Volcano: a session), buckets
 *       1 to 5,000 ms.</li>
 *   <li>{@code volcano_action_scheduling_latency_milliseconds{action}}: the engine's enqueue and allocate steps
 *       (Arbiter's preempt and reclaim share one step, so neither is reported alone).</li>
 *   <li>{@code volcano_task_scheduling_latency_milliseconds{stage="Bound"}}: pod creation to accepted binding.</li>
 *   <li>{@code volcano_pod_preemption_victims}: pods chosen as victims in the last cycle;
 *       {@code volcano_total_preemption_attempts}: per cycle, one per job that preempted (had victims evicted for
 *       it by preemption), summed over cycles; {@code volcano_eviction_transactions_total{action}}: per cycle, one per job victims were evicted for,
 *       by action (preempt, reclaim).</li>
 *   <li>{@code volcano_schedule_attempts_total{result}}: scheduled (a binding the API server accepted), error (a
 *       binding call that failed), unschedulable (a pending pod a cycle left without a node).</li>
 *   <li>{@code volcano_unschedule_job_count}: jobs not started (Pending or Inqueue) after the last cycle.</li>
 *   <li>{@code volcano_queue_{allocated,deserved,request,inqueue}_{milli_cpu,memory_bytes,scalar_resources}}
 *       {@code {queue_name[,resource]}} (scalar resources in thousandths, as Volcano keeps them), and
 *       {@code volcano_queue_{capacity,real_capacity}_*} for the dimensions the queue's capability (real
 *       capability) bounds; {@code volcano_queue_weight}, {@code volcano_queue_share} (allocation's dominant share of
 *       the deserved share) and {@code volcano_queue_overused} (1 when the allocation covers the deserved share in
 *       every resource).</li>
 *   <li>{@code volcano_queue_pod_group_{pending,inqueue,running}_count{queue_name}}: the PodGroups of each phase as
 *       the last cycle counted them (what Arbiter writes into the Queue's status); {@code _unknown_count} and
 *       {@code _completed_count}: as the Queue's status holds them (Volcano's queue controller writes those).</li>
 *   <li>Per job (PodGroup), labels {@code job_name}, {@code queue}, {@code job_namespace}:
 *       {@code volcano_e2e_job_scheduling_start_time} (its creation, Unix seconds) while the PodGroup exists;
 *       {@code volcano_e2e_job_scheduling_duration} (milliseconds from its creation to the last cycle that placed a
 *       task of it) and {@code volcano_e2e_job_scheduling_last_time} (that cycle, Unix seconds) once a task was
 *       placed. All three go when the PodGroup leaves the cluster, so their number is the number of PodGroups.
 *       {@code volcano_e2e_job_scheduling_latency_milliseconds}: the same duration, observed once per placed task as
 *       Volcano does, buckets 100 ms to 120 s.</li>
 * </ul>
 */
final class VolcanoMetrics {
    private final MeterRegistry registry;
    private final DistributionSummary session;
    private final DistributionSummary taskBound;
    private final DistributionSummary jobLatency;
    private final Map<String, MultiGauge> queueGauges = new HashMap<>();
    private final AtomicInteger victims = new AtomicInteger();
    private final AtomicInteger unscheduledJobs = new AtomicInteger();
    private final AtomicLong preemptionAttempts = new AtomicLong();
    /** The live PodGroups' series, by {@code namespace/name}; touched by the loop thread only. */
    private final Map<String, JobSeries> jobs = new HashMap<>();
    private Function<String, VolcanoQueue.Status> queueObjects = q -> null;

    static final List<String> QUEUE_RESOURCES = List.of("allocated", "deserved", "request", "inqueue");
    static final List<String> QUEUE_CAPS = List.of("capacity", "real.capacity");
    static final List<String> POD_GROUP_PHASES = List.of("inqueue", "pending", "running", "unknown", "completed");

    VolcanoMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.session = DistributionSummary.builder("volcano.e2e.scheduling.latency.milliseconds")
                .description("Duration of a single scheduling session execution in milliseconds (Arbiter: a cycle)")
                .serviceLevelObjectives(exponentialRange(1, 5000, 20)).register(registry);
        this.taskBound = DistributionSummary.builder("volcano.task.scheduling.latency.milliseconds")
                .description("Task scheduling latency from creation to various stages in milliseconds")
                .tag("stage", "Bound").serviceLevelObjectives(exponentialRange(50, 60000, 30)).register(registry);
        this.jobLatency = DistributionSummary.builder("volcano.e2e.job.scheduling.latency.milliseconds")
                .description("End-to-end job scheduling latency in milliseconds (per placed task: its job's creation"
                        + " to the cycle that placed it)")
                .serviceLevelObjectives(exponentialRange(100, 120000, 30)).register(registry);
        registry.gauge("volcano.pod.preemption.victims", victims);
        registry.gauge("volcano.unschedule.job.count", unscheduledJobs);
        // Volcano's is a counter without the _total suffix, which the Prometheus client adds to every counter: a
        // gauge that only grows keeps the name, and rate() works on it.
        Gauge.builder("volcano.total.preemption.attempts", preemptionAttempts, AtomicLong::get)
                .description("Total preemption attempts in the cluster till now (Arbiter: per cycle, one per job that"
                        + " had victims preempted for it)").register(registry);
        for (String result : List.of("scheduled", "unschedulable", "error")) attempts(result);
        for (String action : List.of("preempt", "reclaim")) evictionTransactions(action);
        List<String> names = new ArrayList<>();
        for (String which : QUEUE_RESOURCES) {
            for (String unit : List.of("milli.cpu", "memory.bytes", "scalar.resources")) names.add(which + "." + unit);
        }
        for (String which : QUEUE_CAPS) {
            for (String unit : List.of("milli.cpu", "memory.bytes", "scalar.resources")) names.add(which + "." + unit);
        }
        names.addAll(List.of("weight", "share", "overused"));
        for (String phase : POD_GROUP_PHASES) names.add("pod.group." + phase + ".count");
        for (String n : names) {
            String metric = "volcano.queue." + n;
            queueGauges.put(metric, MultiGauge.builder(metric).register(registry));
        }
    }

    /** Prometheus's ExponentialBucketsRange(min, max, count): {@code count} bounds from min to max, evenly in log. */
    static double[] exponentialRange(double min, double max, int count) {
        double[] out = new double[count];
        double factor = Math.pow(max / min, 1.0 / (count - 1));
        for (int i = 0; i < count; i++) out[i] = min * Math.pow(factor, i);
        return out;
    }

    /** Where the Queue objects' status is read ({@code unknown} and {@code completed} are Volcano's controller's). */
    void queueObjects(Function<String, VolcanoQueue.Status> status) {
        this.queueObjects = status;
    }

    void phase(String phase, double millis) {
        switch (phase) {
            case "total" -> session.record(millis);
            case "engine_enqueue", "engine_allocate" -> DistributionSummary
                    .builder("volcano.action.scheduling.latency.milliseconds")
                    .description("Action scheduling latency in milliseconds").tag("action", phase.substring(7))
                    .serviceLevelObjectives(exponentialRange(1, 2000, 20)).register(registry).record(millis);
            default -> { }
        }
    }

    void taskBound(Duration sinceCreation) {
        taskBound.record(sinceCreation.toNanos() / 1e6);
    }

    private Counter attempts(String result) {
        return Counter.builder("volcano.schedule.attempts").description("Number of attempts to schedule pods, by the"
                + " result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal"
                + " scheduler problem.").tag("result", result).register(registry);
    }

    /** {@code n} scheduling attempts ended with {@code result}: scheduled, unschedulable or error. */
    void attempts(String result, int n) {
        if (n > 0) attempts(result).increment(n);
    }

    private Counter evictionTransactions(String action) {
        return Counter.builder("volcano.eviction.transactions").description("Total number of committed eviction"
                + " transactions, by action (Arbiter: per cycle, one per job victims were evicted for)")
                .tag("action", action).register(registry);
    }

    /** A cycle's evictions: victims, preemptors and transactions. */
    void evictions(List<Eviction> evictions) {
        victims.set(evictions.size());
        Set<String> forJobs = new HashSet<>();
        for (Eviction e : evictions) {
            if (!forJobs.add(e.action() + " " + e.forPodGroup())) continue;
            evictionTransactions(e.action()).increment();
            if ("preempt".equals(e.action())) preemptionAttempts.incrementAndGet();
        }
    }

    void queues(List<QueueStatus> queues) {
        Map<String, List<MultiGauge.Row<?>>> rows = new HashMap<>();
        queueGauges.keySet().forEach(k -> rows.put(k, new ArrayList<>()));
        int notStarted = 0;
        for (QueueStatus q : queues) {
            notStarted += q.pendingJobs() + q.inqueueJobs();
            resources(rows, "allocated", q.queue(), q.allocated());
            resources(rows, "deserved", q.queue(), q.deserved());
            resources(rows, "request", q.queue(), q.request());
            resources(rows, "inqueue", q.queue(), q.inqueue());
            if (!q.capability().isUnlimited()) caps(rows, "capacity", q.queue(), q.capability());
            if (!q.realCapability().isUnlimited()) caps(rows, "real.capacity", q.queue(), q.realCapability());
            Tags tags = Tags.of("queue_name", q.queue());
            rows.get("volcano.queue.weight").add(MultiGauge.Row.of(tags, q.weight()));
            rows.get("volcano.queue.share").add(MultiGauge.Row.of(tags, q.allocated().dominantShare(q.deserved())));
            boolean overused = !q.deserved().isEmpty() && q.deserved().fitsIn(q.allocated());
            rows.get("volcano.queue.overused").add(MultiGauge.Row.of(tags, overused ? 1 : 0));
            VolcanoQueue.Status object = queueObjects.apply(q.queue());
            int[] counts = {q.inqueueJobs(), q.pendingJobs(), q.runningJobs(),
                    object == null || object.unknown == null ? 0 : object.unknown,
                    object == null || object.completed == null ? 0 : object.completed};
            for (int i = 0; i < counts.length; i++) {
                rows.get("volcano.queue.pod.group." + POD_GROUP_PHASES.get(i) + ".count").add(MultiGauge.Row.of(tags, counts[i]));
            }
        }
        unscheduledJobs.set(notStarted);
        rows.forEach((metric, r) -> queueGauges.get(metric).register(r, true));
    }

    private static void resources(Map<String, List<MultiGauge.Row<?>>> rows, String which, String queue, Resources r) {
        units(rows, which, queue, r.asMilliMap(), true);
    }

    /** Only the bounded dimensions: a capability that does not name CPU has no {@code _milli_cpu} row. */
    private static void caps(Map<String, List<MultiGauge.Row<?>>> rows, String which, String queue, Caps c) {
        units(rows, which, queue, c.asMilliMap(), false);
    }

    private static void units(Map<String, List<MultiGauge.Row<?>>> rows, String which, String queue,
                              Map<String, Long> milli, boolean always) {
        String prefix = "volcano.queue." + which + ".";
        Tags tags = Tags.of("queue_name", queue);
        Long cpu = always ? 0L : null, memory = always ? 0L : null;
        for (Map.Entry<String, Long> e : milli.entrySet()) {
            switch (e.getKey()) {
                case "cpu" -> cpu = e.getValue();
                case "memory" -> memory = e.getValue(); // Resources and Caps keep bytes
                case "pods" -> { } // Volcano keeps a pod count apart from resources
                // Volcano keeps every other resource in thousandths (bytes too: hugepages, storage)
                default -> rows.get(prefix + "scalar.resources").add(MultiGauge.Row.of(
                        Tags.of("queue_name", queue, "resource", e.getKey()),
                        dev.arbiter.model.Quantity.isBytes(e.getKey()) ? e.getValue() * 1000.0 : e.getValue()));
            }
        }
        if (cpu != null) rows.get(prefix + "milli.cpu").add(MultiGauge.Row.of(tags, cpu));
        if (memory != null) rows.get(prefix + "memory.bytes").add(MultiGauge.Row.of(tags, memory));
    }

    /** A live PodGroup as the per-job series need it. */
    record Job(String namespace, String name, String queue, long createdMillis) {}

    /** One PodGroup's series; duration and last time only once a task of it was placed. */
    private final class JobSeries {
        final Job job;
        final Tags tags;
        final AtomicLong durationMillis = new AtomicLong();
        final AtomicLong lastSeconds = new AtomicLong();
        final List<Gauge> gauges = new ArrayList<>(3);
        long seen;

        JobSeries(Job job) {
            this.job = job;
            this.tags = Tags.of("job_name", job.name(), "queue", job.queue() == null ? "" : job.queue(),
                    "job_namespace", job.namespace());
            long start = job.createdMillis() / 1000;
            gauges.add(Gauge.builder("volcano.e2e.job.scheduling.start.time", () -> start)
                    .description("E2E job scheduling start time").tags(tags).strongReference(true).register(registry));
        }

        void placed(long nowMillis) {
            if (gauges.size() == 1) {
                gauges.add(Gauge.builder("volcano.e2e.job.scheduling.duration", durationMillis, AtomicLong::get)
                        .description("Per-job duration from job creation to last task assumed in scheduler cache, in"
                                + " milliseconds").tags(tags).register(registry));
                gauges.add(Gauge.builder("volcano.e2e.job.scheduling.last.time", lastSeconds, AtomicLong::get)
                        .description("E2E job scheduling last time").tags(tags).register(registry));
            }
            durationMillis.set(Math.max(0, nowMillis - job.createdMillis()));
            lastSeconds.set(nowMillis / 1000);
        }

        void remove() {
            gauges.forEach(registry::remove);
        }
    }

    private long sweep;
    private List<PodGroupSpec> lastGroups;

    /**
     * The cycle's PodGroups ({@code live}) and, per PodGroup, how many of its tasks the cycle placed ({@code placed},
     * by {@code namespace/name}). A PodGroup that left the cluster loses its series; a PodGroup whose queue changed
     * gets new ones.
     */
    void jobs(List<PodGroupSpec> live, Map<String, Integer> placed, long nowMillis) {
        // The cache hands out the same list while no PodGroup changed: then only placements can change a series.
        if (live == lastGroups && placed.isEmpty()) return;
        lastGroups = live;
        long round = ++sweep;
        for (PodGroupSpec g : live) {
            String key = g.key();
            String queue = g.queue() == null ? QueueSpec.DEFAULT : g.queue();
            long created = ClusterCache.createdMillis(g.creationOrder());
            JobSeries s = jobs.get(key);
            if (s != null && (!s.job.queue().equals(queue) || s.job.createdMillis() != created)) {
                s.remove();
                s = null;
            }
            if (s == null) jobs.put(key, s = new JobSeries(new Job(g.namespace(), g.name(), queue, created)));
            s.seen = round;
            Integer tasks = placed.get(key);
            if (tasks != null && tasks > 0) {
                s.placed(nowMillis);
                double millis = s.durationMillis.get();
                for (int i = 0; i < tasks; i++) jobLatency.record(millis);
            }
        }
        for (Iterator<JobSeries> it = jobs.values().iterator(); it.hasNext(); ) {
            JobSeries s = it.next();
            if (s.seen != round) {
                s.remove();
                it.remove();
            }
        }
    }
}
