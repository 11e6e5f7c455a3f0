package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.bound;
import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * priority.drl: job and task priorities come from PriorityClasses (or the global default), and preemptionPolicy
 * Never stops a job from preempting. Observed through which of two competing jobs gets the only free node.
 */
class PriorityRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    private static ClusterBuilder oneNodeTwoJobs(String firstClass, String secondClass) {
        return ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000).priorityClass("mid", 100, true)
                .job("ns/first").priorityClass(firstClass).pods(1, GPU, 8).phase("Inqueue").end()
                .job("ns/second").priorityClass(secondClass).pods(1, GPU, 8).phase("Inqueue").end();
    }

    @Test
    void aJobTakesTheValueOfItsPriorityClass() {
        CycleResult r = Shipped.cycle(oneNodeTwoJobs("low", "high").snapshot());
        assertEquals(Set.of("ns/second-0"), bound(r), "the later but higher-priority job goes first");
    }

    @Test
    void aJobWithoutAClassTakesTheDefaultClass() {
        // first has no class -> default "mid" (100) beats "low" (10) even though second... is created later anyway.
        CycleResult r = Shipped.cycle(oneNodeTwoJobs("low", null).snapshot());
        assertEquals(Set.of("ns/second-0"), bound(r));
    }

    @Test
    void anUnknownPriorityClassCountsAsZero() {
        CycleResult r = Shipped.cycle(oneNodeTwoJobs("no-such-class", "low").snapshot());
        assertEquals(Set.of("ns/second-0"), bound(r), "low (10) beats unknown (0)");
    }

    @Test
    void equalPrioritiesGoInCreationOrder() {
        CycleResult r = Shipped.cycle(oneNodeTwoJobs("high", "high").snapshot());
        assertEquals(Set.of("ns/first-0"), bound(r));
    }

    private static ClusterBuilder fullNodeAndPreemptor(String preemptorClass, String podPolicy) {
        return ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10)
                .priorityClassSpec(new PriorityClassSpec("urgent", 1000, false, "PreemptLowerPriority"))
                .priorityClassSpec(new PriorityClassSpec("urgent-never", 1000, false, "Never"))
                .job("ns/victim").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("ns/urgent").priorityClass(preemptorClass).preemptionPolicy(podPolicy).pods(1, GPU, 8).phase("Inqueue").end();
    }

    @Test
    void aHigherPriorityJobPreempts() {
        assertEquals(Set.of("ns/victim-0"), evicted(Shipped.cycle(fullNodeAndPreemptor("urgent", null).snapshot())));
    }

    @Test
    void aJobWhosePriorityClassSaysNeverDoesNotPreempt() {
        assertTrue(evicted(Shipped.cycle(fullNodeAndPreemptor("urgent-never", null).snapshot())).isEmpty());
    }

    @Test
    void aJobWhosePodSaysNeverDoesNotPreempt() {
        assertTrue(evicted(Shipped.cycle(fullNodeAndPreemptor("urgent", "Never").snapshot())).isEmpty());
    }

    @Test
    void aPodGroupWithoutAClassTakesTheHighestPriorityOfItsPods() {
        // The seed's LeaderWorkerSet: the PodGroup names no class, its pods are urgent; it preempts as urgent.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("urgent", 1000).priorityClass("mid", 100, true)
                .job("ns/victim").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("ns/lws").podPriorityClass("urgent").pods(1, GPU, 8).phase("Inqueue").end().snapshot());
        assertEquals(Set.of("ns/victim-0"), evicted(r));
        assertTrue(r.rulesFiredOn("PodGroup", "ns/lws")
                .contains("priority: a PodGroup that names no priority class takes the highest priority of its pods"));
    }
}
