package dev.arbiter.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each counter of {@link FleetAudit} on a hand-made cycle that must trip it (and a lean twin that must not), and the
 * real engine through the simulator's observer on the seed story's shape, which must count one clean reclaim.
 */
class FleetAuditTest {
    private static final String GPU = "nvidia.com/gpu";

    private static Eviction reclaim(String pod, String node, String forGroup) {
        return new Eviction(pod, node, "reclaim", forGroup, "test", "test");
    }

    private static Eviction preempt(String pod, String node, String forGroup) {
        return new Eviction(pod, node, "preempt", forGroup, "test", "test");
    }

    private static QueueStatus queue(String name, int deservedGpus, int allocatedGpus) {
        return new QueueStatus(name, "root", 1, "Open", Resources.of(GPU, deservedGpus), Resources.of(GPU, allocatedGpus),
                0, 0, 0);
    }

    private static CycleResult cycle(List<Eviction> ev, List<Nomination> noms, List<QueueStatus> queues) {
        return new CycleResult(1, "test", List.of(), ev, List.of(), queues, Map.of(), Map.of(), noms, -1);
    }

    private static FleetAudit.Counts audit(ClusterSnapshot snap, CycleResult r) {
        FleetAudit a = new FleetAudit(GPU);
        a.observe(snap, r);
        return a.counts();
    }

    /** Queue b deserves 8 GPUs and holds 12 in three 4-GPU jobs; a's 8-GPU pod reclaims two of them. */
    private static ClusterSnapshot threeSmallJobs() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").end()
                .job("b/x").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("b/y").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("b/z").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-2").end()
                .job("a/new").queue("a").pods(1, GPU, 8, "cpu", 1).end()
                .snapshot();
    }

    @Test
    void aReclaimThatLeavesTheVictimQueueBelowItsFloorIsAViolation() {
        CycleResult r = cycle(List.of(reclaim("b/x-0", "node-1", "a/new"), reclaim("b/y-0", "node-1", "a/new")),
                List.of(new Nomination("a/new-0", "node-1")), List.of(queue("a", 8, 8), queue("b", 8, 4)));
        FleetAudit.Counts c = audit(threeSmallJobs(), r);
        assertEquals(1, c.reclaimGroups());
        assertEquals(2, c.reclaimVictims());
        assertEquals(1, c.floorViolations(), c.render());
        assertEquals(0, c.floorLastResort(), c.render());
        assertEquals(0, c.nonMinimalPlans(), "both victims were needed for the 8-GPU pod");
        assertEquals(0, c.overFreedReclaim());
    }

    @Test
    void aGuaranteeAboveTheDeservedShareIsTheFloor() {
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").guarantee(GPU, 10).end()
                .job("b/x").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("b/y").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-2").end()
                .job("b/z").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-2").end()
                .job("a/new").queue("a").pods(1, GPU, 4, "cpu", 1).end()
                .snapshot();
        // Deserved 4: 12 -> 8 stays above it, but the guarantee of 10 is the floor.
        CycleResult r = cycle(List.of(reclaim("b/x-0", "node-1", "a/new")), List.of(new Nomination("a/new-0", "node-1")),
                List.of(queue("a", 4, 4), queue("b", 4, 8)));
        assertEquals(1, audit(snap, r).floorViolations());
    }

    @Test
    void aReclaimThatKeepsTheFloorIsNoViolation() {
        // Queue b deserves 4: 12 -> 4 is at its floor, not below.
        CycleResult r = cycle(List.of(reclaim("b/x-0", "node-1", "a/new"), reclaim("b/y-0", "node-1", "a/new")),
                List.of(new Nomination("a/new-0", "node-1")), List.of(queue("a", 12, 8), queue("b", 4, 4)));
        FleetAudit.Counts c = audit(threeSmallJobs(), r);
        assertEquals(0, c.floorViolations() + c.floorLastResort(), c.render());
    }

    @Test
    void aQueueThatPreemptionInsideItTookBelowItsFloorIsNotReclaimsDoing() {
        // b deserves 10 and holds 12; b/hi (1 GPU) preempts b/z (4) first: 9, below the floor before reclaim takes b/x.
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").end()
                .job("b/x").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("b/y").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("b/z").queue("b").pods(1, GPU, 4, "cpu", 1).running("node-2").end()
                .job("b/hi").queue("b").pods(1, GPU, 1, "cpu", 1).end()
                .job("a/new").queue("a").pods(1, GPU, 4, "cpu", 1).end()
                .snapshot();
        CycleResult r = cycle(List.of(preempt("b/z-0", "node-2", "b/hi"), reclaim("b/x-0", "node-1", "a/new")),
                List.of(new Nomination("b/hi-0", "node-2"), new Nomination("a/new-0", "node-1")),
                List.of(queue("a", 6, 4), queue("b", 10, 5)));
        FleetAudit.Counts c = audit(snap, r);
        assertEquals(0, c.floorViolations() + c.floorLastResort(), c.render());
    }

    @Test
    void aWholeJobLargerThanTheFloorIsTheLastResortAndFreesMoreThanNeeded() {
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").end()
                .job("b/big").queue("b").pods(2, GPU, 8, "cpu", 1).minMember(2).running("node-1", "node-2").end()
                .job("a/new").queue("a").pods(1, GPU, 8, "cpu", 1).end()
                .snapshot();
        CycleResult r = cycle(List.of(reclaim("b/big-0", "node-1", "a/new"), reclaim("b/big-1", "node-2", "a/new")),
                List.of(new Nomination("a/new-0", "node-1")), List.of(queue("a", 8, 8), queue("b", 8, 0)));
        FleetAudit.Counts c = audit(snap, r);
        assertEquals(0, c.floorViolations(), c.render());
        assertEquals(1, c.floorLastResort(), c.render());
        assertEquals(1, c.overFreedReclaim(), "16 GPUs freed for an 8-GPU pod");
        assertEquals(8, c.gpusBeyondReclaim());
        assertEquals(0, c.nonMinimalPlans(), "the gang goes whole or not at all");
    }

    /** Queue a's 4-GPU high-priority pod preempts on node-1, full with two 4-GPU jobs of its queue. */
    private static ClusterSnapshot twoLowJobs() {
        return ClusterBuilder.cluster().nodes(1, GPU, 8, "cpu", 64)
                .queue("a").end()
                .job("a/low1").queue("a").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("a/low2").queue("a").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("a/high").queue("a").pods(1, GPU, 4, "cpu", 1).end()
                .snapshot();
    }

    @Test
    void anExtraVictimMakesAPlanNonMinimal() {
        CycleResult r = cycle(List.of(preempt("a/low1-0", "node-1", "a/high"), preempt("a/low2-0", "node-1", "a/high")),
                List.of(new Nomination("a/high-0", "node-1")), List.of(queue("a", 8, 4)));
        FleetAudit a = new FleetAudit(GPU);
        a.observe(twoLowJobs(), r);
        FleetAudit.Counts c = a.counts();
        assertEquals(1, c.preemptGroups());
        assertEquals(1, c.nonMinimalPlans(), c.render());
        assertEquals(1, c.overFreedPreempt());
        assertEquals(4, c.gpusBeyondPreempt());
        assertTrue(a.findings().get(0).contains("a/high"), a.findings().toString());
    }

    @Test
    void aLeanPlanIsMinimal() {
        CycleResult r = cycle(List.of(preempt("a/low1-0", "node-1", "a/high")),
                List.of(new Nomination("a/high-0", "node-1")), List.of(queue("a", 8, 8)));
        FleetAudit.Counts c = audit(twoLowJobs(), r);
        assertEquals(0, c.nonMinimalPlans(), c.render());
        assertEquals(0, c.overFreedPreempt(), c.render());
    }

    @Test
    void aVictimTheQueueCapabilityNeededIsNotExtra() {
        // Queue a may hold 4 GPUs: with low2 kept, high would take it to 8.
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 64)
                .queue("a").capability(GPU, 8).end()
                .job("a/low1").queue("a").pods(1, GPU, 4, "cpu", 1).running("node-1").end()
                .job("a/low2").queue("a").pods(1, GPU, 4, "cpu", 1).running("node-2").end()
                .job("a/high").queue("a").pods(1, GPU, 8, "cpu", 1).end()
                .snapshot();
        CycleResult r = cycle(List.of(preempt("a/low1-0", "node-1", "a/high"), preempt("a/low2-0", "node-2", "a/high")),
                List.of(new Nomination("a/high-0", "node-1")), List.of(queue("a", 8, 8)));
        FleetAudit.Counts c = audit(snap, r);
        assertEquals(0, c.nonMinimalPlans(), c.render());
    }

    @Test
    void aCpuOnlyPodEvictingAGpuPodWithCpuIdleIsCounted() {
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(1, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").end()
                .job("b/gpu").queue("b").pods(1, GPU, 8, "cpu", 8).running("node-1").end()
                .job("a/cpu").queue("a").pods(1, "cpu", 4).end()
                .snapshot();
        CycleResult r = cycle(List.of(reclaim("b/gpu-0", "node-1", "a/cpu")),
                List.of(new Nomination("a/cpu-0", "node-1")), List.of(queue("a", 4, 0), queue("b", 4, 0)));
        FleetAudit.Counts c = audit(snap, r);
        assertEquals(1, c.cpuOnlyEvictingGpu(), c.render());
        assertEquals(1, c.nonMinimalPlans(), "the CPU was idle: the GPU pod could have stayed");
    }

    @Test
    void aCpuOnlyPodThatNeededTheRoomIsNotCounted() {
        ClusterSnapshot snap = ClusterBuilder.cluster().nodes(1, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").end()
                .job("b/gpu").queue("b").pods(1, GPU, 8, "cpu", 62).running("node-1").end()
                .job("a/cpu").queue("a").pods(1, "cpu", 4).end()
                .snapshot();
        CycleResult r = cycle(List.of(reclaim("b/gpu-0", "node-1", "a/cpu")),
                List.of(new Nomination("a/cpu-0", "node-1")), List.of(queue("a", 4, 0), queue("b", 4, 0)));
        FleetAudit.Counts c = audit(snap, r);
        assertEquals(0, c.cpuOnlyEvictingGpu(), c.render());
        assertEquals(0, c.nonMinimalPlans(), c.render());
    }

    @Test
    void theRealEngineThroughTheSimulatorsObserverCountsOneCleanReclaim() {
        // The seed story's shape: b's elastic job fills the four nodes; a's gang of two arrives at cycle 61 (past the
        // minimum runtime) and reclaims two of b's workers, leaving both queues at their deserved 16 GPUs. (The pods
        // ask for GPUs only: a queue holds its deserved share of a resource nobody lacks, which reclaim keeps.)
        var m = ClusterBuilder.cluster().nodes(4, GPU, 8, "cpu", 64)
                .queue("a").end().queue("b").end()
                .job("b/train").queue("b").pods(4, GPU, 8).minMember(1)
                        .running("node-1", "node-2", "node-3", "node-4").end()
                .job("a/serve").queue("a").pods(2, GPU, 8).arrival(61).end()
                .manifests();
        FleetAudit a = new FleetAudit(GPU);
        SimulationResult result = new Simulator(new Scheduler(RuleBook.load(Path.of("rules")), SchedulerConfig.simulatorDefault()))
                .run(m, Simulator.Options.defaults(100), a::observe);
        FleetAudit.Counts c = a.counts();
        assertEquals(result.cycles().size(), c.cycles());
        assertEquals(1, c.reclaimGroups(), c.render());
        assertEquals(2, c.reclaimVictims(), c.render());
        assertEquals(0, c.floorViolations() + c.floorLastResort() + c.nonMinimalPlans() + c.overFreedReclaim()
                + c.cpuOnlyEvictingGpu() + c.unnominatedGroups(), c.render() + a.findings());
    }
}
