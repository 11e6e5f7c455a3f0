package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;

import static dev.arbiter.engine.cycle.Shipped.queue;
import static dev.arbiter.engine.cycle.Shipped.units;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * deploy/policies/capacity: explicit deserved shares, capability as hard maximum, and reclaim as Volcano's capacity plugin
 * (flat queues): who may reclaim and which victims, from capacity_test.go's Test_capacityPlugin_OnSessionOpenWithoutHierarchy
 * (its reclaim cases: 2, 3, 5 to 10). Queue trees: CapacityHierarchyTest.
 */
class CapacityPackTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final RuleBook CAPACITY = RuleBook.load(Path.of("deploy/policies/capacity"));

    private static CycleResult cycle(ClusterBuilder c) {
        return new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(), 1);
    }

    @Test
    void theDeservedShareIsWhatTheQueueSays() {
        CycleResult r = cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").weight(1).deserved(GPU, 24).end().queue("b").weight(100).deserved(GPU, 8).end()
                .job("a/w").queue("a").pods(1, GPU, 1).end());
        assertEquals(24, units(queue(r.queues(), "a").deserved(), GPU), "weights do not matter");
        assertEquals(8, units(queue(r.queues(), "b").deserved(), GPU), "nor does demand");
    }

    @Test
    void aQueueBorrowsUpToItsCapabilityButNotPast() {
        CycleResult r = cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").deserved(GPU, 8).capability(GPU, 24).end()
                .job("a/w").queue("a").pods(4, GPU, 8).minMember(1).phase("Inqueue").end());
        assertEquals(3, r.bindings().size());
    }

    @Test
    void reclaimTakesBackDownToTheDeservedShare() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").deserved(GPU, 8).end().queue("b").deserved(GPU, 24).end();
        for (int i = 1; i <= 4; i++) c.job("a/j" + i).queue("a").pods(1, GPU, 8).running("node-" + i).end();
        // Four jobs of one pod each: a starving job reclaims only what it needs to start.
        for (int i = 1; i <= 4; i++) c.job("b/want" + i).queue("b").pods(1, GPU, 8).end();
        CycleResult r = cycle(c);
        assertEquals(3, r.evictions().size(), "a keeps its deserved 8");
        assertTrue(r.evictions().stream().allMatch(e -> e.action().equals("reclaim")));
    }

    @Test
    void theShippedProportionPackDividesByWeightInstead() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").weight(1).deserved(GPU, 24).end().queue("b").weight(1).deserved(GPU, 8).end()
                .job("a/w").queue("a").pods(32, GPU, 1).minMember(1).phase("Inqueue").end()
                .job("b/w").queue("b").pods(32, GPU, 1).minMember(1).phase("Inqueue").end().snapshot());
        assertEquals(16, units(queue(r.queues(), "a").deserved(), GPU));
        assertEquals(16, units(queue(r.queues(), "b").deserved(), GPU));
    }

    // ---- reclaim, from Volcano's capacity_test.go (Test_capacityPlugin_OnSessionOpenWithoutHierarchy) -------------
    // Pods started long before the snapshot (no minimum runtime holds them); "np" pods are marked not preemptable.

    private static java.util.Set<String> reclaimed(ClusterBuilder c) {
        CycleResult r = new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(1000), 1);
        return Shipped.evicted(r);
    }

    @Test
    void case2_aQueueBelowItsDeservedShareReclaims() {
        // "Can reclaim from other queues when allocated < deserved": q4 takes back p6 (p5 is not preemptable).
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, "cpu", 2, "memory", "4Gi")
                .queue("q3").deserved("cpu", 2, "memory", "4Gi").end().queue("q4").deserved("cpu", 2, "memory", "4Gi").end()
                .job("ns/p5").queue("q3").pods(1, "cpu", 2, "memory", "4Gi").running("node-1").startedAt(0).notPreemptable().end()
                .job("ns/p6").queue("q3").pods(1, "cpu", 2, "memory", "4Gi").running("node-2").startedAt(0).end()
                .job("ns/p7").queue("q4").pods(1, "cpu", 2, "memory", "4Gi").end();
        assertEquals(java.util.Set.of("ns/p6-0"), reclaimed(c));
    }

    @Test
    void case5_aJobUnderTheDeservedShareInOneResourceItAsksForReclaims() {
        // "Can reclaim when allocated + req <= deserved on one dimension": q10 holds 3Gi of its 2Gi memory but 1 of its
        // 2 cpus; p17 asks 1 cpu and 1Gi. Volcano's capacity plugin lets it reclaim (cpu fits); proportion would not.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 2, "memory", "4Gi")
                .queue("q10").deserved("cpu", 2, "memory", "2Gi").capability("cpu", 4, "memory", "4Gi").end()
                .queue("q11").capability("cpu", 2, "memory", "2Gi").end()
                .job("ns/p16").queue("q10").pods(1, "cpu", 1, "memory", "3Gi").running("node-1").startedAt(0).end()
                .job("ns/p18").queue("q11").pods(1, "cpu", 1, "memory", "1Gi").running("node-1").startedAt(0).end()
                .job("ns/p17").queue("q10").pods(1, "cpu", 1, "memory", "1Gi").end();
        assertEquals(java.util.Set.of("ns/p18-0"), reclaimed(c));
        assertEquals(java.util.Set.of(), evictedBy(Shipped.RULES, c), "the shipped proportion policy asks for every resource");
    }

    @Test
    void case6_aJobOverTheDeservedShareInEveryResourceItAsksForDoesNot() {
        // "Cannot reclaim when allocated + req > deserved": q12 would hold 2 cpus of 1 and 3Gi of 2Gi.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 2, "memory", "4Gi")
                .queue("q12").deserved("cpu", 1, "memory", "2Gi").capability("cpu", 4, "memory", "4Gi").end()
                .queue("q13").capability("cpu", 2, "memory", "2Gi").end()
                .job("ns/p19").queue("q12").pods(1, "cpu", 1, "memory", "1Gi").running("node-1").startedAt(0).end()
                .job("ns/p21").queue("q13").pods(1, "cpu", 1, "memory", "1Gi").running("node-1").startedAt(0).end()
                .job("ns/p20").queue("q12").pods(1, "cpu", 1, "memory", "2Gi").end();
        assertEquals(java.util.Set.of(), reclaimed(c));
    }

    @Test
    void case8_onlyAVictimInAResourceTheReclaimerNeedsGoes() {
        // "Reclaimer dimensions considered": p30 asks 1 cpu and 1 GPU; q18 is over its cpu share with it but under its
        // GPU share. Of q17's pods, p26 holds only memory (not needed), p27 a cpu q17 holds below its share; p28 the GPU.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 4, "memory", "8Gi", GPU, 1)
                .queue("q17").deserved("cpu", 2, "memory", "2Gi").end()
                .queue("q18").deserved("cpu", 2, "memory", "4Gi", GPU, 1).end()
                .job("ns/p26").queue("q17").pods(1, "memory", "4Gi").running("node-1").startedAt(0).end()
                .job("ns/p27").queue("q17").pods(1, "cpu", 1).running("node-1").startedAt(0).end()
                .job("ns/p28").queue("q17").pods(1, GPU, 1).running("node-1").startedAt(0).end()
                .job("ns/p29").queue("q18").pods(1, "cpu", 2, "memory", "4Gi").running("node-1").startedAt(0).end()
                .job("ns/p30").queue("q18").pods(1, "cpu", 1, GPU, 1).end();
        assertEquals(java.util.Set.of("ns/p28-0"), reclaimed(c));
    }

    @Test
    void case3_aTaskAskingOnlyForAResourceItsQueueIsUnderReclaimsIt() {
        // "CPU & Memory are overused, scalar resource is not overused, but candidate pod has not request CPU & Memory":
        // q6 holds twice its cpu and memory but none of its A100s; p12 asks only A100s, which q5 holds twice of.
        String a100 = "nvidia.com/A100";
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, "cpu", 2, "memory", "4Gi", a100, 10)
                .queue("q5").deserved("cpu", 2, "memory", "4Gi", a100, 10).end()
                .queue("q6").deserved("cpu", 2, "memory", "4Gi", a100, 10).end()
                .job("ns1/p8").queue("q5").pods(1, a100, 10).running("node-1").startedAt(0).notPreemptable().end()
                .job("ns1/p9").queue("q5").pods(1, a100, 10).running("node-2").startedAt(0).end()
                .job("ns1/pg8").queue("q6").pods(2, "cpu", 2, "memory", "4Gi").running("node-1", "node-2").startedAt(0).end()
                .job("ns1/p12").queue("q6").pods(1, a100, 10).end();
        assertEquals(java.util.Set.of("ns1/p9-0"), reclaimed(c));
    }

    @Test
    void case7_aVictimQueueNotOverItsShareInWhatItsTaskAsksKeepsIt() {
        // "allocated does not contain scalar dimension (GPU), deserved does; should not reclaim": p25 needs 2 cpus.
        // queue14's p22 (cpu and memory, both within its share) is no victim; queue15's p23 (no deserved share: it goes
        // at once) frees only a GPU, so no plan starts p25 and nothing is evicted.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 4, "memory", "8Gi", GPU, 4)
                .queue("queue14").deserved("cpu", 2, "memory", "4Gi", GPU, 2).end()
                .queue("queue15").end()
                .queue("queue16").deserved("cpu", 2, "memory", "4Gi", GPU, 2).end()
                .job("ns1/p22").queue("queue14").pods(1, "cpu", 2, "memory", "4Gi").running("node-1").startedAt(0).end()
                .job("ns1/p23").queue("queue15").pods(1, GPU, 1).running("node-1").startedAt(0).end()
                .job("ns1/p24").queue("queue16").pods(1, "cpu", 2, "memory", "1Gi", GPU, 1).running("node-1").startedAt(0).end()
                .job("ns1/p25").queue("queue16").pods(1, "cpu", 2, "memory", "3Gi", GPU, 1).end();
        assertEquals(java.util.Set.of(), reclaimed(c));
    }

    @Test
    void case9_aResourceTheDeservedShareDoesNotNameMakesNoVictim() {
        // "reclaimee has intersecting scalar dimensions with deserved shouldn't be reclaimed on cpu/memory": queue19
        // deserves one GPU and names no cpu or memory; p31 holds every cpu but only its one GPU, so it is no victim.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 4, "memory", "8Gi", GPU, 1)
                .queue("queue19").deserved(GPU, 1).end()
                .queue("queue20").deserved("cpu", 2, "memory", "2Gi").end()
                .job("ns1/p31").queue("queue19").pods(1, "cpu", 4, "memory", "4Gi", GPU, 1).running("node-1").startedAt(0).end()
                .job("ns1/p32").queue("queue20").pods(1, "cpu", 1, "memory", "1Gi").end();
        assertEquals(java.util.Set.of(), reclaimed(c));
    }

    @Test
    void case10_noReclaimPastTheReclaimersCapability() {
        // "PreemptiveFn respects capability": queue21 holds 7 of its 8 cpus; p34 asks 2.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, "cpu", 8, "memory", "100Gi")
                .queue("queue21").deserved("cpu", 8, "memory", "100Gi").capability("cpu", 8, "memory", "100Gi").end()
                .queue("queue22").capability("cpu", 2, "memory", "5Gi").end()
                .job("ns1/p33").queue("queue21").pods(1, "cpu", 7, "memory", "90Gi").running("node-1").startedAt(0).end()
                .job("ns1/p35").queue("queue22").pods(1, "cpu", 2, "memory", "5Gi").running("node-2").startedAt(0).end()
                .job("ns1/p34").queue("queue21").pods(1, "cpu", 2, "memory", "5Gi").end();
        CycleResult r = new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(1000), 1);
        assertEquals(java.util.Set.of(), Shipped.evicted(r));
        assertEquals(0, r.bindings().size(), "nor is p34 placed past the capability");
    }

    @Test
    void aVictimQueueMayEndBelowItsDeservedShare() {
        // No floor: q17 holds 6 GPUs of its deserved 4 in pods of 3; the first pod taken leaves it at 3, below its share.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 16, "memory", "64Gi", GPU, 8)
                .queue("q17").deserved(GPU, 4).end()
                .queue("q18").deserved(GPU, 4).end()
                .job("ns1/a").queue("q17").pods(1, GPU, 3).running("node-1").startedAt(0).end()
                .job("ns1/b").queue("q17").pods(1, GPU, 3).running("node-1").startedAt(0).end()
                .job("ns1/want").queue("q18").pods(1, GPU, 4).end();
        assertEquals(1, reclaimed(c).size());
        assertEquals(java.util.Set.of(), evictedBy(Shipped.RULES, c),
                "the shipped floor keeps q17 at its share of 4, and taking one pod of 3 would leave it at 3");
    }

    @Test
    void aVictimQueueKeepsItsWholeGuarantee() {
        // The guarantee is checked over every resource it names, after the victim is gone.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, "cpu", 16, "memory", "64Gi", GPU, 8)
                .queue("q17").deserved(GPU, 2).guarantee(GPU, 8).end()
                .queue("q18").deserved(GPU, 4).end()
                .job("ns1/a").queue("q17").pods(2, GPU, 4).minMember(1).running("node-1", "node-1").startedAt(0).end()
                .job("ns1/want").queue("q18").pods(1, GPU, 4).end();
        assertEquals(java.util.Set.of(), reclaimed(c));
    }

    private static java.util.Set<String> evictedBy(RuleBook rules, ClusterBuilder c) {
        return Shipped.evicted(new Scheduler(rules, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(1000), 1));
    }
}
