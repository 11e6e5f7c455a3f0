package dev.arbiter.engine.cycle;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;

import static dev.arbiter.engine.cycle.Shipped.bound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Allocation stops asking about a job's pods once one finds no node, when the rest ask the same of a node
 * ({@link Job#pendingAlike}); a job whose pods differ is asked about pod by pod.
 */
class AlikePodsTest {
    private static final String GPU = "nvidia.com/gpu";

    private final Job job = new Job(new PodGroupSpec("ns", "g", "q", 2, Map.of(), null, null, "Inqueue", 0, 0), false);

    private void pending(String name, Resources requests, Map<String, String> nodeSelector) {
        PodSpec pod = new PodSpec("ns", name, "arbiter", null, "Pending", null, null, null, requests, nodeSelector,
                List.of(), Map.of(), Map.of(), 0, 0, false);
        job.pending.add(new Task(pod, job, null, Set.of()));
    }

    @Test
    void podsAreAlikeWhenTheyAskTheSameOfANode() {
        pending("a", Resources.of(GPU, 1), Map.of("pool", "a100"));
        pending("b", Resources.of(GPU, 1), Map.of("pool", "a100"));
        assertTrue(job.pendingAlike());
    }

    @Test
    void anotherRequestOrSelectorMakesThemDiffer() {
        pending("a", Resources.of(GPU, 1), Map.of());
        pending("b", Resources.of(GPU, 2), Map.of());
        assertFalse(job.pendingAlike());

        Job other = new Job(new PodGroupSpec("ns", "h", "q", 2, Map.of(), null, null, "Inqueue", 0, 0), false);
        for (String pool : List.of("a100", "h100")) {
            PodSpec pod = new PodSpec("ns", pool, "arbiter", null, "Pending", null, null, null, Resources.of(GPU, 1),
                    Map.of("pool", pool), List.of(), Map.of(), Map.of(), 0, 0, false);
            other.pending.add(new Task(pod, other, null, Set.of()));
        }
        assertFalse(other.pendingAlike());
    }

    @Test
    void theAnswerIsWorkedOutAgainWhenTheTasksChange() {
        pending("a", Resources.of(GPU, 1), Map.of());
        assertTrue(job.pendingAlike());
        pending("b", Resources.of(GPU, 4), Map.of());
        job.tasksChanged();
        assertFalse(job.pendingAlike());
    }

    @Test
    void aPodThatFitsNowhereDoesNotStopTheOthersOfAnotherShape() {
        // The master asks for more than any node has; the two workers fit, and two members start the gang.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .job("ns/pt").pods("master", 1, GPU, 16).pods("worker", 2, GPU, 8).minMember(2)
                .phase("Inqueue").end().snapshot());
        assertEquals(Set.of("ns/pt-1", "ns/pt-2"), bound(r));
    }

    @Test
    void podsAlikeButForLabelsAnotherPodsAntiAffinityTellsApartAreAskedAboutEach() {
        // The same request, but the running guard keeps every pod labelled master off its node: the worker still fits.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .barePods("ns/guard").placement(Placements.antiAffinity(Placements.podTerm(
                        Placements.labels(PodSpec.TASK_SPEC_ANNOTATION, "master"), "kubernetes.io/hostname")))
                .pods(1, GPU, 1).running("node-1").end()
                .job("ns/pt").roleAsLabel().pods("master", 1, GPU, 1).pods("worker", 1, GPU, 1).minMember(1)
                .phase("Inqueue").end().snapshot());
        assertEquals(Set.of("ns/pt-1"), bound(r));
    }
}
