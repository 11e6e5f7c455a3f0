package dev.arbiter.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Nomination;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Room made by evictions is held for the preemptor in the next cycle (status.nominatedNodeName), not given away. */
class NominationTest {
    private static final String GPU = "nvidia.com/gpu";

    /**
     * One node, held by a low-priority pod. A high-priority job preempts it. In the next cycle an older job of
     * medium priority, which could not preempt anything itself, must not take the freed node.
     */
    private static ClusterBuilder contested() {
        return ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("mid", 100).priorityClass("high", 1000)
                .queue("q").reclaimable(false).end()
                .job("ns/old-mid").queue("q").priorityClass("mid").pods(1, GPU, 8).preemptionPolicy("Never").end()
                .job("ns/low").queue("q").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("ns/high").queue("q").priorityClass("high").pods(1, GPU, 8).end();
    }

    @Test
    void aPreemptionNominatesThePreemptorsNode() {
        CycleResult r = Shipped.cycle(contested().snapshot());
        assertEquals(List.of(new Nomination("ns/high-0", "node-1")), r.nominations());
    }

    @Test
    void theNominatedRoomGoesToThePreemptorNextCycle() {
        SimulationResult r = new Simulator(Shipped.scheduler()).run(contested().manifests(), 10);
        Set<String> bound = new TreeSet<>();
        r.cycles().forEach(c -> c.bindings().forEach(b -> bound.add(b.pod())));
        assertEquals(Set.of("ns/high-0"), bound);
        assertTrue(r.pods().stream().anyMatch(p -> p.pod().equals("ns/old-mid-0") && p.phase().equals("Pending")));
    }
}
