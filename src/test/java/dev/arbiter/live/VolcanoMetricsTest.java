package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.QueueStatus;
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
        metrics.victims(2);
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
}
