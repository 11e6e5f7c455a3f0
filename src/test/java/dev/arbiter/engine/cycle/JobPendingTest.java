package dev.arbiter.engine.cycle;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A job counts its placed pending tasks, so that whether some still wait is asked without reading them. */
class JobPendingTest {
    private final Job job = new Job(new PodGroupSpec("ns", "g", "q", 2, Map.of(), null, null, "Inqueue", 0, 0), false);

    private Task pending(String name) {
        PodSpec pod = new PodSpec("ns", name, "arbiter", null, "Pending", null, null, null,
                Resources.of("nvidia.com/gpu", 1), Map.of(), List.of(), Map.of(), Map.of(), 0, 0, false);
        Task t = new Task(pod, job, null, Set.of());
        job.pending.add(t);
        return t;
    }

    @Test
    void aJobWaitsUntilEveryPendingTaskIsPlacedOnce() {
        Task a = pending("a"), b = pending("b");
        assertTrue(job.hasPending());
        a.place();
        a.place(); // placed twice in one cycle (a nominated job's second turn) counts once
        assertTrue(job.hasPending(), "b is not placed");
        b.place();
        assertFalse(job.hasPending());

        // The next cycle starts with nothing placed.
        a.startCycle();
        b.startCycle();
        job.startCycle();
        assertTrue(job.hasPending());
        List.of(a, b).forEach(Task::place);
        assertFalse(job.hasPending());
    }
}
