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
        Refusal preempt = shared.of(CycleWork.SharedRefusals.ATTEMPTED, "preempt", nothing, null);
        assertEquals(new Refusal.Attempted("preempt", nothing), preempt);
        Refusal first = shared.of(CycleWork.SharedRefusals.ALSO, null, gang, preempt);
        assertEquals(new Refusal.Also(gang, preempt), first);
        assertSame(first, shared.of(CycleWork.SharedRefusals.ALSO, null, gang, preempt), "the same parts, one after another");
        assertSame(preempt, shared.of(CycleWork.SharedRefusals.ATTEMPTED, "preempt", nothing, null),
                "after other parts: still the first one");
        assertEquals(new Refusal.Attempted("reclaim", nothing),
                shared.of(CycleWork.SharedRefusals.ATTEMPTED, "reclaim", nothing, null), "another action");
        Refusal other = shared.of(CycleWork.SharedRefusals.ALSO, null, new Refusal.GangShort(4, 0), preempt);
        assertEquals(first, other, "equal parts read the same");
        assertNotSame(first, other, "but parts are compared as objects: sharing is by identity");
        assertSame(first, shared.of(CycleWork.SharedRefusals.ALSO, null, gang, preempt));
        Refusal because = shared.of(CycleWork.SharedRefusals.BECAUSE, null, gang, nothing);
        assertEquals(new Refusal.Because(gang, nothing), because, "a third kind, apart from the other two");
        assertSame(gang, shared.interned(gang));
        assertSame(gang, shared.interned(new Refusal.GangShort(4, 0)), "equal small refusals are one object");
    }
}
