package dev.arbiter.engine.cycle;

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
     * Queue a fills both nodes; its high-priority job preempts a's low pod on node-1. Queue b, which has nothing and
     * so is served first next cycle, has a job that may not evict anyone. The freed node must go to the preemptor,
     * not to b's job.
     */
    private static ClusterBuilder contested() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8)
                .priorityClass("low", 10).priorityClass("mid", 100).priorityClass("high", 1000)
                .queue("a").reclaimable(false).end().queue("b").end()
                .job("a/low").queue("a").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("a/other").queue("a").priorityClass("mid").pods(1, GPU, 8).running("node-2").end()
                .job("a/high").queue("a").priorityClass("high").pods(1, GPU, 8).end()
                .job("b/patient").queue("b").priorityClass("mid").preemptionPolicy("Never").pods(1, GPU, 8).end();
    }

    @Test
    void aPreemptionNominatesThePreemptorsNode() {
        CycleResult r = Shipped.cycle(contested().snapshot());
        assertEquals(List.of(new Nomination("a/high-0", "node-1")), r.nominations());
    }

    @Test
    void theNominatedRoomGoesToThePreemptorNextCycle() {
        SimulationResult r = new Simulator(Shipped.scheduler()).run(contested().manifests(), 10);
        Set<String> bound = new TreeSet<>();
        r.cycles().forEach(c -> c.bindings().forEach(b -> bound.add(b.pod())));
        assertEquals(Set.of("a/high-0"), bound);
        assertTrue(r.pods().stream().anyMatch(p -> p.pod().equals("b/patient-0") && p.phase().equals("Pending")));
    }

    @Test
    void aNominatedJobStartedFirstIsNotBoundAgainWithItsOtherPods() {
        // An elastic job holds room on node-1 for its first pod (the last cycle evicted for it); its second pod fits
        // nowhere. The nominated start binds the first pod; allocation then comes back to the job for the second and
        // must not place the first again on the free node-2 (the fleet soak's "bound ... which is not pending").
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/elastic").pods(1, GPU, 8).pods(1, GPU, 16).minMember(1).phase("Inqueue").end();
        dev.arbiter.model.ClusterSnapshot s = c.snapshot();
        s = new dev.arbiter.model.ClusterSnapshot(s.nodes(), s.pods(), s.podGroups(), s.queues(), s.priorityClasses(), 0,
                java.util.Map.of("ns/elastic-0", "node-1"));
        CycleResult r = Shipped.cycle(s);
        assertEquals(List.of("ns/elastic-0"), r.bindings().stream().map(b -> b.pod()).toList());
    }
}
