package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The node fitter remembers where a pod shape did not fit, so a cycle does not search the same nodes again; what it
 * remembers must never outlive the state it was seen in. Undoing a gang's transaction restores the state exactly, so
 * what was seen before the transaction holds again and what was seen inside it does not.
 */
class RememberedFailuresTest {
    private static final String GPU = "nvidia.com/gpu";

    private final NodeState node = new NodeState(new NodeSpec("node-1", Map.of(), List.of(), false,
            Resources.of(GPU, 8, "cpu", 64, "pods", 110), 0), 0);
    private final NodeFitter fitter = new NodeFitter(List.of(node), NodeFitter.Scoring.BINPACK);
    /** A cycle's state with no queues, for the transactions to note what they change in. */
    private final WorkingCluster state = new WorkingCluster(dev.arbiter.scenario.ClusterBuilder.cluster().snapshot(), Set.of(),
            new java.util.IdentityHashMap<>());
    private final Job job = new Job(new PodGroupSpec("ns", "g", "q", 1, Map.of(), null, null, "Inqueue", 0, 0), false);

    private Task task(String name, int gpus) {
        PodSpec pod = new PodSpec("ns", name, "arbiter", null, "Pending", null, null, null,
                Resources.of(GPU, gpus, "cpu", 1, "pods", 1), Map.of(), List.of(), Map.of(), Map.of(), 0, 0, false);
        return new Task(pod, job, null, java.util.Set.of("pods"));
    }

    @Test
    void aFailureSeenInsideAnUndoneTransactionIsForgotten() {
        Task whole = task("whole", 8);
        GangTransaction tx = new GangTransaction(state, fitter);
        tx.place(task("first", 8), node);
        assertNull(fitter.best(whole.pod), "the node is full inside the transaction");
        tx.discard();
        assertSame(node, fitter.best(whole.pod), "after the undo the node is empty again");
    }

    @Test
    void aFailureSeenBeforeAnUndoneTransactionHoldsAgain() {
        Task running = new Task(task("running", 2).pod, job, node, java.util.Set.of("pods"));
        node.take(running.request());
        new GangTransaction(state, fitter).place(task("filler", 6), node);
        assertNull(fitter.best(task("big", 4).pod), "the node is full");
        NodeFitter.Stamp before = fitter.stamp();

        GangTransaction tx = new GangTransaction(state, fitter);
        tx.evict(running);
        assertFalse(fitter.stillFails(before), "an eviction gave capacity back: the failure may no longer hold");
        tx.discard();
        assertTrue(fitter.stillFails(before), "the undo restored the state the failure was seen in");
        assertEquals(before, fitter.stamp(), "the very state, by name");
    }

    @Test
    void theNodesWhereSearchesMayHaveBecomeEasierAreLogged() {
        NodeState other = new NodeState(new NodeSpec("node-2", Map.of(), List.of(), false,
                Resources.of(GPU, 8, "cpu", 64, "pods", 110), 0), 1);
        Job gang = new Job(new PodGroupSpec("ns", "gang", "q", 2, Map.of(), null, null, "Running", 0, 0), false);
        Task here = new Task(task("here", 1).pod, gang, node, java.util.Set.of("pods"));
        Task there = new Task(task("there", 1).pod, gang, other, java.util.Set.of("pods"));
        gang.running.add(here);
        gang.running.add(there);
        int mark = fitter.touchMark();
        assertTrue(fitter.touchedSince(mark, 10).isEmpty());

        new GangTransaction(state, fitter).place(task("placed", 1), node);
        assertTrue(fitter.touchedSince(mark, 10).isEmpty(), "a placement only takes room");

        GangTransaction tx = new GangTransaction(state, fitter);
        tx.evict(here);
        assertEquals(Set.of(node, other), fitter.touchedSince(mark, 10), "the victim's node and its gang's nodes");
        int afterEviction = fitter.touchMark();
        tx.place(task("undone", 1), other);
        tx.discard();
        assertEquals(Set.of(node, other), fitter.touchedSince(afterEviction, 10),
                "undoing a placement gives room back; undoing an eviction brings a victim back");
        assertNull(fitter.touchedSince(mark, 1), "more nodes than asked for");
    }

    @Test
    void givingCapacityBackForgetsEveryFailure() {
        GangTransaction fill = new GangTransaction(state, fitter);
        Task filler = task("filler", 8);
        fill.place(filler, node);
        NodeFitter.Stamp full = fitter.stamp();
        assertNull(fitter.best(task("one", 1).pod));
        fitter.capacityReleased(List.of(node));
        assertFalse(fitter.stillFails(full));
        node.give(filler.request());
        assertNotNull(fitter.best(task("one", 1).pod));
    }
}
