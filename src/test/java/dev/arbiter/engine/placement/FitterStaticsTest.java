package dev.arbiter.engine.placement;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.state.NodeState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the node fitter keeps across cycles with its nodes (a kept working copy's statics): the sorted indexes and the
 * shortfall counts serve later cycles as their nodes change, and whatever no cycle used is dropped as the next begins.
 */
class FitterStaticsTest {
    private static final String GPU = "nvidia.com/gpu";

    private final List<NodeState> nodes = new ArrayList<>();
    private final NodeFitter.Statics statics;

    FitterStaticsTest() {
        for (int i = 0; i < 3; i++) {
            nodes.add(new NodeState(new NodeSpec("node-" + i, Map.of(), List.of(), false,
                    Resources.of(GPU, 8, "cpu", 64), 0), i));
        }
        statics = new NodeFitter.Statics(nodes);
    }

    private static PodSpec pod(String name, int gpus) {
        return new PodSpec("ns", name, "arbiter", null, "Pending", null, null, null, Resources.of(GPU, gpus, "cpu", 1),
                Map.of(), List.of(), Map.of(), Map.of(), 0, 0, false);
    }

    /** A cycle's fitter over the kept statics, as a kept working copy makes one. */
    private NodeFitter cycle() {
        statics.sweep();
        return new NodeFitter(nodes, NodeFitter.Scoring.BINPACK, statics);
    }

    @Test
    void theCountsOfAKeptShortfallFollowTheNodesThatChanged() {
        PodSpec big = pod("big", 6);
        NodeFitter first = cycle();
        nodes.get(0).take(Resources.of(GPU, 4));
        nodes.get(1).take(Resources.of(GPU, 4));
        assertSame(nodes.get(2), first.best(big));
        nodes.get(2).take(Resources.of(GPU, 4));
        assertNull(first.best(big));
        assertEquals(noFit(3, "Insufficient nvidia.com/gpu", 3), first.whyNoFit(big));
        assertEquals(1, statics.keptShortfalls());

        // The next cycle: one node freed, and the kept counts see it.
        NodeFitter second = cycle();
        nodes.get(1).give(Resources.of(GPU, 4));
        nodes.get(1).take(Resources.of(GPU, 1));
        assertSame(nodes.get(1), second.best(big));
        nodes.get(1).take(Resources.of(GPU, 6));
        assertEquals(noFit(3, "Insufficient nvidia.com/gpu", 3), second.whyNoFit(big));
        NodeFitter third = cycle();
        nodes.get(1).give(Resources.of(GPU, 7));
        nodes.get(0).take(Resources.of(GPU, 1));
        assertEquals(new NodeFitter(nodes, NodeFitter.Scoring.BINPACK).whyNoFit(pod("small", 7)),
                third.whyNoFit(pod("small", 7)));
        assertEquals(noFit(3, "Insufficient nvidia.com/gpu", 2), third.whyNoFit(big),
                "node-1 has 8 GPUs free again; the others 4 and 3");
    }

    @Test
    void aRequestOfMoreDimensionsThanAMaskHoldsIsCountedByName() {
        // 33 extended resources: the last one is short everywhere (a mask bit per dimension would wrap onto the first).
        Object[] allocatable = new Object[66];
        Object[] request = new Object[66];
        for (int d = 0; d < 33; d++) {
            String name = String.format("example.com/r%02d", d);
            allocatable[2 * d] = request[2 * d] = name;
            allocatable[2 * d + 1] = 1;
            request[2 * d + 1] = d == 32 ? 2 : 1;
        }
        List<NodeState> wide = List.of(new NodeState(new NodeSpec("wide-0", Map.of(), List.of(), false,
                Resources.of(allocatable), 0), 0), new NodeState(new NodeSpec("wide-1", Map.of(), List.of(), false,
                Resources.of(allocatable), 0), 1));
        PodSpec pod = new PodSpec("ns", "wide", "arbiter", null, "Pending", null, null, null, Resources.of(request),
                Map.of(), List.of(), Map.of(), Map.of(), 0, 0, false);
        NodeFitter fitter = new NodeFitter(wide, NodeFitter.Scoring.BINPACK, new NodeFitter.Statics(wide));
        assertNull(fitter.best(pod));
        assertEquals(noFit(2, "Insufficient example.com/r32", 2), fitter.whyNoFit(pod));
    }

    @Test
    void whatNoCycleUsedIsDroppedAsTheNextBegins() {
        PodSpec big = pod("big", 9);
        NodeFitter first = cycle();
        assertNull(first.best(big));
        first.whyNoFit(big);
        assertEquals(1, statics.keptIndexes());
        assertEquals(1, statics.keptShortfalls());

        NodeFitter second = cycle(); // the last cycle made both: kept
        assertEquals(1, statics.keptIndexes());
        assertEquals(1, statics.keptShortfalls());
        assertNull(second.best(big));
        second.whyNoFit(big);
        NodeFitter third = cycle(); // the last cycle used both as kept: kept
        assertEquals(1, statics.keptIndexes());
        assertEquals(1, statics.keptShortfalls());
        assertNull(third.best(big)); // the index only
        cycle();
        assertEquals(1, statics.keptIndexes());
        assertEquals(0, statics.keptShortfalls(), "no cycle asked why the pod fits nowhere");
        cycle();
        assertEquals(0, statics.keptIndexes(), "no cycle searched the index");
        for (NodeState n : nodes) assertEquals(0, n.keptIndexCount(), n.name() + " still moves in the dropped index");
        nodes.get(0).take(Resources.of(GPU, 1));
        assertSame(nodes.get(0), cycle().best(pod("one", 7)), "an index made again files the nodes as they are now");
    }

    /** No node of {@code nodes} fits: {@code count} of them fail {@code filter}. */
    private static Refusal noFit(int nodes, String filter, int count) {
        return new Refusal.NoNodeFits(nodes, Map.of(filter, count));
    }
}
