package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Resources;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusViewsTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final Instant T1 = Instant.parse("2026-11-29T10:01:00Z");

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
        VolcanoPodGroup.Status first = StatusViews.podGroup(waiting("no room"), 0, 0, null, T0);
        VolcanoPodGroup.Status again = StatusViews.podGroup(waiting("no room"), 0, 0, first, T1);
        assertTrue(StatusViews.samePodGroup(first, again));
        assertEquals(T0.toString(), again.conditions.get(0).lastTransitionTime);
        assertEquals(first.conditions.get(0).transitionID, again.conditions.get(0).transitionID);
    }

    @Test
    void aNewReasonIsAChange() {
        VolcanoPodGroup.Status first = StatusViews.podGroup(waiting("no room"), 0, 0, null, T0);
        assertFalse(StatusViews.samePodGroup(first, StatusViews.podGroup(waiting("queue closed"), 0, 0, first, T1)));
    }

    @Test
    void runningReplacesUnschedulableWithScheduledAndKeepsForeignConditions() {
        VolcanoPodGroup.Status current = StatusViews.podGroup(waiting("no room"), 0, 0, null, T0);
        VolcanoPodGroup.Condition foreign = new VolcanoPodGroup.Condition();
        foreign.type = "Ready";
        foreign.status = "True";
        current.conditions.add(foreign);
        PodGroupStatus running = new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null);

        VolcanoPodGroup.Status next = StatusViews.podGroup(running, 1, 0, current, T1);

        assertEquals(List.of("Ready", "Scheduled"), next.conditions.stream().map(c -> c.type).toList());
        assertEquals("Running", next.phase);
        assertEquals(4, next.running);
        assertEquals(1, next.succeeded);
    }

    @Test
    void aGangInANetworkDomainSaysWhichInItsScheduledCondition() {
        PodGroupStatus running = new PodGroupStatus("ns/g", "q", "Running", 4, 4, 0, null, null, "rack-3");
        VolcanoPodGroup.Status next = StatusViews.podGroup(running, 0, 0, null, T1);
        assertEquals("4/4 tasks running in domain rack-3", next.conditions.get(0).message);
    }

    @Test
    void aGangWhoseMembersAllFinishedIsCompleted() {
        PodGroupStatus done = new PodGroupStatus("ns/g", "q", "Inqueue", 2, 0, 0, "no pending pods", null);
        VolcanoPodGroup.Status status = StatusViews.podGroup(done, 2, 0, StatusViews.podGroup(waiting("x"), 0, 0, null, T0), T1);
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

        VolcanoQueue.Status desired = StatusViews.queue(q, current);

        assertTrue(StatusViews.sameQueue(desired, current));
        assertEquals(5, desired.completed);
        assertEquals(Map.of("nodes", List.of("n1")), desired.extra().get("reservation"));
    }
}
