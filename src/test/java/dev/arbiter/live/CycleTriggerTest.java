package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.PodSpec;
import org.junit.jupiter.api.Test;

/** Which pod updates start a cycle: those that can change a decision, not the echo of the scheduler's own writes. */
class CycleTriggerTest {
    private static final PodSpec PENDING = pod("team", "p", "arbiter", 1, null);

    @Test
    void theInformerConfirmingAnAssumedBindingStartsNoCycle() {
        assertFalse(ClusterCache.worthACycle(PENDING, PENDING.withNode("node-1", "Pending"), "node-1"));
        assertFalse(ClusterCache.worthACycle(PENDING, PENDING.withNode("node-1", "Running"), "node-1"));
    }

    @Test
    void aBoundPodThatStartsRunningStartsNoCycle() {
        PodSpec bound = PENDING.withNode("node-1", "Pending");
        assertFalse(ClusterCache.worthACycle(bound, bound.withNode("node-1", "Running").withStartedAt(100), null));
    }

    @Test
    void whatChangesCapacityOrWhoIsPendingStartsACycle() {
        PodSpec running = PENDING.withNode("node-1", "Running");
        assertTrue(ClusterCache.worthACycle(null, PENDING, null), "a new pod");
        assertTrue(ClusterCache.worthACycle(PENDING, PENDING.withNode("node-2", "Running"), "node-1"), "bound elsewhere");
        assertTrue(ClusterCache.worthACycle(PENDING, PENDING.withNode("node-1", "Running"), null), "bound by someone else");
        assertTrue(ClusterCache.worthACycle(running, running.withNode("node-1", "Succeeded"), null), "finished");
        assertTrue(ClusterCache.worthACycle(running, running.withTerminating(), null), "leaving");
    }
}
