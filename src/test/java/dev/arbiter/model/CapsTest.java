package dev.arbiter.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Issue 35: a capability is checked only in the resources a request asks for (Volcano's LessEqualWithDimension). A
 * queue over its GPU capability may still add a CPU-only pod; it may not add a GPU, and not CPU past a CPU bound.
 */
class CapsTest {
    private static final Caps GPU_8 = Caps.of("nvidia.com/gpu", 8);

    @Test
    void aRequestIsCheckedOnlyInTheDimensionsItAsksFor() {
        Resources held = Resources.of("nvidia.com/gpu", 16, "cpu", 32);
        assertTrue(GPU_8.admits(held, Resources.of("cpu", 4)), "a CPU-only pod beside a GPU cap already exceeded");
        assertFalse(GPU_8.admits(held, Resources.of("cpu", 4, "nvidia.com/gpu", 1)), "a GPU past the cap");
        assertFalse(Caps.of("cpu", 34).admits(held, Resources.of("cpu", 4)), "CPU past a CPU cap");
        assertTrue(Caps.of("cpu", 36).admits(held, Resources.of("cpu", 4)), "CPU up to a CPU cap");
    }

    @Test
    void aZeroBoundForbidsOnlyThoseWhoAskForIt() {
        Caps noGpus = Caps.of("nvidia.com/gpu", 0);
        assertTrue(noGpus.admits(Resources.of("cpu", 2), Resources.of("cpu", 1)));
        assertFalse(noGpus.admits(Resources.of("cpu", 2), Resources.of("nvidia.com/gpu", 1)));
    }
}
