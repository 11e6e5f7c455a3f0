package dev.arbiter.engine.cycle;

import dev.arbiter.decision.ReasonWords;
import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.rules.PolicyEvaluation;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RuleTrace;
import dev.arbiter.engine.rules.SessionHook;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.VictimSelector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The victim search's terms, asked directly: floors in the dimensions the preemptor needs, hysteresis judged on the
 * unit that would come back, and why a search found nothing. The cycle's numbers come from the shipped rules; the
 * terms are set by hand, as a policy with other floors would set them.
 */
class VictimTermsTest {
    private static final String GPU = "nvidia.com/gpu";

    /** A cycle's state after the rules, before any phase ran, and the search over it. */
    private record Searched(WorkingCluster state, CycleWork work) {
        Task task(String id) {
            return state.tasks.stream().filter(t -> t.id().equals(id)).findFirst().orElseThrow();
        }

        QueueState queue(String name) {
            return state.queues.get(name);
        }

        List<Task> running(String queue) {
            List<Task> out = new ArrayList<>();
            for (Job j : queue(queue).jobs) out.addAll(j.running);
            return out;
        }

        /** Terms for reclaim by {@code reclaimer} from {@code victim} down to {@code floor}. */
        VictimSelector.Terms reclaimTerms(String reclaimer, String victim, Resources floor, boolean hysteresis) {
            Map<String, Resources> floors = new LinkedHashMap<>();
            floors.put(victim, floor);
            return new VictimSelector.Terms(running(victim), t -> floors.containsKey(t.job.queue), floors, null,
                    queue(reclaimer), hysteresis, List.of("test", hysteresis));
        }
    }

    private static Searched searched(ClusterSnapshot snapshot) {
        return searched(snapshot, Shipped.RULES);
    }

    private static Searched searched(ClusterSnapshot snapshot, RuleBook rules) {
        WorkingCluster state = WorkingCluster.index(snapshot, SchedulerConfig.simulatorDefault().schedulerNames(), Set.of("pods"));
        Policy policy = PolicyEvaluation.run(rules, state, snapshot.priorityClasses(), new LinkedHashMap<>(),
                new RuleTrace(), SessionHook.NONE);
        return new Searched(state, new CycleWork(state, policy, SchedulerConfig.simulatorDefault()));
    }

    /**
     * One node of 8 GPUs: queue a runs 4 and wants 4 more, queue b runs 4. Both deserve 4, so b sits exactly at its
     * share: with a floor of zero (a policy that lets reclaim take queues below their share) b's job could be taken,
     * but it would come straight back under b's share.
     */
    private static Searched atItsShare() {
        return searched(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("a/run").queue("a").pods(1, GPU, 4).running("node-1").startedAt(0).end()
                .job("b/run").queue("b").pods(1, GPU, 4).running("node-1").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 4).end()
                .snapshot(1000));
    }

    @Test
    void hysteresisSparesAUnitThatWouldComeStraightBackUnderItsQueuesShare() {
        Searched s = atItsShare();
        assertEquals(4, Shipped.units(s.queue("b").deserved(), GPU));
        VictimSelector.Plan plan = s.work().victims.find(s.task("a/want-0"),
                s.reclaimTerms("a", "b", Resources.NONE, true));
        assertNull(plan, "b's job would come back needing 4 GPUs, within b's deserved 4");
        assertEquals(List.of("b"), s.work().victims.lastRefusal().wouldReturn(), "hysteresis spares b");
    }

    @Test
    void withoutHysteresisTheSameUnitIsTaken() {
        Searched s = atItsShare();
        VictimSelector.Plan plan = s.work().victims.find(s.task("a/want-0"),
                s.reclaimTerms("a", "b", Resources.NONE, false));
        assertNotNull(plan);
        assertEquals(List.of("b/run-0"), plan.victims().stream().map(Task::id).toList());
    }

    @Test
    void aStrictGangLargerThanItsQueuesShareGoesWholeOnlyAsALastResortAndNotWhenThePolicySparesIt(@TempDir Path dir)
            throws IOException {
        // b's gang of 4 × 8 GPUs holds all 32; b deserves 16. Taken whole, b would hold nothing: below its floor, and
        // no other plan exists, so the shipped policy (victims.gangBelowFloor: evict) lets it go; hysteresis judges it
        // as the whole gang that would come back: 32, more than b's share, so it lets it go too. With spare, the gang
        // stays and the refusal says why.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a").end().queue("b").end()
                .job("b/gang").queue("b").pods(4, GPU, 8).running("node-1", "node-2", "node-3", "node-4")
                .startedAt(0).end()
                .job("a/want").queue("a").pods(2, GPU, 8).end();
        Searched e = searched(c.snapshot(1000));
        VictimSelector.Plan plan = e.work().victims.find(e.task("a/want-0"),
                e.reclaimTerms("a", "b", e.queue("b").deserved(), true));
        assertNotNull(plan, () -> String.valueOf(e.work().victims.lastRefusal()));
        assertEquals(4, plan.victims().size(), "the whole gang goes");

        Files.writeString(dir.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(dir.resolve("policy.yaml"), "victims:\n  gangBelowFloor: spare\n");
        Searched s = searched(c.snapshot(1000), RuleBook.load(dir));
        assertNull(s.work().victims.find(s.task("a/want-0"), s.reclaimTerms("a", "b", s.queue("b").deserved(), true)));
        Refusal.NoPlan spared = s.work().victims.lastRefusal();
        assertEquals(List.of("b/gang"), spared.belowFloor(), "the gang larger than b's share is spared");
        assertTrue(ReasonWords.words(spared).contains("job \"b/gang\" is larger than its queue's share and would"
                + " leave the queue below its floor (victims.gangBelowFloor: spare)"), ReasonWords.words(spared));
    }

    @Test
    void aJobLargerThanItsQueuesShareIsNotTakenWhereAPlanKeepsEveryFloor() {
        // b deserves about 12 and holds 24: a strict gang of 2 × 8 GPUs on node-1 and node-2, and three small pods on node-3.
        // Taking the gang (two victims) would leave b 8, below its floor; taking the three pods leaves it 16. The plan
        // with more victims keeps the floor, so the gang is not the last resort.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8).queue("a").weight(5).end().queue("b").weight(3).end()
                .job("b/gang").queue("b").pods(2, GPU, 8).running("node-1", "node-2").startedAt(0).end()
                .job("b/y1").queue("b").pods(1, GPU, 2).running("node-3").startedAt(0).end()
                .job("b/y2").queue("b").pods(1, GPU, 2).running("node-3").startedAt(0).end()
                .job("b/y3").queue("b").pods(1, GPU, 4).running("node-3").startedAt(0).end()
                .job("a/run").queue("a").pods(1, GPU, 8).running("node-4").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end()
                .job("a/nowhere").queue("a").pods(2, GPU, 8).nodeSelector("pool", "none").end();
        Searched s = searched(c.snapshot(1000));
        long deserved = Shipped.units(s.queue("b").deserved(), GPU);
        assertTrue(deserved > 8 && deserved <= 16, "b deserves " + deserved);
        VictimSelector.Plan plan = s.work().victims.find(s.task("a/want-0"),
                s.reclaimTerms("a", "b", s.queue("b").deserved(), true));
        assertNotNull(plan, () -> String.valueOf(s.work().victims.lastRefusal()));
        assertEquals(List.of("b/y1-0", "b/y2-0", "b/y3-0"), plan.victims().stream().map(Task::id).sorted().toList());
    }

    @Test
    void aFloorCountsOnlyInTheDimensionsThePreemptorNeeds() {
        // b holds more than its share of CPUs but not of GPUs; a needs GPUs: the CPUs b holds beyond its share do
        // not make its GPUs reclaimable.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, GPU, 8, "cpu", 64).queue("a").end().queue("b").end()
                .job("b/run").queue("b").pods(1, GPU, 8, "cpu", 4).running("node-1").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        Searched s = searched(c.snapshot(1000));
        Resources floor = Resources.of(GPU, 8);
        VictimSelector.Plan plan = s.work().victims.find(s.task("a/want-0"), s.reclaimTerms("a", "b", floor, false));
        assertNull(plan, "b is at its GPU floor");
        assertEquals(List.of("b"), s.work().victims.lastRefusal().atFloor());
    }

    @Test
    void aFailedSearchNamesTheClosestNodeAndWhatItLacks() {
        // Only 4 GPUs may be taken from b on the node; a wants 8: no set of victims is enough.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, GPU, 8).queue("a").end().queue("b").end().queue("c").end()
                .job("b/run").queue("b").pods(1, GPU, 4).running("node-1").startedAt(0).end()
                .job("c/run").queue("c").pods(1, GPU, 4).running("node-1").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        Searched s = searched(c.snapshot(1000));
        assertNull(s.work().victims.find(s.task("a/want-0"), s.reclaimTerms("a", "b", Resources.NONE, false)));
        Refusal.NoPlan none = s.work().victims.lastRefusal();
        assertEquals(new Refusal.ClosestNode("node-1", Resources.of(GPU, 4)), none.closest());
        assertEquals("no set of victims makes room for a/want-0: closest node node-1 lacks nvidia.com/gpu 4 with every"
                + " allowed victim gone", ReasonWords.words(none));
    }
    /**
     * A search told that at most {@code most} victims are useful looks only where that few could make room: the
     * same plan when the best has that few, none (and no refusal of its own) when every node needs more.
     */
    @Test
    void aBoundedSearchFindsTheSamePlanWhenItIsSmallEnoughAndNothingOtherwise() {
        // node-1: one 8-GPU pod of b; node-2: two 4-GPU pods of b. a wants 8 GPUs.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8).queue("a").end().queue("b").end()
                .job("b/one").queue("b").pods(1, GPU, 8).running("node-1").startedAt(0).end()
                .job("b/two").queue("b").pods(2, GPU, 4).minMember(1).running("node-2", "node-2").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        Searched s = searched(c.snapshot(1000));
        VictimSelector.Plan one = s.work().victims.find(s.task("a/want-0"), s.reclaimTerms("a", "b", Resources.NONE, false), 1);
        assertNotNull(one);
        assertEquals(List.of("b/one-0"), one.victims().stream().map(Task::id).toList());

        ClusterBuilder pairsOnly = ClusterBuilder.cluster().nodes(1, GPU, 8).queue("a").end().queue("b").end()
                .job("b/two").queue("b").pods(2, GPU, 4).minMember(1).running("node-1", "node-1").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        Searched p = searched(pairsOnly.snapshot(1000));
        assertNull(p.work().victims.find(p.task("a/want-0"), p.reclaimTerms("a", "b", Resources.NONE, false), 1));
        assertNull(p.work().victims.lastRefusal(), "the bound alone turned the node down");
        VictimSelector.Plan two = p.work().victims.find(p.task("a/want-0"), p.reclaimTerms("a", "b", Resources.NONE, false), 2);
        assertNotNull(two, () -> String.valueOf(p.work().victims.lastRefusal()));
        assertEquals(2, two.victims().size());
    }

    /**
     * A bounded question no node comes within reach of is remembered for the cycle, but only until a node is touched:
     * here an eviction on node-1 leaves one 4-GPU pod there beside 4 free GPUs, and one victim is then enough.
     */
    @Test
    void aQuestionOutOfReachIsSearchedAgainOnceANodeIsTouched() {
        ClusterBuilder pairs = ClusterBuilder.cluster().nodes(2, GPU, 8).queue("a").end().queue("b").end()
                .job("b/two").queue("b").pods(2, GPU, 4).minMember(1).running("node-1", "node-1").startedAt(0).end()
                .job("b/more").queue("b").pods(2, GPU, 4).minMember(1).running("node-2", "node-2").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        Searched s = searched(pairs.snapshot(1000));
        VictimSelector.Terms terms = s.reclaimTerms("a", "b", Resources.NONE, false);
        assertNull(s.work().victims.find(s.task("a/want-0"), terms, 1), "every node needs two victims");
        assertNull(s.work().victims.find(s.task("a/want-0"), terms, 1), "asked again, nothing changed");

        new GangTransaction(s.state(), s.work().fitter).evict(s.task("b/two-0"));
        VictimSelector.Plan plan = s.work().victims.find(s.task("a/want-0"), terms, 1);
        assertNotNull(plan, "node-1 now needs one victim");
        assertEquals(List.of("b/two-1"), plan.victims().stream().map(Task::id).toList());
    }

    /**
     * Where allowed victims are is kept across searches and brought up to date from the nodes touched since: an
     * eviction undone puts its victim back, and one made takes its victim away.
     */
    @Test
    void whereVictimsAreFollowsEvictionsAndTheirUndoing() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8).queue("a").end().queue("b").end()
                .job("b/one").queue("b").pods(1, GPU, 8).running("node-1").startedAt(0).end()
                .job("b/two").queue("b").pods(1, GPU, 8).running("node-2").startedAt(0).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        Searched s = searched(c.snapshot(1000));
        VictimSelector.Terms terms = s.reclaimTerms("a", "b", Resources.NONE, false);
        GangTransaction first = new GangTransaction(s.state(), s.work().fitter);
        first.evict(s.task("b/one-0"));
        VictimSelector.Plan onTwo = s.work().victims.find(s.task("a/want-0"), terms);
        assertEquals(List.of("b/two-0"), onTwo.victims().stream().map(Task::id).toList(), "b/one is gone already");
        first.discard();

        new GangTransaction(s.state(), s.work().fitter).evict(s.task("b/two-0"));
        VictimSelector.Plan onOne = s.work().victims.find(s.task("a/want-0"), terms);
        assertEquals("node-1", onOne.node().name(), "b/one is back, b/two is gone");
        assertEquals(List.of("b/one-0"), onOne.victims().stream().map(Task::id).toList());
    }
}
