package dev.arbiter.sim;

/**
 * Text from manifests, rules or the cluster made safe to print on a terminal: control characters (which start escape
 * sequences that can recolour, move the cursor or retitle the window) and the Unicode controls that reorder text are
 * shown as escapes instead of acted on. Example: {@code "evil\u001b[31mname"} prints as {@code evil\x1b[31mname}.
 */
public final class TerminalText {
    private TerminalText() {}

    /** {@code s} with C0 and C1 controls and DEL as {@code \xHH}, bidirectional controls as {@code \\uHHHH}; null as "". */
    public static String safe(String s) {
        if (s == null) return "";
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            String escape = escape(ch);
            if (escape != null && sb == null) sb = new StringBuilder(s.length() + 8).append(s, 0, i);
            if (sb != null) sb.append(escape != null ? escape : String.valueOf(ch));
        }
        return sb == null ? s : sb.toString();
    }

    private static String escape(char ch) {
        if (ch < 0x20 || (ch >= 0x7f && ch <= 0x9f)) return String.format("\\x%02x", (int) ch);
        if ((ch >= 0x202a && ch <= 0x202e) || (ch >= 0x2066 && ch <= 0x2069) || ch == 0x200e || ch == 0x200f || ch == 0x061c) {
            return String.format("\\u%04x", (int) ch);
        }
        return null;
    }
}
