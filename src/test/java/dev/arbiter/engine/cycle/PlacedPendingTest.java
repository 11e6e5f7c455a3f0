package dev.arbiter.engine.cycle;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the eviction steps' remembered refusals read of a job's pending tasks: which are placed, and whether one has
 * room held on its nominated node (then nothing is remembered for the job).
 */
class PlacedPendingTest {
    private final Job job = new Job(new PodGroupSpec("ns", "g", "q", 3, Map.of(), null, null, "Inqueue", 0, 0), false);
    private final NodeState node = new NodeState(new NodeSpec("node-1", Map.of(), List.of(), false,
            Resources.of("cpu", 8), 0), 0);

    private Task pending(String name) {
        PodSpec pod = new PodSpec("ns", name, "arbiter", null, "Pending", null, null, null, Resources.of("cpu", 1),
                Map.of(), List.of(), Map.of(), Map.of(), 0, 0, false);
        Task t = new Task(pod, job, null, Set.of());
        job.pending.add(t);
        return t;
    }

    private static BitSet bits(int... set) {
        BitSet b = new BitSet();
        for (int i : set) b.set(i);
        return b;
    }

    @Test
    void listsThePlacedTasksByPosition() {
        pending("a");
        Task b = pending("b");
        pending("c");
        assertEquals(bits(), GangEviction.placedPending(job));
        b.place();
        assertEquals(bits(1), GangEviction.placedPending(job));
    }

    @Test
    void aTaskHoldingNominatedRoomMeansNothingIsRemembered() {
        pending("a");
        Task b = pending("b");
        job.nominated = true; // room was held for one of its tasks when the cycle began
        assertEquals(bits(), GangEviction.placedPending(job), "no task holds room any more");
        b.nominated = node;
        assertNull(GangEviction.placedPending(job));
        b.nominated = null;
        b.holding = true;
        assertNull(GangEviction.placedPending(job));
    }
}
