package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** What reaches a terminal: escape sequences and reordering controls are shown, never acted on. */
class TerminalTextTest {
    @Test
    void controlCharactersAreShownAsEscapes() {
        assertEquals("evil\\x1b[31mred\\x1b[0m", TerminalText.safe("evil\u001b[31mred\u001b[0m"));
        assertEquals("bell\\x07 cr\\x0d nl\\x0a tab\\x09", TerminalText.safe("bell\u0007 cr\r nl\n tab\t"));
        assertEquals("csi\\x9b2J del\\x7f", TerminalText.safe("csi\u009b2J del\u007f"));
    }

    @Test
    void bidirectionalOverridesAreShownAsEscapes() {
        assertEquals("invoice\\u202egpj.exe", TerminalText.safe("invoice\u202egpj.exe"));
    }

    @Test
    void ordinaryTextIsUntouched() {
        String s = "tenanta/qwen2-72b-unified-pg ünïcödé 16 GPUs";
        assertSame(s, TerminalText.safe(s));
        assertEquals("", TerminalText.safe(null));
    }
}
