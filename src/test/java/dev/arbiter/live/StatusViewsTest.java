package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusViewsTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final Instant T1 = Instant.parse("2026-11-29T10:01:00Z");

    private static final StatusViews.Members NONE = StatusViews.Members.NONE;

    private static PodGroupStatus waiting(String reason) {
        return new PodGroupStatus("ns/g", "q", "Inqueue", 4, 2, 2, reason, "gang: a job starts only whole");
    }

    @Test
    void aWaitingGangExplainsHowManyTasksCannotStartAndWhy() {
        assertEquals("2/4 tasks unschedulable: Insufficient mars-tech.com/gpu (rule: gang: a job starts only whole)",
                StatusViews.unschedulableMessage(waiting("Insufficient mars-tech.com/gpu")));
        assertNull(StatusViews.unschedulableMessage(new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null)));
    }

    @Test
    void anUnchangedReasonKeepsItsTransitionTimeAndNeedsNoWrite() {
        VolcanoPodGroup.Status first = StatusViews.podGroup(waiting("no room"), NONE, null, T0);
        VolcanoPodGroup.Status again = StatusViews.podGroup(waiting("no room"), NONE, first, T1);
        assertTrue(StatusViews.samePodGroup(first, again));
        assertEquals(T0.toString(), again.conditions.get(0).lastTransitionTime);
        assertEquals(first.conditions.get(0).transitionID, again.conditions.get(0).transitionID);
    }

    @Test
    void aNewReasonIsAChange() {
        VolcanoPodGroup.Status first = StatusViews.podGroup(waiting("no room"), NONE, null, T0);
        assertFalse(StatusViews.samePodGroup(first, StatusViews.podGroup(waiting("queue closed"), NONE, first, T1)));
    }

    @Test
    void runningReplacesUnschedulableWithScheduledAndKeepsForeignConditions() {
        VolcanoPodGroup.Status current = StatusViews.podGroup(waiting("no room"), NONE, null, T0);
        VolcanoPodGroup.Condition foreign = new VolcanoPodGroup.Condition();
        foreign.type = "Ready";
        foreign.status = "True";
        current.conditions.add(foreign);
        PodGroupStatus running = new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null);

        VolcanoPodGroup.Status next = StatusViews.podGroup(running, new StatusViews.Members(3, 4, 1, 0), current, T1);

        assertEquals(List.of("Ready", "Scheduled"), next.conditions.stream().map(c -> c.type).toList());
        assertEquals("Running", next.phase);
        assertEquals(3, next.running);
        assertEquals(1, next.succeeded);
    }

    @Test
    void aGangInANetworkDomainSaysWhichInItsScheduledCondition() {
        PodGroupStatus running = new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null, "rack-3");
        VolcanoPodGroup.Status next = StatusViews.podGroup(running, new StatusViews.Members(4, 4, 0, 0), null, T1);
        assertEquals("4/4 tasks scheduled in domain rack-3", next.conditions.get(0).message);
    }

    @Test
    void aGangWhoseMembersAllFinishedIsCompleted() {
        PodGroupStatus done = new PodGroupStatus("ns/g", "q", "Inqueue", 2, 0, 0, "no pending pods", null);
        VolcanoPodGroup.Status status = StatusViews.podGroup(done, new StatusViews.Members(0, 2, 2, 0),
                StatusViews.podGroup(waiting("x"), NONE, null, T0), T1);
        assertEquals("Completed", status.phase);
        assertTrue(status.conditions.isEmpty());
    }

    @Test
    void queueStatusComparesQuantitiesByValueAndKeepsWhatArbiterDoesNotOwn() {
        QueueStatus q = new QueueStatus("q", null, 1, "Open", Resources.of("cpu", 8), Resources.of("cpu", 8, "memory", "1Gi"),
                1, 0, 2);
        VolcanoQueue.Status current = new VolcanoQueue.Status();
        current.state = "Open";
        current.allocated = Map.of("cpu", new Quantity("8000m"), "memory", new Quantity("1073741824"));
        current.pending = 1;
        current.inqueue = 0;
        current.running = 2;
        current.completed = 5;
        current.putExtra("reservation", Map.of("nodes", List.of("n1")));

        VolcanoQueue.Status desired = StatusViews.queue(q, 0, current);

        assertTrue(StatusViews.sameQueue(desired, current));
        assertEquals(5, desired.completed);
        assertEquals(Map.of("nodes", List.of("n1")), desired.extra().get("reservation"));
    }

    // ---- what the API server holds, counted as Volcano counts it (issue 32) ----------------------------------

    private static PodSpec member(String name, String node, String phase) {
        PodSpec p = LiveFixture.pod("ns", name, "arbiter", 1, "g");
        return node == null ? p.withNode(null, phase) : p.withNode(node, phase);
    }

    @Test
    void runningCountsOnlyPodsWhosePhaseIsRunningAndScheduledCountsEveryBoundOne() {
        List<PodSpec> pods = List.of(member("g-0", "n1", "Running"), member("g-1", "n1", "Pending"),
                member("g-2", null, "Pending"), member("g-3", null, "Pending"), member("g-4", "n2", "Succeeded"));

        StatusViews.Members m = StatusViews.members(pods, key -> key.equals("ns/g-2"));

        assertEquals(new StatusViews.Members(1, 4, 1, 0), m, "g-2's binding was accepted; g-3's was not");
    }

    @Test
    void aGangIsRunningOnlyOnceMinMemberAreScheduledNotWhenTheCyclePlannedIt() {
        PodGroupStatus planned = new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null);
        assertEquals("Inqueue", StatusViews.phase(planned, new StatusViews.Members(3, 3, 0, 0)), "3 of 4 bound");
        assertEquals("Running", StatusViews.phase(planned, new StatusViews.Members(0, 4, 0, 0)), "4 bound, none started yet");
        assertEquals("Pending", StatusViews.phase(new PodGroupStatus("ns/g", "q", "Pending", 4, 0, 4, "queue closed", null),
                NONE));
        assertEquals("Completed", StatusViews.phase(planned, new StatusViews.Members(0, 4, 3, 1)));
    }

    @Test
    void aGangPlannedButNotYetAcceptedKeepsItsConditionAndShowsNoMoreThanIsBound() {
        VolcanoPodGroup.Status before = StatusViews.podGroup(waiting("no room"), NONE, null, T0);
        PodGroupStatus planned = new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null);

        VolcanoPodGroup.Status next = StatusViews.podGroup(planned, new StatusViews.Members(2, 3, 0, 0), before, T1);

        assertEquals("Inqueue", next.phase);
        assertEquals(2, next.running);
        assertEquals(List.of("Unschedulable"), next.conditions.stream().map(c -> c.type).toList());
    }

    @Test
    void theMessageLeavesOutWhatMovesWithTheClock() {
        String at1000 = "every other pod of queue \"b\" is protected: 2 by rule \"churn: x\" (e.g. has run 20s, less than the"
                + " minimum runtime of 60s); the first minimum runtime ends in 40s";
        String at1007 = "every other pod of queue \"b\" is protected: 2 by rule \"churn: x\" (e.g. has run 27s, less than the"
                + " minimum runtime of 60s); the first minimum runtime ends in 33s";

        assertEquals(StatusViews.unschedulableMessage(waiting(at1000)), StatusViews.unschedulableMessage(waiting(at1007)));
        assertEquals("2/4 tasks unschedulable: every other pod of queue \"b\" is protected: 2 by rule \"churn: x\" (e.g. has"
                + " run less than the minimum runtime of 60s) (rule: gang: a job starts only whole)",
                StatusViews.unschedulableMessage(waiting(at1007)));
    }

    @Test
    void queueStatusCountsItsAllocatedPods() {
        QueueStatus q = new QueueStatus("q", null, 1, "Open", Resources.of("cpu", 8), Resources.of("cpu", 4), 0, 0, 1);
        assertEquals(new Quantity("4"), StatusViews.queue(q, 4, null).allocated.get("pods"));
        assertFalse(StatusViews.sameQueue(StatusViews.queue(q, 4, null), StatusViews.queue(q, 3, null)));
    }

    @Test
    void theEnginesReasonForAGangWaitingOnYoungPodsGivesTheSameMessageSevenSecondsLater() {
        String at1000 = reasonOfNewJob(1000);
        String at1007 = reasonOfNewJob(1007);
        assertFalse(at1000.equals(at1007), "the engine's reason moves with the clock: " + at1000);
        assertEquals(StatusViews.unschedulableMessage(waiting(at1000)), StatusViews.unschedulableMessage(waiting(at1007)));
    }

    /** Queue b's two young pods fill both nodes; a/new waits for one to pass the minimum runtime. */
    private static String reasonOfNewJob(long now) {
        String gpu = "nvidia.com/gpu";
        dev.arbiter.decision.CycleResult r = dev.arbiter.engine.cycle.Shipped.cycle(dev.arbiter.scenario.ClusterBuilder.cluster()
                .nodes(2, gpu, 8).queue("a").end().queue("b").end()
                .job("b/old").queue("b").pods(1, gpu, 8).running("node-1").startedAt(980).end()
                .job("b/young").queue("b").pods(1, gpu, 8).running("node-2").startedAt(990).end()
                .job("a/new").queue("a").pods(1, gpu, 8).end()
                .snapshot(now));
        return r.podGroups().stream().filter(g -> g.podGroup().equals("a/new")).findFirst().orElseThrow().reason();
    }
}
