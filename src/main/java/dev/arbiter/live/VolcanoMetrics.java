package dev.arbiter.live;

import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Resources;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Volcano's scheduler metrics ({@code pkg/scheduler/metrics} of volcano-sh/volcano) for what Arbiter measures too, with
 * Volcano's names, labels, units and buckets, so that a Volcano dashboard or alert shows Arbiter's numbers unchanged
 * (docs/operations.md lists the mapping):
 * <ul>
 *   <li>{@code volcano_e2e_scheduling_latency_milliseconds}: a whole cycle (Volcano: a session), buckets
 *       1 to 5,000 ms.</li>
 *   <li>{@code volcano_action_scheduling_latency_milliseconds{action}}: the engine's enqueue and allocate steps
 *       (Arbiter's preempt and reclaim share one step, so neither is reported alone).</li>
 *   <li>{@code volcano_task_scheduling_latency_milliseconds{stage="Bound"}}: pod creation to accepted binding.</li>
 *   <li>{@code volcano_pod_preemption_victims}: pods chosen as victims in the last cycle.</li>
 *   <li>{@code volcano_unschedule_job_count}: jobs not started (Pending or Inqueue) after the last cycle.</li>
 *   <li>{@code volcano_queue_{allocated,deserved}_{milli_cpu,memory_bytes,scalar_resources}{queue_name[,resource]}}
 *       (scalar resources in thousandths, as Volcano keeps them), {@code volcano_queue_weight},
 *       {@code volcano_queue_share} (allocation's dominant share of the deserved share) and
 *       {@code volcano_queue_overused} (1 when the allocation covers the deserved share in every resource).</li>
 * </ul>
 */
final class VolcanoMetrics {
    private final MeterRegistry registry;
    private final DistributionSummary session;
    private final DistributionSummary taskBound;
    private final Map<String, MultiGauge> queueGauges = new java.util.HashMap<>();
    private final AtomicInteger victims = new AtomicInteger();
    private final AtomicInteger unscheduledJobs = new AtomicInteger();

    VolcanoMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.session = DistributionSummary.builder("volcano.e2e.scheduling.latency.milliseconds")
                .description("Duration of a single scheduling session execution in milliseconds (Arbiter: a cycle)")
                .serviceLevelObjectives(exponentialRange(1, 5000, 20)).register(registry);
        this.taskBound = DistributionSummary.builder("volcano.task.scheduling.latency.milliseconds")
                .description("Task scheduling latency from creation to various stages in milliseconds")
                .tag("stage", "Bound").serviceLevelObjectives(exponentialRange(50, 60000, 30)).register(registry);
        registry.gauge("volcano.pod.preemption.victims", victims);
        registry.gauge("volcano.unschedule.job.count", unscheduledJobs);
        for (String name : List.of("allocated", "deserved")) {
            for (String unit : List.of("milli.cpu", "memory.bytes", "scalar.resources")) {
                String metric = "volcano.queue." + name + "." + unit;
                queueGauges.put(metric, MultiGauge.builder(metric).register(registry));
            }
        }
        for (String metric : List.of("volcano.queue.weight", "volcano.queue.share", "volcano.queue.overused")) {
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

    void victims(int n) {
        victims.set(n);
    }

    void queues(List<QueueStatus> queues) {
        Map<String, List<MultiGauge.Row<?>>> rows = new java.util.HashMap<>();
        queueGauges.keySet().forEach(k -> rows.put(k, new ArrayList<>()));
        int notStarted = 0;
        for (QueueStatus q : queues) {
            notStarted += q.pendingJobs() + q.inqueueJobs();
            resources(rows, "allocated", q.queue(), q.allocated());
            resources(rows, "deserved", q.queue(), q.deserved());
            Tags tags = Tags.of("queue_name", q.queue());
            rows.get("volcano.queue.weight").add(MultiGauge.Row.of(tags, q.weight()));
            rows.get("volcano.queue.share").add(MultiGauge.Row.of(tags, q.allocated().dominantShare(q.deserved())));
            boolean overused = !q.deserved().isEmpty() && q.deserved().fitsIn(q.allocated());
            rows.get("volcano.queue.overused").add(MultiGauge.Row.of(tags, overused ? 1 : 0));
        }
        unscheduledJobs.set(notStarted);
        rows.forEach((metric, r) -> queueGauges.get(metric).register(r, true));
    }

    private static void resources(Map<String, List<MultiGauge.Row<?>>> rows, String which, String queue, Resources r) {
        String prefix = "volcano.queue." + which + ".";
        Tags tags = Tags.of("queue_name", queue);
        long cpu = 0, memory = 0;
        for (Map.Entry<String, Long> e : r.asMilliMap().entrySet()) {
            switch (e.getKey()) {
                case "cpu" -> cpu = e.getValue();
                case "memory" -> memory = e.getValue(); // Resources keeps bytes
                case "pods" -> { } // Volcano keeps a pod count apart from resources
                // Volcano keeps every other resource in thousandths (bytes too: hugepages, storage)
                default -> rows.get(prefix + "scalar.resources").add(MultiGauge.Row.of(
                        Tags.of("queue_name", queue, "resource", e.getKey()),
                        dev.arbiter.model.Quantity.isBytes(e.getKey()) ? e.getValue() * 1000.0 : e.getValue()));
            }
        }
        rows.get(prefix + "milli.cpu").add(MultiGauge.Row.of(tags, cpu));
        rows.get(prefix + "memory.bytes").add(MultiGauge.Row.of(tags, memory));
    }
}
