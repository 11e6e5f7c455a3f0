package dev.arbiter.specs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.arbiter.specs.SpecListener.Kind;
import org.junit.jupiter.api.Test;

/** Steps learn Given/When/Then from the keyword; conjunctions continue the step before, in any language. */
class SpecListenerTest {
    @Test
    void keywordsNameTheirKind() {
        assertEquals(Kind.GIVEN, SpecListener.kindOf("Given ", "en"));
        assertEquals(Kind.WHEN, SpecListener.kindOf("When ", "en"));
        assertEquals(Kind.THEN, SpecListener.kindOf("Then ", "en"));
    }

    @Test
    void conjunctionsContinueTheStepBefore() {
        assertNull(SpecListener.kindOf("And ", "en"));
        assertNull(SpecListener.kindOf("But ", "en"));
        assertNull(SpecListener.kindOf("* ", "en"));
    }

    @Test
    void otherLanguagesWorkToo() {
        assertEquals(Kind.GIVEN, SpecListener.kindOf("Angenommen ", "de"));
        assertEquals(Kind.WHEN, SpecListener.kindOf("Wenn ", "de"));
        assertNull(SpecListener.kindOf("Und ", "de"));
    }
}
