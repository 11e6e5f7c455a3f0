package dev.arbiter.engine.rules;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the text of DRL files shows before Drools compiles them: where each rule is declared. (What rules may call is
 * checked on what the compiler made of them: {@link RuleBytecode}, {@link RuleExpressions}.)
 */
public final class RuleText {
    static final Pattern RULE = Pattern.compile("^\\s*rule\\s+\"((?:[^\"\\\\]|\\\\.)*)\"");

    private RuleText() {}

    /** The rule name a line declares ({@code rule "name"}), unescaped, or null. */
    static String ruleDeclared(String line) {
        Matcher m = RULE.matcher(line);
        return m.find() ? m.group(1).replace("\\\"", "\"") : null;
    }

    /** A DRL line without its {@code //} comment (a "//" inside a string literal is kept). */
    static String withoutComment(String line) {
        boolean inString = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"' && (i == 0 || line.charAt(i - 1) != '\\')) inString = !inString;
            if (!inString && c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') return line.substring(0, i);
        }
        return line;
    }
}
