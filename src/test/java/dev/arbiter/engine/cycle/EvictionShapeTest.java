package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.EvictionShape;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;

import static dev.arbiter.engine.cycle.Placements.HOST;
import static dev.arbiter.engine.cycle.Placements.affinity;
import static dev.arbiter.engine.cycle.Placements.antiAffinity;
import static dev.arbiter.engine.cycle.Placements.labels;
import static dev.arbiter.engine.cycle.Placements.podTerm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
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
    private static WorkingCluster index(ClusterSnapshot snap) {
        return WorkingCluster.index(snap, SchedulerConfig.simulatorDefault().schedulerNames(), Set.of("pods"));
    }

    private static ClusterBuilder twoPods() {
        return ClusterBuilder.cluster().nodes(2, "cpu", 8).queue("q").end()
                .job("q/j").queue("q").minMember(2).pods(2, "cpu", 2).end();
    }

    @Test
    void theShapeHoldsWhileTheJobsTasksGangAndPodsStayAsTheyWere() {
        WorkingCluster state = index(twoPods().snapshot());
        Job j = state.jobs.get("q/j");
        NodeFitter fitter = new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of());
        GangRequirement gang = new GangRequirement(j.id, 2, Map.of(), "r");
        EvictionShape shape = EvictionShape.of(j, gang, fitter);
        assertNotSame(EvictionShape.NONE, shape);
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
        WorkingCluster state = index(twoPods().snapshot());
        Job j = state.jobs.get("q/j");
        GangRequirement gang = new GangRequirement(j.id, 2, Map.of(), "r");
        EvictionShape shape = EvictionShape.of(j, gang, new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of()));

        // The next cycle: the same job, and a pod elsewhere whose anti-affinity could keep the job's pods out.
        WorkingCluster next = index(twoPods()
                .barePods("ns/loner").placement(antiAffinity(podTerm(labels("app", "x"), HOST))).pods(1, "cpu", 1)
                .running("node-1").end().snapshot());
        NodeFitter withRule = new NodeFitter(next, NodeFitter.Scoring.BINPACK, Map.of());
        assertTrue(withRule.anyExistingAntiAffinity());
        assertFalse(shape.stillFor(j, gang, withRule));
        // A shape worked out in such a cycle is not kept at all.
        Job there = next.jobs.get("q/j");
        EvictionShape thenShape = EvictionShape.of(there, gang, withRule);
        assertFalse(thenShape.stillFor(there, gang, withRule));
    }

    @Test
    void alikePodsGiveTheShapeAPodByPodLookGivesAndTheirRolesStillCount() {
        ClusterBuilder roles = ClusterBuilder.cluster().nodes(2, "cpu", 8).queue("q").end()
                .job("q/mw").queue("q").pods("master", 1, "cpu", 2).pods("worker", 2, "cpu", 2).end()
                .job("q/mm").queue("q").pods("master", 2, "cpu", 2).pods("worker", 1, "cpu", 2).end();
        WorkingCluster state = index(roles.snapshot());
        NodeFitter fitter = new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of());
        assertFalse(fitter.anyExistingAntiAffinity());
        Job mw = state.jobs.get("q/mw");
        Job mm = state.jobs.get("q/mm");
        assertTrue(mw.pendingAlike() && mm.pendingAlike(), "the pods ask alike: only their roles differ");
        GangRequirement gang = new GangRequirement("any", 3, Map.of(), "r");
        EvictionShape alike = EvictionShape.of(mw, gang, fitter);
        assertNotEquals(alike, EvictionShape.of(mm, gang, fitter), "another role in the second place");

        // Where a pod's anti-affinity term (matching none of these pods) is in the cycle, each pod is looked at.
        WorkingCluster next = index(roles.barePods("ns/loner").placement(antiAffinity(podTerm(labels("app", "x"), HOST)))
                .pods(1, "cpu", 1).running("node-1").end().snapshot());
        NodeFitter podByPod = new NodeFitter(next, NodeFitter.Scoring.BINPACK, Map.of());
        assertTrue(podByPod.anyExistingAntiAffinity());
        EvictionShape looked = EvictionShape.of(next.jobs.get("q/mw"), gang, podByPod);
        assertNotSame(EvictionShape.NONE, looked);
        assertEquals(looked, alike, "the same parts, pod by pod");

        // A term that matches the second pod's labels only: the pods ask alike, yet its fit depends on other pods.
        WorkingCluster labelled = index(ClusterBuilder.cluster().nodes(2, "cpu", 8).queue("q").end()
                .job("q/rl").queue("q").roleAsLabel().pods("master", 1, "cpu", 2).pods("worker", 1, "cpu", 2).end()
                .barePods("q/loner").placement(antiAffinity(podTerm(labels(dev.arbiter.model.PodSpec.TASK_SPEC_ANNOTATION,
                        "worker"), HOST))).pods(1, "cpu", 1).running("node-1").end().snapshot());
        Job rl = labelled.jobs.get("q/rl");
        assertTrue(rl.pendingAlike());
        assertSame(EvictionShape.NONE, EvictionShape.of(rl, gang,
                new NodeFitter(labelled, NodeFitter.Scoring.BINPACK, Map.of())));

        // A pod with an affinity term of its own depends on other pods, anti-affinity in the cycle or not.
        WorkingCluster near = index(ClusterBuilder.cluster().nodes(2, "cpu", 8).queue("q").end()
                .job("q/near").queue("q").placement(affinity(podTerm(labels("app", "db"), HOST))).pods(2, "cpu", 2).end()
                .snapshot());
        NodeFitter noAnti = new NodeFitter(near, NodeFitter.Scoring.BINPACK, Map.of());
        assertFalse(noAnti.anyExistingAntiAffinity());
        assertSame(EvictionShape.NONE, EvictionShape.of(near.jobs.get("q/near"), gang, noAnti));
    }
}
