package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.arbiter.decision.Refusal;
import org.junit.jupiter.api.Test;

/**
 * Refusals that many jobs share are one object: the same parts give the same refusal, other parts (or equal parts
 * that are other objects) another. Sharing is what lets a large cycle word each reason once.
 */
class SharedRefusalsTest {
    private final CycleWork.SharedRefusals shared = new CycleWork.SharedRefusals();

    @Test
    void theSamePartsGiveOneRefusalAndOtherPartsTheirOwn() {
        Refusal gang = new Refusal.GangShort(4, 0);
        Refusal nothing = new Refusal.NothingRuns("a");
        Refusal preempt = shared.of("preempt", nothing, null);
        assertEquals(new Refusal.Attempted("preempt", nothing), preempt);
        Refusal first = shared.of(null, gang, preempt);
        assertEquals(new Refusal.Also(gang, preempt), first);
        assertSame(first, shared.of(null, gang, preempt), "the same parts, one after another");
        assertSame(preempt, shared.of("preempt", nothing, null), "after other parts: still the first one");
        assertEquals(new Refusal.Attempted("reclaim", nothing), shared.of("reclaim", nothing, null), "another action");
        Refusal other = shared.of(null, new Refusal.GangShort(4, 0), preempt);
        assertEquals(first, other, "equal parts read the same");
        assertNotSame(first, other, "but parts are compared as objects: sharing is by identity");
        assertSame(first, shared.of(null, gang, preempt));
    }
}
