package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.QueueState;

import static dev.arbiter.engine.cycle.Shipped.evicted;
import static dev.arbiter.engine.cycle.Shipped.queue;
import static dev.arbiter.engine.cycle.Shipped.units;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Hierarchical queues (fair-share.drl down the tree), reclaim order in the tree, and broken trees. */
class QueueTreeTest {
    private static final String GPU = "nvidia.com/gpu";

    /**
     * Two teams (weights ta:tb), each with two sub-queues (weights a1:a2, b1:b2), every leaf wanting all 64 GPUs;
     * expected deserved GPUs of a1, a2, b1, b2.
     */
    record Tree(int ta, int tb, int a1, int a2, int b1, int b2, int[] expected) {}

    static Stream<Arguments> trees() {
        return Stream.of(
                Arguments.of(Named.of("equal teams, equal leaves: 16 each", new Tree(1, 1, 1, 1, 1, 1, new int[] {16, 16, 16, 16}))),
                Arguments.of(Named.of("equal teams, leaves 1:3 in team a", new Tree(1, 1, 1, 3, 1, 1, new int[] {8, 24, 16, 16}))),
                Arguments.of(Named.of("teams 3:1 split 48/16, then by leaf weights", new Tree(3, 1, 1, 1, 1, 3, new int[] {24, 24, 4, 12}))));
    }

    private static ClusterBuilder tree(Tree t) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(8, GPU, 8)
                .queue("team-a").weight(t.ta()).end().queue("team-b").weight(t.tb()).end()
                .queue("a1").parent("team-a").weight(t.a1()).end().queue("a2").parent("team-a").weight(t.a2()).end()
                .queue("b1").parent("team-b").weight(t.b1()).end().queue("b2").parent("team-b").weight(t.b2()).end();
        for (String leaf : new String[] {"a1", "a2", "b1", "b2"}) {
            c.job(leaf + "/work").queue(leaf).pods(64, GPU, 1).minMember(1).phase("Inqueue").end();
        }
        return c;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("trees")
    void sharesSplitDownTheTree(Tree t) {
        CycleResult r = Shipped.cycle(tree(t).snapshot());
        String[] leaves = {"a1", "a2", "b1", "b2"};
        for (int i = 0; i < 4; i++) {
            assertEquals(t.expected()[i], units(queue(r.queues(), leaves[i]).deserved(), GPU), "deserved GPUs of " + leaves[i]);
        }
        assertEquals(t.expected()[0] + t.expected()[1], units(queue(r.queues(), "team-a").deserved(), GPU));
        assertEquals("team-a", queue(r.queues(), "a1").parent());
        assertEquals("root", queue(r.queues(), "team-a").parent());
    }

    @Test
    void aTeamsIdleShareGoesToTheOtherTeamFirstThenSplitsBelow() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(8, GPU, 8)
                .queue("team-a").end().queue("team-b").end()
                .queue("a1").parent("team-a").end().queue("b1").parent("team-b").end().queue("b2").parent("team-b").end()
                .job("b1/w").queue("b1").pods(64, GPU, 1).minMember(1).phase("Inqueue").end()
                .job("b2/w").queue("b2").pods(64, GPU, 1).minMember(1).phase("Inqueue").end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertEquals(0, units(queue(r.queues(), "team-a").deserved(), GPU));
        assertEquals(32, units(queue(r.queues(), "b1").deserved(), GPU));
        assertEquals(32, units(queue(r.queues(), "b2").deserved(), GPU));
    }

    /**
     * Teams weigh 3:1, so team-a deserves 24 GPUs (a1 and a2 12 each) and team-b 8. a2 holds 16 and b1 holds 16:
     * both are above their shares. a1 wants two nodes and may grow to its 12: one node, taken from its sibling a2,
     * not from its cousin b1.
     */
    @Test
    void reclaimTakesFromASiblingBeforeACousin() {
        // 48 GPUs: team-a deserves 36 (a1 its 8, a2 28, and a2 holds 32), team-b 12 (b1 holds 16). Either a2 or b1
        // could give a 4-GPU pod and stay at its floor; the sibling gives.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(6, GPU, 8)
                .queue("team-a").weight(3).end().queue("team-b").weight(1).end()
                .queue("a1").parent("team-a").end().queue("a2").parent("team-a").end().queue("b1").parent("team-b").end()
                .job("a2/old").queue("a2").pods(8, GPU, 4).minMember(1)
                .running("node-1", "node-1", "node-2", "node-2", "node-3", "node-3", "node-4", "node-4").end()
                .job("b1/old").queue("b1").pods(4, GPU, 4).minMember(1).running("node-5", "node-5", "node-6", "node-6").end()
                .job("a1/new").queue("a1").pods(2, GPU, 4).minMember(1).end();
        CycleResult r = Shipped.cycle(c.snapshot());
        assertEquals(8, units(queue(r.queues(), "a1").deserved(), GPU));
        assertEquals(1, r.evictions().size(), "evicted " + evicted(r));
        assertTrue(r.evictions().get(0).pod().startsWith("a2/"), "the sibling gives first: " + evicted(r));
    }

    @Test
    void aQueueNamingAnUnknownParentIsClosedWithAReason() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("orphan").parent("nowhere").end()
                .job("ns/j").queue("orphan").pods(1, GPU, 1).end().snapshot());
        QueueStatus q = queue(r.queues(), "orphan");
        assertEquals("Closed", q.state());
        assertEquals("parent queue \"nowhere\" does not exist", q.reason());
        assertTrue(r.bindings().isEmpty());
    }

    @Test
    void queuesOnACycleAreClosedAndTheRestSchedule() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("x").parent("y").end().queue("y").parent("x").end().queue("ok").end()
                .job("ns/stuck").queue("x").pods(1, GPU, 1).end()
                .job("ns/fine").queue("ok").pods(1, GPU, 1).end().snapshot());
        assertTrue(queue(r.queues(), "x").reason().startsWith("queue tree has a cycle: "), queue(r.queues(), "x").reason());
        assertEquals("Closed", queue(r.queues(), "y").state());
        assertNull(queue(r.queues(), "ok").reason());
        assertEquals(java.util.Set.of("ns/fine-0"), Shipped.bound(r));
    }

    @Test
    void aParentsCapabilityBoundsItsChildren() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("team").capability(GPU, 8).end().queue("t1").parent("team").end()
                .job("ns/j").queue("t1").pods(2, GPU, 8).minMember(1).phase("Inqueue").end().snapshot());
        assertEquals(1, r.bindings().size(), "the team may hold 8 GPUs, whatever its child wants");
    }

    @Test
    void aChildsAdmittedJobsHoldTheirParentsRoom() {
        // t1's admitted job reserves its 8 GPUs of the team's 8 while it waits for a node big enough: t2's job is
        // not admitted under the team, though the 4-GPU node is free.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 4)
                .queue("team").capability(GPU, 8).end().queue("t1").parent("team").end().queue("t2").parent("team").end()
                .job("ns/held").queue("t1").pods(1, GPU, 8).phase("Inqueue").end()
                .job("ns/late").queue("t2").pods(1, GPU, 4).end().snapshot());
        assertEquals(java.util.Set.of(), Shipped.bound(r));
        dev.arbiter.decision.PodGroupStatus late = r.podGroups().stream().filter(g -> g.podGroup().equals("ns/late")).findFirst()
                .orElseThrow();
        assertEquals("Pending", late.phase());
        assertEquals("team", Shipped.part(late.why(), Refusal.AdmissionExhausted.class).queue());
    }

    @Test
    void aLeafReclaimsFromItsSiblingWhenTheirParentIsAtItsCapability() {
        // ml may hold 16 GPUs; train borrowed them all while serve was idle. Evicting a sibling frees room under ml,
        // so serve takes its 8 back although ml is at its capability.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("ml").capability(GPU, 16).end()
                .queue("train").parent("ml").end().queue("serve").parent("ml").end()
                .job("ns/t1").queue("train").pods(1, GPU, 8).running("node-1").startedAt(0).end()
                .job("ns/t2").queue("train").pods(1, GPU, 8).running("node-2").startedAt(0).end()
                .job("ns/s").queue("serve").pods(1, GPU, 8).end();
        CycleResult r = Shipped.cycle(c.snapshot(1000));
        assertEquals(1, r.evictions().size(), "evicted " + Shipped.evicted(r));
        assertEquals("reclaim", r.evictions().get(0).action());
        assertEquals("ns/s", r.evictions().get(0).forPodGroup());
    }

    @Test
    void aLeafDoesNotReclaimFromACousinWhenItsOwnParentIsAtItsCapability() {
        // ml may hold 16 and holds them; its sibling's pods may not be evicted. "other" holds 16 of its deserved 8,
        // but its pods are not under ml: evicting them would free nothing under ml's capability, so serve evicts
        // nothing (x, a top-level queue, does take its share back from other).
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("ml").weight(2).capability(GPU, 16).end().queue("other").end().queue("x").end()
                .queue("train").parent("ml").end().queue("serve").parent("ml").end()
                .job("ns/t").queue("train").pods(2, GPU, 8).running("node-1", "node-2").startedAt(0).notPreemptable().end()
                .job("ns/o").queue("other").pods(2, GPU, 8).minMember(1).running("node-3", "node-4").startedAt(0).end()
                .job("ns/x").queue("x").pods(1, GPU, 8).end()
                .job("ns/s").queue("serve").pods(1, GPU, 8).end();
        CycleResult r = Shipped.cycle(c.snapshot(1000));
        assertTrue(r.evictions().stream().noneMatch(e -> e.forPodGroup().equals("ns/s")), "evicted " + Shipped.evicted(r));
        assertEquals("ns/s-0", Shipped.part(Shipped.attempted(Shipped.why(r, "ns/s"), "reclaim"), Refusal.NoPlan.class).task());
    }

    @Test
    void theCommonAncestorOfAQueueAndOneInItsSubtreeIsThatQueue() {
        WorkingCluster s = WorkingCluster.index(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .queue("org").end().queue("team").parent("org").end().queue("a").parent("team").end()
                .queue("b").parent("team").end().queue("c").parent("org").end().queue("other").end().snapshot(),
                SchedulerConfig.simulatorDefault().schedulerNames(), java.util.Set.of("pods"));
        QueueState org = s.queues.get("org"), team = s.queues.get("team"), a = s.queues.get("a"),
                b = s.queues.get("b"), c = s.queues.get("c"), other = s.queues.get("other");
        assertSame(team, QueueState.commonAncestor(team, a));
        assertSame(team, QueueState.commonAncestor(a, team));
        assertSame(a, QueueState.commonAncestor(a, a));
        assertSame(team, QueueState.commonAncestor(a, b));
        assertSame(org, QueueState.commonAncestor(c, a));
        assertEquals(1, a.distanceTo(b), "siblings");
        assertEquals(2, a.distanceTo(c), "cousins");
        assertEquals(1, a.distanceTo(team), "up to its parent");
        assertEquals(0, team.distanceTo(a), "down into its own subtree");
        assertNull(QueueState.commonAncestor(a, other), "only the root is above both");
        assertEquals(3, a.distanceTo(other), "up to the root");
    }
}
