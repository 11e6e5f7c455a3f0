package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * Churn control as a property: with constant demand (evicted pods come straight back, as their controllers would
 * recreate them), evictions stop after a bounded number of cycles — no queue keeps taking back what it just lost.
 */
class ChurnSettlesPropertyTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final int CYCLES = 60;
    private static final int SETTLED_BY = 30;

    @Property(tries = 150)
    void evictionsStopUnderConstantDemand(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        SimulationResult r = new Simulator(Shipped.scheduler()).run(randomCluster(seed).manifests(), CYCLES, 100, true);
        int lastEviction = 0;
        for (CycleResult c : r.cycles()) if (!c.evictions().isEmpty()) lastEviction = c.cycle();
        assertTrue(lastEviction <= SETTLED_BY, "seed " + seed + ": still evicting in cycle " + lastEviction);
        assertTrue(r.stable(), "seed " + seed + ": not stable after " + CYCLES + " cycles");
    }

    /** 2–6 nodes of 8 GPUs, 2–4 queues (weights 1–3, some not reclaimable), 1–14 jobs of 1–4 pods, some running. */
    static ClusterBuilder randomCluster(long seed) {
        Random rnd = new Random(seed);
        int nodes = 2 + rnd.nextInt(5);
        ClusterBuilder c = ClusterBuilder.cluster().nodes(nodes, GPU, 8)
                .priorityClass("low", 10).priorityClass("mid", 100, true).priorityClass("high", 1000);
        int queues = 2 + rnd.nextInt(3);
        for (int q = 0; q < queues; q++) c.queue("q" + q).weight(1 + rnd.nextInt(3)).reclaimable(rnd.nextInt(4) > 0).end();
        int[] free = new int[nodes];
        java.util.Arrays.fill(free, 8);
        String[] classes = {"low", "mid", "high"};
        int jobs = 1 + rnd.nextInt(14);
        for (int j = 0; j < jobs; j++) {
            int pods = 1 + rnd.nextInt(4);
            int gpus = 1 << rnd.nextInt(4);
            ClusterBuilder.JobBuilder b = c.job("ns/j" + j).queue("q" + rnd.nextInt(queues))
                    .priorityClass(classes[rnd.nextInt(3)]).pods(pods, GPU, gpus).minMember(1 + rnd.nextInt(pods));
            if (rnd.nextBoolean()) {
                String[] placed = Shipped.firstFit(free, pods, gpus);
                if (placed != null) b.running(placed);
            }
            b.end();
        }
        return c;
    }
}
