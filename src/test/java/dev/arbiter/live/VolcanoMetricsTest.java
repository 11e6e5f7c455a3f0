package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Caps;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.Resources;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scrape a Prometheus sees: Arbiter's durations as histograms with buckets, and Volcano's names, labels and units
 * (volcano-sh/volcano pkg/scheduler/metrics) for what both schedulers measure.
 */
class VolcanoMetricsTest {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Metrics metrics = new Metrics(registry);

    @Test
    void durationsAreHistogramsWithBuckets() {
        metrics.phase("total", 42);
        metrics.phase("engine_allocate", 7);
        metrics.e2eLatency(Duration.ofMillis(1500));
        metrics.bindLatency(Duration.ofMillis(3));
        String s = registry.scrape();
        assertTrue(s.contains("arbiter_cycle_duration_seconds_bucket{phase=\"total\",le=\"0.05\"} 1"), s);
        assertTrue(s.contains("arbiter_cycle_duration_seconds_bucket{phase=\"total\",le=\"0.025\"} 0"), s);
        assertTrue(s.contains("arbiter_scheduling_e2e_latency_seconds_bucket{le=\"2.5\"} 1"), s);
        assertTrue(s.contains("arbiter_bind_latency_seconds_bucket{le=\"0.005\"} 1"), s);
        // Volcano's: a session of 42 ms, the allocate action of 7 ms, a task bound 1,500 ms after its creation.
        assertTrue(s.contains("volcano_e2e_scheduling_latency_milliseconds_count 1"), s);
        assertTrue(s.contains("volcano_e2e_scheduling_latency_milliseconds_sum 42"), s);
        assertTrue(s.contains("volcano_action_scheduling_latency_milliseconds_count{action=\"allocate\"} 1"), s);
        assertTrue(s.contains("volcano_task_scheduling_latency_milliseconds_count{stage=\"Bound\"} 1"), s);
        assertTrue(s.lines().anyMatch(l -> l.startsWith("volcano_e2e_scheduling_latency_milliseconds_bucket{le=\"5000")), s);
    }

    @Test
    void queuesCarryVolcanosNamesLabelsAndUnits() {
        metrics.queues(List.of(new QueueStatus("team-a", "root", 3, "Open",
                Resources.of("cpu", 8, "memory", "16Gi", "nvidia.com/gpu", 4),
                Resources.of("cpu", 10, "memory", "8Gi", "nvidia.com/gpu", 6, "pods", 3), 1, 2, 3)));
        metrics.evictions(List.of(new Eviction("ns/v1", "n1", "preempt", "ns/hi", "r", "why"),
                new Eviction("ns/v2", "n1", "preempt", "ns/hi", "r", "why")));
        String s = registry.scrape();
        assertTrue(s.contains("volcano_queue_allocated_milli_cpu{queue_name=\"team-a\"} 10000"), s);
        assertTrue(s.contains("volcano_queue_allocated_memory_bytes{queue_name=\"team-a\"} 8.589934592E9"), s);
        assertTrue(s.contains("volcano_queue_allocated_scalar_resources{queue_name=\"team-a\",resource=\"nvidia.com/gpu\"} 6000"), s);
        assertTrue(s.contains("volcano_queue_deserved_scalar_resources{queue_name=\"team-a\",resource=\"nvidia.com/gpu\"} 4000"), s);
        assertTrue(s.contains("volcano_queue_weight{queue_name=\"team-a\"} 3"), s);
        assertTrue(s.contains("volcano_queue_share{queue_name=\"team-a\"} 1.5"), s);
        assertTrue(s.contains("volcano_queue_overused{queue_name=\"team-a\"} 0"), s);
        assertTrue(s.contains("volcano_unschedule_job_count 3"), s);
        assertTrue(s.contains("volcano_pod_preemption_victims 2"), s);
        assertTrue(s.lines().noneMatch(l -> l.contains("resource=\"pods\"") && l.startsWith("volcano_")), s);
        // Arbiter's own: cores, bytes, devices.
        assertTrue(s.contains("arbiter_queue_allocated{queue=\"team-a\",resource=\"memory\"} 8.589934592E9"), s);
        assertTrue(s.contains("arbiter_queue_allocated{queue=\"team-a\",resource=\"cpu\"} 10.0"), s);
        assertEquals(20, VolcanoMetrics.exponentialRange(1, 5000, 20).length);
        assertEquals(5000, VolcanoMetrics.exponentialRange(1, 5000, 20)[19], 1e-6);
    }

    @Test
    void queuesCarryRequestInqueueCapacityAndPodGroupCounts() {
        VolcanoQueue.Status object = new VolcanoQueue.Status();
        object.unknown = 4;
        object.completed = 7;
        metrics.queueObjects(q -> q.equals("team-a") ? object : null);
        metrics.queues(List.of(
                new QueueStatus("team-a", "root", 1, "Open", Resources.of("cpu", 8), Resources.of("cpu", 2), 5, 6, 2,
                        null, Resources.of("cpu", 12, "memory", "4Gi", "nvidia.com/gpu", 3),
                        Resources.of("cpu", "1500m", "nvidia.com/gpu", 1), Caps.of("nvidia.com/gpu", 8),
                        Caps.of("cpu", 40, "memory", "64Gi", "nvidia.com/gpu", 8)),
                new QueueStatus("team-b", "root", 1, "Open", Resources.NONE, Resources.NONE, 0, 0, 1)));
        String s = registry.scrape();
        assertTrue(s.contains("volcano_queue_request_milli_cpu{queue_name=\"team-a\"} 12000"), s);
        assertTrue(s.contains("volcano_queue_request_memory_bytes{queue_name=\"team-a\"} 4.294967296E9"), s);
        assertTrue(s.contains("volcano_queue_request_scalar_resources{queue_name=\"team-a\",resource=\"nvidia.com/gpu\"} 3000"), s);
        assertTrue(s.contains("volcano_queue_inqueue_milli_cpu{queue_name=\"team-a\"} 1500"), s);
        assertTrue(s.contains("volcano_queue_inqueue_scalar_resources{queue_name=\"team-a\",resource=\"nvidia.com/gpu\"} 1000"), s);
        // The capability bounds GPUs only: no CPU or memory row, as no bound.
        assertTrue(s.contains("volcano_queue_capacity_scalar_resources{queue_name=\"team-a\",resource=\"nvidia.com/gpu\"} 8000"), s);
        assertTrue(s.lines().noneMatch(l -> l.startsWith("volcano_queue_capacity_milli_cpu{")), s);
        assertTrue(s.contains("volcano_queue_real_capacity_milli_cpu{queue_name=\"team-a\"} 40000"), s);
        assertTrue(s.contains("volcano_queue_real_capacity_memory_bytes{queue_name=\"team-a\"} 6.8719476736E10"), s);
        // A queue without a capability has no capacity rows at all; its request is zero.
        assertTrue(s.lines().noneMatch(l -> l.contains("capacity") && l.contains("team-b")), s);
        assertTrue(s.contains("volcano_queue_request_milli_cpu{queue_name=\"team-b\"} 0"), s);
        // PodGroup counts: pending 5, inqueue 6, running 2 from the cycle; unknown and completed from the Queue object.
        assertTrue(s.contains("volcano_queue_pod_group_pending_count{queue_name=\"team-a\"} 5"), s);
        assertTrue(s.contains("volcano_queue_pod_group_inqueue_count{queue_name=\"team-a\"} 6"), s);
        assertTrue(s.contains("volcano_queue_pod_group_running_count{queue_name=\"team-a\"} 2"), s);
        assertTrue(s.contains("volcano_queue_pod_group_unknown_count{queue_name=\"team-a\"} 4"), s);
        assertTrue(s.contains("volcano_queue_pod_group_completed_count{queue_name=\"team-a\"} 7"), s);
        assertTrue(s.contains("volcano_queue_pod_group_completed_count{queue_name=\"team-b\"} 0"), s);
        assertTrue(s.contains("volcano_queue_pod_group_running_count{queue_name=\"team-b\"} 1"), s);
        // A queue that went loses its rows.
        metrics.queues(List.of(new QueueStatus("team-b", "root", 1, "Open", Resources.NONE, Resources.NONE, 0, 0, 1)));
        assertTrue(registry.scrape().lines().noneMatch(l -> l.contains("team-a")), registry.scrape());
    }

    @Test
    void attemptsPreemptionsAndEvictionTransactions() {
        String s0 = registry.scrape();
        assertTrue(s0.contains("volcano_schedule_attempts_total{result=\"error\"} 0.0"), s0);
        assertTrue(s0.contains("volcano_eviction_transactions_total{action=\"reclaim\"} 0.0"), s0);
        metrics.decision("bind", "ok");
        metrics.decision("bind", "ok");
        metrics.decision("bind", "failed");
        metrics.decision("preempt", "ok");
        metrics.unschedulable(5);
        // One cycle: two victims preempted for one job, one reclaimed for each of two jobs.
        metrics.evictions(List.of(new Eviction("ns/v1", "n1", "preempt", "ns/hi", "r", "why"),
                new Eviction("ns/v2", "n1", "preempt", "ns/hi", "r", "why"),
                new Eviction("ns/v3", "n2", "reclaim", "ns/a", "r", "why"),
                new Eviction("ns/v4", "n2", "reclaim", "ns/b", "r", "why")));
        metrics.evictions(List.of(new Eviction("ns/v5", "n1", "preempt", "ns/hi", "r", "why")));
        String s = registry.scrape();
        assertTrue(s.contains("volcano_schedule_attempts_total{result=\"scheduled\"} 2.0"), s);
        assertTrue(s.contains("volcano_schedule_attempts_total{result=\"error\"} 1.0"), s);
        assertTrue(s.contains("volcano_schedule_attempts_total{result=\"unschedulable\"} 5.0"), s);
        assertTrue(s.contains("volcano_eviction_transactions_total{action=\"preempt\"} 2.0"), s);
        assertTrue(s.contains("volcano_eviction_transactions_total{action=\"reclaim\"} 2.0"), s);
        assertTrue(s.contains("volcano_total_preemption_attempts 2.0"), s);
        assertTrue(s.contains("volcano_pod_preemption_victims 1"), s);
    }

    @Test
    void perJobSeriesLiveAsLongAsThePodGroup() {
        long created = 1_700_000_000_000L;
        long order = created << 20 | 5;
        PodGroupSpec a = new PodGroupSpec("ml", "train-a", "team-a", 2, java.util.Map.of(), null, null, "Pending", 0, order);
        PodGroupSpec b = new PodGroupSpec("ml", "train-b", null, 1, java.util.Map.of(), null, null, "Pending", 0, order);
        metrics.jobs(List.of(a, b), java.util.Map.of("ml/train-a", 2), created + 2500);
        String s = registry.scrape();
        String tagsA = "{job_name=\"train-a\",job_namespace=\"ml\",queue=\"team-a\"}";
        String tagsB = "{job_name=\"train-b\",job_namespace=\"ml\",queue=\"default\"}";
        assertTrue(s.contains("volcano_e2e_job_scheduling_start_time" + tagsA + " 1.7E9"), s);
        assertTrue(s.contains("volcano_e2e_job_scheduling_start_time" + tagsB + " 1.7E9"), s);
        assertTrue(s.contains("volcano_e2e_job_scheduling_duration" + tagsA + " 2500"), s);
        assertTrue(s.contains("volcano_e2e_job_scheduling_last_time" + tagsA + " 1.700000002E9"), s);
        // Nothing of train-b placed yet: no duration.
        assertTrue(s.lines().noneMatch(l -> l.startsWith("volcano_e2e_job_scheduling_duration" + tagsB)), s);
        // One observation per placed task, as Volcano observes per allocated task.
        assertTrue(s.contains("volcano_e2e_job_scheduling_latency_milliseconds_count 2"), s);
        assertTrue(s.contains("volcano_e2e_job_scheduling_latency_milliseconds_sum 5000"), s);
        // Both fall in the first of Volcano's buckets (100 ms to 120 s, 30 in log steps) that reaches 2,500 ms.
        for (String l : s.lines().filter(l -> l.startsWith("volcano_e2e_job_scheduling_latency_milliseconds_bucket{le=\"")
                && !l.contains("+Inf")).toList()) {
            double le = Double.parseDouble(l.substring(l.indexOf('"') + 1, l.lastIndexOf('"')));
            assertTrue(l.endsWith(le < 2500 ? " 0" : " 2"), l);
        }
        assertTrue(s.lines().filter(l -> l.startsWith("volcano_e2e_job_scheduling_latency_milliseconds_bucket")).count() == 31, s);
        // train-a leaves the cluster: all its series go; train-b stays.
        metrics.jobs(List.of(b), java.util.Map.of("ml/train-b", 1), created + 4000);
        s = registry.scrape();
        assertTrue(s.lines().noneMatch(l -> l.contains("train-a")), s);
        assertTrue(s.contains("volcano_e2e_job_scheduling_duration" + tagsB + " 4000"), s);
        metrics.jobs(List.of(), java.util.Map.of(), created + 5000);
        s = registry.scrape();
        assertTrue(s.lines().noneMatch(l -> l.contains("job_name=")), s);
    }
}
