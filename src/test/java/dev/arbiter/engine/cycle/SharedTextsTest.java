package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** Reasons that many jobs share are one string: equal parts give the same text object, other parts another text. */
class SharedTextsTest {
    private final CycleWork.SharedTexts texts = new CycleWork.SharedTexts();

    @Test
    void equalPartsGiveOneStringAndOtherPartsTheirOwn() {
        String reason = "gang of 4 needs 4 tasks, 0 placeable";
        String first = texts.join(reason, "; ", "preempt: nothing runs");
        assertEquals("gang of 4 needs 4 tasks, 0 placeable; preempt: nothing runs", first);
        assertSame(first, texts.join(reason, "; ", "preempt: nothing runs"), "the same parts, one after another");
        assertEquals("gang of 4 needs 4 tasks, 0 placeable; reclaim: no rule", texts.join(reason, "; ", "reclaim: no rule"));
        assertEquals("another; preempt: nothing runs", texts.join("another", "; ", "preempt: nothing runs"));
        assertEquals("third; preempt: nothing runs", texts.join("third", "; ", "preempt: nothing runs"), "another first part");
        assertEquals("third: preempt: nothing runs", texts.join("third", ": ", "preempt: nothing runs"), "another separator");
        assertEquals("gang of 4 needs 4 tasks, 0 placeable: why", texts.join(reason, ": ", "why"));
        // Equal parts in other strings, after other texts: still the first one.
        assertSame(first, texts.join(new String(reason), "; ", new String("preempt: nothing runs")));
    }
}
