package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Shipped.bound;
import static dev.arbiter.engine.cycle.Shipped.group;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** enqueue.drl: which Pending PodGroups move to Inqueue, and why the others stay Pending. */
class EnqueueRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    @Test
    void aJobThatFitsItsQueueIsAdmittedAndStarts() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/a").pods(2, GPU, 8).end().snapshot());
        assertEquals("Running", group(r.podGroups(), "ns/a").phase());
        assertEquals(2, bound(r).size());
    }

    @Test
    void aJobNamingAQueueThatDoesNotExistStaysPendingWithThatReason() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/lost").queue("nope").pods(1, GPU, 8).end().snapshot());
        PodGroupStatus g = group(r.podGroups(), "ns/lost");
        assertEquals("Pending", g.phase());
        assertEquals("queue \"nope\" does not exist", g.reason());
        assertTrue(bound(r).isEmpty());
    }

    @Test
    void aClosedQueueAdmitsNothing() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("shut").state("Closed").end()
                .job("ns/a").queue("shut").pods(1, GPU, 8).end().snapshot());
        assertEquals("Pending", group(r.podGroups(), "ns/a").phase());
        assertEquals(new Refusal.RuleSaid("queue \"shut\" is not open"), Shipped.why(r, "ns/a"));
        assertTrue(bound(r).isEmpty());
    }

    @Test
    void aJobBeyondItsQueueCapabilityStaysPending() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("small").capability(GPU, 8).end()
                .job("ns/big").queue("small").pods(2, GPU, 8).end().snapshot());
        PodGroupStatus g = group(r.podGroups(), "ns/big");
        assertEquals("Pending", g.phase());
        assertEquals("small", Shipped.part(g.why(), Refusal.AdmissionExhausted.class).queue());
    }

    @Test
    void aResourceTheJobDoesNotRequestNeverBlocksIt() {
        // The queue's capability has no room for GPUs at all, but the job asks only for CPU.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 16)
                .queue("cpu-only").capability(GPU, 0, "cpu", 8).end()
                .job("ns/etl").queue("cpu-only").pods(1, "cpu", 4).end().snapshot());
        assertEquals("Running", group(r.podGroups(), "ns/etl").phase());
    }

    @Test
    void aJobLargerThanTheWholeClusterIsNotAdmitted() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .job("ns/huge").pods(2, GPU, 8).end().snapshot());
        PodGroupStatus g = group(r.podGroups(), "ns/huge");
        assertEquals("Pending", g.phase());
        assertTrue(g.reason().startsWith("minResources exceed the cluster"), g.reason());
    }

    @Test
    void admissionGoesInJobOrderWhileTheBudgetLasts() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("q").capability(GPU, 16).end()
                .job("ns/first").queue("q").pods(2, GPU, 8).end()
                .job("ns/second").queue("q").pods(1, GPU, 8).end().snapshot());
        assertEquals("Running", group(r.podGroups(), "ns/first").phase());
        assertEquals("Pending", group(r.podGroups(), "ns/second").phase());
    }

    @Test
    void aJobsRunningMembersAreNotCountedTwiceAgainstItsQueue() {
        // One of the gang's two pods runs; the queue may hold 16. The running pod is in the queue's allocation (8),
        // so only the other 8 of the gang's minimum need room: it is admitted and completes.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("q").capability(GPU, 16).end()
                .job("ns/pair").queue("q").pods(2, GPU, 8).running("node-1").phase("Pending").end().snapshot());
        assertEquals(Set.of("ns/pair-1"), bound(r));
    }
}
