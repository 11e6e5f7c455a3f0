package dev.arbiter.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.Runtimes;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * When every job's estimate is exactly how long it runs, the forecast made at time 0 is what the simulation then does:
 * every pending job's estimated start is the time the simulation binds it, and a job the simulation never binds has
 * none. Random clusters of gangs, queues and priorities, some jobs running, with preemption and reclaim on.
 */
class ExactEstimatesPropertyTest {
    private static final String GPU = "nvidia.com/gpu";

    @Property(tries = 40)
    void theForecastIsTheSimulatedOutcome(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        Manifests m = randomCluster(seed).manifests();
        Scheduler s = new Scheduler(Shipped.RULES, SchedulerConfig.simulatorDefault());
        ClusterSnapshot start = SnapshotTap.atStart(m, s, ForecasterTest.CYCLE);
        Forecast f = new Forecaster(Shipped.RULES, SchedulerConfig.simulatorDefault(),
                Forecaster.Settings.defaults(ForecasterTest.CYCLE)).forecast(start);
        Map<String, Long> forecast = new TreeMap<>();
        for (StartEstimate e : f.estimates()) if (e.isKnown()) forecast.put(e.job(), e.at());
        assertEquals(ForecasterTest.simulatedStarts(Shipped.RULES, m), forecast, "seed " + seed);
    }

    /** 1–4 nodes of 8 GPUs, 2–3 queues, 1–12 jobs of 1–3 pods with exact estimates of 5 min to 5 h, some running. */
    static ClusterBuilder randomCluster(long seed) {
        Random rnd = new Random(seed);
        int nodes = 1 + rnd.nextInt(4);
        ClusterBuilder c = ClusterBuilder.cluster().nodes(nodes, GPU, 8)
                .priorityClass("low", 10).priorityClass("mid", 100, true).priorityClass("high", 1000);
        int queues = 2 + rnd.nextInt(2);
        for (int q = 0; q < queues; q++) c.queue("q" + q).weight(1 + rnd.nextInt(3)).reclaimable(rnd.nextInt(4) > 0).end();
        int[] free = new int[nodes];
        java.util.Arrays.fill(free, 8);
        String[] classes = {"low", "mid", "high"};
        int jobs = 1 + rnd.nextInt(12);
        for (int j = 0; j < jobs; j++) {
            int pods = 1 + rnd.nextInt(3);
            int gpus = 1 << rnd.nextInt(4);
            String runtime = (5 + rnd.nextInt(60) * 5) + "m";
            ClusterBuilder.JobBuilder b = c.job("ns/j" + j).queue("q" + rnd.nextInt(queues))
                    .priorityClass(classes[rnd.nextInt(3)]).pods(pods, GPU, gpus).minMember(pods)
                    .annotate(Runtimes.ESTIMATE, runtime).annotate(Runtimes.SIMULATED, runtime);
            if (rnd.nextInt(3) == 0) {
                String[] placed = Shipped.firstFit(free, pods, gpus);
                if (placed != null) b.running(placed);
            }
            b.end();
        }
        return c;
    }
}
