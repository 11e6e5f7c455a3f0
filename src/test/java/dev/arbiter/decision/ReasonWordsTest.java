package dev.arbiter.decision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The words of refusals: kube-scheduler's where it has some, queues quoted, amounts in their own units. The engine's
 * tests assert on the refusals; these few assert how they read.
 */
class ReasonWordsTest {
    private static final String GPU = "nvidia.com/gpu";

    @Test
    void aGangShortOfNodesReadsAsKubeSchedulerCountsTheFilters() {
        Refusal r = new Refusal.Because(new Refusal.GangShort(4, 3), new Refusal.NoNodeFits(12,
                Map.of("Insufficient nvidia.com/gpu", 8, "node(s) didn't match Pod's node affinity/selector", 4)));
        assertEquals("gang of 4 needs 4 tasks, 3 placeable: 0/12 nodes are available: 4 node(s) didn't match Pod's node"
                + " affinity/selector, 8 Insufficient nvidia.com/gpu", ReasonWords.words(r));
        assertEquals("0/3 nodes are available", ReasonWords.words(new Refusal.NoNodeFits(3, Map.of())));
    }

    @Test
    void eachStepsRefusalFollowsTheLastWithItsAction() {
        Refusal r = new Refusal.Also(new Refusal.Also(new Refusal.GangShort(0, 0),
                new Refusal.Attempted("preempt", new Refusal.NothingRuns("a"))),
                new Refusal.Attempted("reclaim", new Refusal.TooLarge("a", Resources.of(GPU, 32), Resources.of(GPU, 24),
                        Resources.NONE)));
        assertEquals("gang of 0 needs 1 tasks, 0 placeable; preempt: nothing runs in queue \"a\"; reclaim: the gang"
                + " needs nvidia.com/gpu 32 to start, but queue \"a\" deserves nvidia.com/gpu 24 and holds none",
                ReasonWords.words(r));
    }

    @Test
    void protectionsAreCountedByRuleWithAnExampleAndTheFirstEnd() {
        Refusal r = new Refusal.AllProtected(new Refusal.QueuePods("q", true), List.of(
                new Refusal.ProtectedBy("churn: minimum runtime", false, 3, "has run 20s"),
                new Refusal.ProtectedBy("the Eviction API", true, 1, "eviction of ns/p refused (429)")), 40);
        assertEquals("every lower-priority pod of queue \"q\" is protected: 3 by rule \"churn: minimum runtime\" (e.g."
                + " has run 20s), 1 by the Eviction API (eviction of ns/p refused (429)); the first minimum runtime ends"
                + " in 40s", ReasonWords.words(r));
    }

    @Test
    void aFailedVictimSearchNamesWhatSparedEachQueueAndTheClosestNode() {
        Refusal r = new Refusal.NoPlan("a/want-0", List.of("b"), List.of("c"), List.of(), List.of(), 2,
                new Refusal.ClosestNode("node-3", Resources.of(GPU, 4)));
        assertEquals("no set of victims makes room for a/want-0: hysteresis spares queue \"b\" (it would qualify to take"
                + " its pods straight back); queue \"c\" is at its floor (its deserved share or guarantee) in what the"
                + " task needs; 2 gang(s) cannot be evicted whole (a member is protected or was bound this cycle);"
                + " closest node node-3 lacks nvidia.com/gpu 4 with every allowed victim gone", ReasonWords.words(r));
    }

    @Test
    void aDomainReasonNamesTheClosestDomainInTheGangsScarcestResource() {
        NetworkTopology oneRack = NetworkTopology.tiers(true, 1);
        Refusal r = new Refusal.NoDomainClose(oneRack, new Refusal.DomainRoom("rack-3", GPU, 6000, 8000, 8000));
        assertEquals("no domain (" + oneRack + ") holds the whole gang; closest rack-3: 6 of 8 nvidia.com/gpu free, needs 8",
                ReasonWords.words(r));
        assertEquals("no domain (" + oneRack + ") holds the whole gang: the cluster has no network domains (no HyperNode,"
                + " and no topology.levels in the policy whose label the nodes carry)",
                ReasonWords.words(new Refusal.NoDomainAllowed(oneRack, Refusal.Missing.ANY_DOMAIN)));
    }

    @Test
    void everyKindOfRefusalHasWords() {
        // A refusal added without words fails here, not in a cluster's pod condition.
        for (Class<?> kind : Refusal.class.getPermittedSubclasses()) {
            assertTrue(kind.isRecord() || kind.isInterface(), kind + " is a record");
        }
        List<Refusal> one = List.of(new Refusal.RuleSaid("x"), new Refusal.Never("x"), new Refusal.NoAdmissionBudget("q"),
                new Refusal.AdmissionExhausted("q", Resources.of(GPU, 1)), new Refusal.BehindHead("q", "ns/h"),
                new Refusal.QueueNotOpen("q"), new Refusal.Overused("q", Resources.NONE, Resources.NONE),
                new Refusal.NoGangRule(), new Refusal.GangShort(1, 0), new Refusal.RoleShort("w", 2, 1),
                new Refusal.CapabilityReached("q", Resources.NONE), new Refusal.NoNodeFits(0, Map.of()),
                new Refusal.KeptByLenders("q", List.of("a"), Resources.of("nvidia.com/gpu", 1)),
                new Refusal.Blocked("ns/p", Refusal.Block.SCHEDULING_GATES, List.of("g")),
                new Refusal.NoDomainTried(NetworkTopology.tiers(true, 1),
                        new Refusal.DomainRoom("r", GPU, 0, 0, 0), new Refusal.GangShort(1, 0)),
                new Refusal.NoDomainClose(NetworkTopology.tiers(true, 1), new Refusal.DomainRoom("r", GPU, 0, 0, 0)),
                new Refusal.NoDomainAllowed(NetworkTopology.tiers(true, 1), Refusal.Missing.ONE_DOMAIN),
                new Refusal.BudgetSpent(1), new Refusal.QueueBudgetSpent(1, "q"), new Refusal.BudgetExceeded(1, 1, 0, "p", 0),
                new Refusal.BudgetWouldPass(1, 1, 2), new Refusal.QueueBudgetWouldPass(1, "q"), new Refusal.NothingRuns("q"),
                new Refusal.NoShareGap("q"),
                new Refusal.NoLowerWork("q", false, 1),
                new Refusal.AllProtected(new Refusal.AboveDeservedPods(List.of("b")), List.of(), -1),
                new Refusal.VictimsRefused(List.of("x"), 0), new Refusal.HoldsDeserved("q", Resources.NONE),
                new Refusal.NoQueueAbove(), new Refusal.NotReclaimable(List.of("b")), new Refusal.NoReclaimGrant("q", List.of("b")),
                new Refusal.TooLarge("q", Resources.NONE, Resources.NONE, Resources.NONE), new Refusal.DownToFloors(List.of("b")),
                new Refusal.NoVictimPods(), new Refusal.WouldPassDeserved("q", Resources.NONE),
                new Refusal.NoSingleDomain(NetworkTopology.tiers(true, 1)),
                new Refusal.NoPlan("p", List.of(), List.of(), List.of(), List.of("b/g"), 0, new Refusal.NoVictimOnSuitableNode()),
                new Refusal.NoNodeSuits(new Refusal.NoNodeFits(1, Map.of())), new Refusal.NoVictimOnSuitableNode(),
                new Refusal.RoomWithVictimsGone("n"),
                new Refusal.ClosestNode("n", Resources.NONE), new Refusal.WaitingForEvicted(2, "reclaim"),
                new Refusal.WaitingForTerminating(1), new Refusal.EvictedFor("reclaim", "ns/j"), new Refusal.NoPendingPods(),
                new Refusal.NotYetScheduled(), new Refusal.Also(new Refusal.NoGangRule(), new Refusal.NoQueueAbove()),
                new Refusal.Reserving(List.of("n1", "n2"), 600), new Refusal.KeptOffReserved("ns/big", 600, -1, true),
                new Refusal.Attempted("preempt", new Refusal.NoQueueAbove()),
                new Refusal.Because(new Refusal.GangShort(1, 0), new Refusal.NoNodeFits(1, Map.of())));
        java.util.Set<Class<?>> worded = new java.util.HashSet<>();
        for (Refusal r : one) {
            String w = ReasonWords.words(r);
            assertFalse(w.isBlank() || w.contains("null"), r + " reads " + w);
            worded.add(r.getClass());
        }
        for (Class<?> kind : Refusal.class.getPermittedSubclasses()) {
            if (kind.isRecord()) assertTrue(worded.contains(kind), kind.getSimpleName() + " is worded here");
        }
    }

    @Test
    void reservationsAreWordedWithTheirNodesAndStart() {
        assertEquals("reserved nodes n1, n2 from t=10m", ReasonWords.words(new Refusal.Reserving(List.of("n1", "n2"), 600)));
        assertEquals("reserved nodes n0, n1, n2, n3, n4, n5, n6, n7 and 2 more from 2026-12-05T01:10:00Z",
                ReasonWords.words(new Refusal.Reserving(java.util.stream.IntStream.range(0, 10).mapToObj(i -> "n" + i).toList(),
                        java.time.Instant.parse("2026-12-05T01:10:00Z").getEpochSecond())));
        assertEquals("nodes reserved for ns/big from t=10m are kept for it: this job has no runtime estimate to backfill them",
                ReasonWords.words(new Refusal.KeptOffReserved("ns/big", 600, -1, true)));
        assertEquals("nodes reserved for ns/big from t=10m are kept for it: its runtime estimate of 2h ends later",
                ReasonWords.words(new Refusal.KeptOffReserved("ns/big", 600, 7200, true)));
        assertEquals("nodes reserved for ns/big from t=10m are kept for it: backfill is off",
                ReasonWords.words(new Refusal.KeptOffReserved("ns/big", 600, 60, false)));
    }

    @Test
    void aSharedRefusalIsWordedOnceAndAFreshOneAfresh() {
        ReasonWords words = new ReasonWords();
        Refusal shared = new Refusal.BudgetSpent(10);
        Refusal a = new Refusal.Attempted("preempt", shared);
        assertSame(words.of(shared), words.of(shared));
        assertEquals("preempt: the eviction budget of 10 pods per cycle is spent", words.of(a));
        assertSame(words.of(a), words.of(a));
        assertEquals(null, words.of(null));
    }

    @Test
    void aRefusalHoldsItsParts() {
        Refusal never = new Refusal.Never("p0 inference is never a preemptor");
        Refusal r = new Refusal.Also(new Refusal.GangShort(2, 0), new Refusal.Attempted("preempt and reclaim", never));
        assertTrue(r.holds(new Refusal.Never("p0 inference is never a preemptor")), "equal parts are held");
        assertFalse(r.holds(new Refusal.Never("another")));
    }
}
