package dev.arbiter.engine;

import static dev.arbiter.engine.Placements.HOST;
import static dev.arbiter.engine.Placements.antiAffinity;
import static dev.arbiter.engine.Placements.labels;
import static dev.arbiter.engine.Placements.podTerm;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.facts.GangRequirement;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A job's shape for the eviction steps' remembered refusals is kept on the job across cycles only while it is still
 * what a fresh look would find: the same pending tasks in the same order, the same gang requirement, and pods whose
 * fit depends on no other pod.
 */
class EvictionShapeTest {
    private static CycleState index(ClusterSnapshot snap) {
        return CycleState.index(snap, SchedulerConfig.simulatorDefault().schedulerNames(), Set.of("pods"));
    }

    private static ClusterBuilder twoPods() {
        return ClusterBuilder.cluster().nodes(2, "cpu", 8).queue("q").end()
                .job("q/j").queue("q").minMember(2).pods(2, "cpu", 2).end();
    }

    @Test
    void theShapeHoldsWhileTheJobsTasksGangAndPodsStayAsTheyWere() {
        CycleState state = index(twoPods().snapshot());
        Job j = state.jobs.get("q/j");
        NodeFitter fitter = new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of());
        GangRequirement gang = new GangRequirement(j.id, 2, Map.of(), "r");
        EvictionPhase.Tasks shape = EvictionPhase.Tasks.of(j, gang, fitter);
        assertNotSame(EvictionPhase.Tasks.NONE, shape);
        assertTrue(shape.stillFor(j, gang, fitter));
        assertTrue(shape.stillFor(j, new GangRequirement(j.id, 2, Map.of(), "another rule"), fitter),
                "the rule's name is not part of the shape");

        assertFalse(shape.stillFor(j, new GangRequirement(j.id, 1, Map.of(), "r"), fitter), "another minMember");
        assertFalse(shape.stillFor(j, new GangRequirement(j.id, 2, Map.of("worker", 2), "r"), fitter),
                "another minTaskMember");
        Collections.reverse(j.pending);
        assertFalse(shape.stillFor(j, gang, fitter), "the pending tasks in another order");
        Collections.reverse(j.pending);
        Task gone = j.pending.remove(1);
        assertFalse(shape.stillFor(j, gang, fitter), "a task fewer");
        j.pending.add(gone);
        assertTrue(shape.stillFor(j, gang, fitter));
    }

    @Test
    void aPodWithAnAntiAffinityTermAnywhereMakesItLookAgain() {
        CycleState state = index(twoPods().snapshot());
        Job j = state.jobs.get("q/j");
        GangRequirement gang = new GangRequirement(j.id, 2, Map.of(), "r");
        EvictionPhase.Tasks shape = EvictionPhase.Tasks.of(j, gang, new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of()));

        // The next cycle: the same job, and a pod elsewhere whose anti-affinity could keep the job's pods out.
        CycleState next = index(twoPods()
                .barePods("ns/loner").placement(antiAffinity(podTerm(labels("app", "x"), HOST))).pods(1, "cpu", 1)
                .running("node-1").end().snapshot());
        NodeFitter withRule = new NodeFitter(next, NodeFitter.Scoring.BINPACK, Map.of());
        assertTrue(withRule.anyExistingAntiAffinity());
        assertFalse(shape.stillFor(j, gang, withRule));
        // A shape worked out in such a cycle is not kept at all.
        Job there = next.jobs.get("q/j");
        EvictionPhase.Tasks thenShape = EvictionPhase.Tasks.of(there, gang, withRule);
        assertFalse(thenShape.stillFor(there, gang, withRule));
    }
}
