package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.bound;
import static dev.arbiter.engine.cycle.Shipped.evicted;
import static dev.arbiter.engine.cycle.Shipped.queue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Refusal;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lending limits (lending.drl, the fair-share step's kept shares, allocation's {@link KeptRoom}), on the shipped rules.
 *
 * <p>The table translates Kueue's cases that exercise {@code lendingLimit} (kubernetes-sigs/kueue, main of
 * 2026-08-22), with a ClusterQueue's {@code nominalQuota} as a Volcano Queue's weight on a cluster of the cohort's
 * size (so the weighted share of a busy queue is its nominal quota), and the workloads as jobs of one pod:
 * <ul>
 *   <li>{@code pkg/scheduler/scheduler_test.go} "hierarchical cohort respects lending limit when borrowing" and
 *       "hierarchical cohort allows borrowing up to lending limit" (the cohort tree is one level here: Volcano's
 *       parents hold no quota of their own);</li>
 *   <li>{@code pkg/scheduler/flavorassigner/flavorassigner_test.go} "not enough space to borrow" (one flavor);</li>
 *   <li>{@code pkg/scheduler/preemption/preemption_test.go} "cannot preempt from other ClusterQueues if exceeds
 *       requestable quota including lending limit" and "reclaim quota from lender" (the lend1/lend2 queues: nominal 6
 *       each, lending limits 4 and 2).</li>
 * </ul>
 * Kueue reaches some of these outcomes by other paths (its requestable quota); where Arbiter's reason differs, the
 * case says so.
 */
class LendingLimitTest {
    private static final String GPU = "nvidia.com/gpu";
    /** Long enough ago that the minimum runtime protects nothing. */
    private static final long OLD = 0;
    private static final long NOW = 10_000;

    record Case(Function<ClusterBuilder, ClusterBuilder> cluster, Set<String> bound, Set<String> evicted,
                Class<? extends Refusal> pendingBecause, String pending) {}

    static Stream<Arguments> kueueCases() {
        return Stream.of(
                // lender(10, lendingLimit 3), borrower(5) using 5: only 3 are lendable, the 4-CPU workload waits.
                c("scheduler_test: hierarchical cohort respects lending limit when borrowing",
                        b -> b.nodes(1, "cpu", 15)
                                .queue("lender").weight(10).lendingLimit("cpu", 3).end()
                                .queue("borrower").weight(5).end()
                                .job("eng/existing").queue("borrower").pods(1, "cpu", 5).running("node-1").startedAt(OLD).end()
                                .job("eng/pending").queue("borrower").pods(1, "cpu", 4).end(),
                        Set.of(), Set.of(), Refusal.KeptByLenders.class, "eng/pending"),
                // The same with lendingLimit 5: the 5-CPU workload borrows exactly what is lendable.
                c("scheduler_test: hierarchical cohort allows borrowing up to lending limit",
                        b -> b.nodes(1, "cpu", 15)
                                .queue("lender").weight(10).lendingLimit("cpu", 5).end()
                                .queue("borrower").weight(5).end()
                                .job("eng/existing").queue("borrower").pods(1, "cpu", 5).running("node-1").startedAt(OLD).end()
                                .job("eng/borrowing").queue("borrower").pods(1, "cpu", 5).end(),
                        Set.of("eng/borrowing-0"), Set.of(), null, null),
                // secondary(10, lendingLimit 0) using 9; the queue (1) asks for 2: the free CPU is the secondary's.
                c("flavorassigner_test: not enough space to borrow",
                        b -> b.nodes(1, "cpu", 11)
                                .queue("secondary").weight(10).lendingLimit("cpu", 0).end()
                                .queue("test").weight(1).end()
                                .job("s/used").queue("secondary").pods(1, "cpu", 9).running("node-1").startedAt(OLD).end()
                                .job("t/wl").queue("test").pods(1, "cpu", 2).end(),
                        Set.of(), Set.of(), Refusal.KeptByLenders.class, "t/wl"),
                // lend2 holds 10 (its 4 kept and all 6 lendable); lend1 may use at most 2 + 6 = 8 and asks for 9.
                // Kueue: past the requestable quota; Arbiter: a job larger than the queue's deserved share (6) never
                // reclaims, so nothing is evicted either.
                c("preemption_test: cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit",
                        b -> b.nodes(1, "cpu", 12).priorityClass("low", -1)
                                .queue("lend1").weight(6).lendingLimit("cpu", 4).end()
                                .queue("lend2").weight(6).lendingLimit("cpu", 2).end()
                                .job("l2/low").queue("lend2").priorityClass("low").pods(1, "cpu", 10).running("node-1").startedAt(OLD).end()
                                .job("l1/in").queue("lend1").pods(1, "cpu", 9).end(),
                        Set.of(), Set.of(), null, "l1/in"),
                // lend1 holds 3, lend2 7 (3 at priority 0, 4 at priority 1); lend1's 3-CPU workload would reclaim.
                // Kueue evicts lend2's priority-0 workload, leaving lend2 at 4, below its nominal 6. Arbiter's reclaim
                // leaves a victim queue at its floor (docs/volcano-differences.md, "Reclaimable victim queue"): either
                // victim takes lend2 below 6, so nothing is evicted and the workload waits. (Kueue's lend1 also runs
                // a priority -1 workload, which its preemption leaves: it prefers reclaiming borrowed quota. Arbiter
                // preempts inside the queue first, so that workload runs at lend1's incoming priority here, to ask the
                // same question of reclaim.) The lending limits change nothing here: each queue holds its kept share.
                c("preemption_test: reclaim quota from lender",
                        b -> b.nodes(1, "cpu", 12).priorityClass("mid", 0).priorityClass("high", 1)
                                .queue("lend1").weight(6).lendingLimit("cpu", 4).end()
                                .queue("lend2").weight(6).lendingLimit("cpu", 2).end()
                                .job("l1/low").queue("lend1").priorityClass("high").pods(1, "cpu", 3).running("node-1").startedAt(OLD).end()
                                .job("l2/mid").queue("lend2").priorityClass("mid").pods(1, "cpu", 3).running("node-1").startedAt(OLD).end()
                                .job("l2/high").queue("lend2").priorityClass("high").pods(1, "cpu", 4).running("node-1").startedAt(OLD).end()
                                .job("l1/in").queue("lend1").priorityClass("high").pods(1, "cpu", 3).end(),
                        Set.of(), Set.of(), null, "l1/in"));
    }

    private static Arguments c(String name, Function<ClusterBuilder, ClusterBuilder> cluster, Set<String> bound,
                               Set<String> evicted, Class<? extends Refusal> because, String pending) {
        return Arguments.of(Named.of(name, new Case(cluster, bound, evicted, because, pending)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kueueCases")
    void kueueCase(Case c) {
        CycleResult r = Shipped.cycle(c.cluster().apply(ClusterBuilder.cluster()).snapshot(NOW));
        assertEquals(c.bound(), bound(r), "bound");
        assertEquals(c.evicted(), evicted(r), () -> "evicted; " + r.podGroups());
        if (c.pending() != null) {
            Refusal why = Shipped.why(r, c.pending());
            if (c.pendingBecause() != null) Shipped.part(why, c.pendingBecause());
        }
    }

    @Test
    void theBorrowerSaysWhoseKeptRoomStopsItAndByHowMuch() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, "cpu", 15)
                .queue("lender").weight(10).lendingLimit("cpu", 3).end()
                .queue("borrower").weight(5).end()
                .job("eng/existing").queue("borrower").pods(1, "cpu", 5).running("node-1").startedAt(OLD).end()
                .job("eng/pending").queue("borrower").pods(1, "cpu", 4).end()
                .snapshot(NOW));
        Refusal.KeptByLenders k = Shipped.part(Shipped.why(r, "eng/pending"), Refusal.KeptByLenders.class);
        assertEquals(new Refusal.KeptByLenders("borrower", List.of("lender"), dev.arbiter.model.Resources.of("cpu", 1)), k,
                "Kueue: insufficient unused quota for cpu, 1 more needed");
        assertEquals("queue \"borrower\" may not borrow the room \"lender\" keeps under a lending limit: short of {cpu: 1}",
                dev.arbiter.decision.ReasonWords.words(k));
    }

    // ---- the same clusters without the limit: as before ---------------------------------------------------------

    @Test
    void withoutTheLimitTheBorrowerTakesTheLendersIdleShare() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, "cpu", 15)
                .queue("lender").weight(10).end()
                .queue("borrower").weight(5).end()
                .job("eng/existing").queue("borrower").pods(1, "cpu", 5).running("node-1").startedAt(OLD).end()
                .job("eng/pending").queue("borrower").pods(1, "cpu", 4).end()
                .snapshot(NOW));
        assertEquals(Set.of("eng/pending-0"), bound(r));
    }

    @Test
    void withoutTheLimitTheFreeRoomIsLent() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, "cpu", 11)
                .queue("secondary").weight(10).end()
                .queue("test").weight(1).end()
                .job("s/used").queue("secondary").pods(1, "cpu", 9).running("node-1").startedAt(OLD).end()
                .job("t/wl").queue("test").pods(1, "cpu", 2).end()
                .snapshot(NOW));
        assertEquals(Set.of("t/wl-0"), bound(r));
    }

    // ---- kept shares ------------------------------------------------------------------------------------------------

    @Test
    void aLenderDeservesWhatItKeepsAndTheOthersTheRest() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").lendingLimit(GPU, 4).end()
                .queue("b").end()
                .job("b/batch").queue("b").pods(32, GPU, 1).minMember(1).end()
                .snapshot(NOW));
        assertEquals(12_000, queue(r.queues(), "a").deserved().milli(GPU), "a keeps 16 - 4");
        assertEquals(20_000, queue(r.queues(), "b").deserved().milli(GPU));
        assertEquals(20, r.bindings().size(), "b grows to its share, not into a's kept 12");
    }

    @Test
    void aLimitOfZeroKeepsTheWholeShare() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").lendingLimit(GPU, 0).end()
                .queue("b").end()
                .job("b/batch").queue("b").pods(32, GPU, 1).minMember(1).end()
                .snapshot(NOW));
        assertEquals(16, r.bindings().size());
    }

    @Test
    void aLimitInAnotherResourceLendsTheGpusFreely() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8, "cpu", 64)
                .queue("a").lendingLimit("cpu", 0).end()
                .queue("b").end()
                .job("b/batch").queue("b").pods(32, GPU, 1).minMember(1).end()
                .snapshot(NOW));
        assertEquals(32, r.bindings().size(), "b's pods ask for no CPU: a keeps none of what they use");
    }

    @Test
    void aLimitAboveTheShareKeepsNothing() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").lendingLimit(GPU, 64).end()
                .queue("b").end()
                .job("b/batch").queue("b").pods(32, GPU, 1).minMember(1).end()
                .snapshot(NOW));
        assertEquals(32, r.bindings().size());
    }

    @Test
    void aLenderUsesItsKeptRoomAtOnceAndBelowItsShareBorrowsNothingBack() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").lendingLimit(GPU, 4).end()
                .queue("b").end()
                .job("b/batch").queue("b").pods(20, GPU, 1).minMember(1).running("node-1", "node-1", "node-1", "node-1",
                        "node-1", "node-1", "node-1", "node-1", "node-2", "node-2", "node-2", "node-2", "node-2", "node-2",
                        "node-2", "node-2", "node-3", "node-3", "node-3", "node-3").startedAt(NOW - 1).end()
                .job("a/train").queue("a").pods(12, GPU, 1).minMember(12).end()
                .snapshot(NOW));
        assertEquals(12, r.bindings().size());
        assertTrue(r.evictions().isEmpty());
    }

    @Test
    void theLendersSiblingsMayNotBorrowItsKeptRoomButItsChildrenMay() {
        // p (weight 1, lends at most 4 GPUs) and q (weight 1) split 32: p keeps 12. p's child c2 may use what p keeps;
        // q may not.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("p").lendingLimit(GPU, 4).end()
                .queue("c1").parent("p").end()
                .queue("c2").parent("p").end()
                .queue("q").end()
                .job("q/batch").queue("q").pods(32, GPU, 1).minMember(1).end()
                .job("c2/batch").queue("c2").pods(8, GPU, 1).minMember(1).end()
                .snapshot(NOW));
        assertEquals(12_000, queue(r.queues(), "p").deserved().milli(GPU));
        assertEquals(8_000, queue(r.queues(), "p").allocated().milli(GPU), "c2 runs on p's kept share");
        assertEquals(20_000, queue(r.queues(), "q").allocated().milli(GPU), "q stays out of the 4 p keeps idle");
    }

    // ---- the capacity pack: the nominal share is spec.deserved --------------------------------------------------------

    private static final dev.arbiter.engine.rules.RuleBook CAPACITY =
            dev.arbiter.engine.rules.RuleBook.load(java.nio.file.Path.of("deploy/policies/capacity"));

    private static CycleResult capacity(boolean limit) {
        ClusterBuilder.QueueBuilder a = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a").deserved(GPU, 16);
        if (limit) a.lendingLimit(GPU, 4);
        return new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(a.end()
                .queue("b").deserved(GPU, 16).capability(GPU, 32).end()
                .job("b/batch").queue("b").pods(32, GPU, 1).minMember(1).end()
                .snapshot(NOW), 1);
    }

    @Test
    void underTheCapacityPackALenderKeepsItsDeservedLessItsLimit() {
        assertEquals(20, capacity(true).bindings().size(), "b borrows 4 of a's 16, up to its capability no further");
        assertEquals(32, capacity(false).bindings().size(), "without the limit b borrows all of a's 16");
    }

    // ---- reclaimable at once -------------------------------------------------------------------------------------

    /** b's young pods fill the cluster; a (with or without a limit of 4 GPUs) wants one node. */
    private static CycleResult youngBorrower(boolean limit) {
        ClusterBuilder.QueueBuilder a = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a");
        if (limit) a.lendingLimit(GPU, 4);
        return Shipped.cycle(a.end().queue("b").end()
                .job("b/batch").queue("b").pods(4, GPU, 8).minMember(1)
                .running("node-1", "node-2", "node-3", "node-4").startedAt(NOW - 10).end()
                .job("a/train").queue("a").pods(1, GPU, 8).minMember(1).end()
                .snapshot(NOW));
    }

    @Test
    void roomALenderKeepsIsReclaimedAtOnceWhenItNeedsIt() {
        CycleResult r = youngBorrower(true);
        assertEquals(1, r.evictions().size(), "b's pod has run 10 s, but it sits on a's kept share");
        assertEquals(List.of("reclaim: a queue below its deserved share takes back from reclaimable queues above theirs"),
                r.evictions().stream().map(e -> e.rule()).distinct().toList());
    }

    @Test
    void withoutALimitTheMinimumRuntimeProtectsTheBorrower() {
        CycleResult r = youngBorrower(false);
        assertTrue(r.evictions().isEmpty());
    }

    @Test
    void whileTheLenderDoesNotAskTheBorrowersYoungPodsStayProtected() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").lendingLimit(GPU, 4).end()
                .queue("b").end()
                .queue("c").end()
                .job("b/batch").queue("b").pods(4, GPU, 8).minMember(1)
                .running("node-1", "node-2", "node-3", "node-4").startedAt(NOW - 10).end()
                .job("c/train").queue("c").pods(1, GPU, 8).minMember(1).end()
                .snapshot(NOW));
        assertTrue(r.evictions().isEmpty(), "c reclaims, a does not wait: b's young pods keep their minute");
    }
}
