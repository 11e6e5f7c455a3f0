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

/** gang.drl: a PodGroup's tasks bind only when minMember (and each role's minTaskMember) can run together. */
class GangRulesTest {
    private static final String GPU = "nvidia.com/gpu";

    @Test
    void aGangThatFitsWhollyBindsEveryMember() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .job("ns/train").pods(4, GPU, 8).end().snapshot());
        assertEquals(4, bound(r).size());
        assertEquals("Running", group(r.podGroups(), "ns/train").phase());
    }

    @Test
    void aGangThatDoesNotFitBindsNothingAndSaysWhy() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/train").pods(4, GPU, 8).minMember(4).phase("Inqueue").end().snapshot());
        assertTrue(bound(r).isEmpty(), "all-or-nothing");
        PodGroupStatus g = group(r.podGroups(), "ns/train");
        assertEquals("Inqueue", g.phase());
        assertEquals("gang of 4 needs 4 tasks, 3 placeable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu;"
                + " preempt: nothing runs in queue \"default\"; reclaim: the gang needs nvidia.com/gpu 32 to start, but"
                + " queue \"default\" deserves nvidia.com/gpu 24 and holds none", g.reason());
        // The same reason as data: allocation's shortfall and its cause, then what each eviction step found.
        Refusal allocation = new Refusal.Because(new Refusal.GangShort(4, 3),
                new Refusal.NoNodeFits(3, java.util.Map.of("Insufficient nvidia.com/gpu", 3)));
        Refusal preempt = new Refusal.Attempted("preempt", new Refusal.NothingRuns("default"));
        Refusal reclaim = new Refusal.Attempted("reclaim", new Refusal.TooLarge("default",
                dev.arbiter.model.Resources.of(GPU, 32), dev.arbiter.model.Resources.of(GPU, 24),
                dev.arbiter.model.Resources.NONE));
        assertEquals(new Refusal.Also(new Refusal.Also(allocation, preempt), reclaim), g.why());
    }

    @Test
    void theReleasedPlacementsOfAFailedGangGoToTheNextJob() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/big").pods(4, GPU, 8).phase("Inqueue").end()
                .job("ns/small").pods(2, GPU, 8).phase("Inqueue").end().snapshot());
        assertEquals(Set.of("ns/small-0", "ns/small-1"), bound(r));
    }

    @Test
    void anElasticGangStartsWithMinMemberAndBindsWhatFits() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/elastic").pods(4, GPU, 8).minMember(2).end().snapshot());
        assertEquals(3, bound(r).size(), "three of four fit; two are enough to start");
    }

    @Test
    void eachRoleMustReachItsMinTaskMember() {
        // Room for 2 pods; the job needs 1 master and 2 workers.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/pt").pods("master", 1, GPU, 8).pods("worker", 2, GPU, 8).minMember(2)
                .minTaskMember("worker", 2).phase("Inqueue").end().snapshot());
        assertTrue(bound(r).isEmpty(), "two pods fit, but the worker role needs two of its own");
    }

    @Test
    void aRunningGangsExtraPodsBindOneByOne() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/elastic").pods(3, GPU, 8).minMember(2).running("node-1", "node-2").end().snapshot());
        assertEquals(Set.of("ns/elastic-2"), bound(r));
    }

    @Test
    void perRoleMinimumsDoNotCountWhenMinMemberIsBelowTheirSum() {
        // A Volcano Job's PodGroup: the job controller writes a minimum for every role (1 + 3), and the job's
        // minAvailable (2) is below their sum, so only minMember counts, as in Volcano. Roles are labels only.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/vcjob").pods("master", 1, GPU, 8).pods("worker", 3, GPU, 8).minMember(2)
                .minTaskMember("master", 1).minTaskMember("worker", 3).roleAsLabel().phase("Inqueue").end().snapshot());
        assertEquals(2, bound(r).size());
    }

    @Test
    void aRoleBelowItsMinimumHoldsTheGangBackAndSaysWhichRole() {
        // minMember 3 covers the roles' minimums (1 master + 2 workers); room for 3 pods, but the ps pod was created
        // before the workers and takes the third place.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/roles").pods("master", 1, GPU, 8).pods("ps", 1, GPU, 8).pods("worker", 2, GPU, 8).minMember(3)
                .minTaskMember("master", 1).minTaskMember("worker", 2).roleAsLabel().phase("Inqueue").end().snapshot());
        assertTrue(bound(r).isEmpty());
        assertEquals(new Refusal.RoleShort("worker", 2, 1), Shipped.part(Shipped.why(r, "ns/roles"), Refusal.Because.class).what());
    }

    @Test
    void aHalfBoundGangIsCompletedWhenThereIsRoom() {
        // One member runs (a bind that failed halfway, say); the other is pending and a node is free. Admission must
        // not count the running member twice (in the queue's allocation and in the gang's minimum).
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/pair").pods(2, GPU, 8).running("node-1").phase("Pending").end().snapshot());
        assertEquals(Set.of("ns/pair-1"), bound(r));
    }

    @Test
    void podsWithoutRequestsBindEvenWhenTheirQueueHasItsShare() {
        // The queue deserves nothing (its pods request nothing it shares) and so is "overused": BestEffort pods only
        // need a pod slot on a node.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .job("ns/hog").pods(1, GPU, 8).running("node-1").end()
                .job("ns/helpers").pods(3).end().snapshot());
        assertEquals(3, bound(r).size());
        assertEquals("Running", group(r.podGroups(), "ns/helpers").phase());
    }
}
