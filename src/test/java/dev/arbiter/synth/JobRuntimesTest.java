package dev.arbiter.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Runtimes;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Generated runtimes: one estimate and one real runtime per job, seeded, exact when the noise is 0. */
class JobRuntimesTest {
    private static final Manifests FLEET = ClusterGenerator.generate(new SynthSpec(20, 200, 4, 3, 0.5, 8, 1));

    @Test
    void everyPodOfAJobSharesItsEstimateAndRuntime() {
        Manifests m = JobRuntimes.withRuntimes(FLEET, 3, 0.5);
        Map<String, String> estimateOf = new HashMap<>(), runtimeOf = new HashMap<>();
        int noisy = 0;
        for (PodSpec p : m.pods()) {
            long e = Runtimes.estimateOf(p), r = Runtimes.simulatedOf(p);
            assertTrue(e >= JobRuntimes.SHORTEST && e <= JobRuntimes.LONGEST && e % 60 == 0, p.key() + ": " + e);
            assertTrue(r >= 60, p.key() + ": " + r);
            String before = estimateOf.putIfAbsent(p.jobId(), Long.toString(e));
            if (before != null) assertEquals(before, Long.toString(e), p.jobId());
            before = runtimeOf.putIfAbsent(p.jobId(), Long.toString(r));
            if (before != null) assertEquals(before, Long.toString(r), p.jobId());
            if (e != r) noisy++;
        }
        assertTrue(noisy > 0, "noise 0.5 moves runtimes off the estimates");
        assertEquals(m, JobRuntimes.withRuntimes(FLEET, 3, 0.5), "the same seed, the same runtimes");
        assertNotEquals(m, JobRuntimes.withRuntimes(FLEET, 4, 0.5));
    }

    @Test
    void noNoiseIsExact() {
        for (PodSpec p : JobRuntimes.withRuntimes(FLEET, 3, 0).pods()) {
            assertEquals(Runtimes.estimateOf(p), Runtimes.simulatedOf(p), p.key());
        }
        assertThrows(IllegalArgumentException.class, () -> JobRuntimes.withRuntimes(FLEET, 3, -1));
    }
}
