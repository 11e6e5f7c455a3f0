package dev.arbiter.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the text of DRL files shows before Drools compiles them: where each rule is declared, and calls a rule may not
 * make. A rule may read facts and insert policy facts; a consequence that exits the JVM, touches files or the network,
 * starts threads or processes, or loads classes by name is outside policy, and no command loads such rules.
 */
final class RuleText {
    static final Pattern RULE = Pattern.compile("^\\s*rule\\s+\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern FORBIDDEN = Pattern.compile(
            "\\b(System\\s*\\.\\s*(exit|setProperty|getenv|load|loadLibrary|setOut|setErr|setIn)|Runtime\\s*\\.|ProcessBuilder"
                    + "|java\\s*\\.\\s*(io|nio|net)\\s*\\.|new\\s+File\\s*\\(|Files\\s*\\.|Paths\\s*\\.|new\\s+Thread\\s*\\(|Thread\\s*\\."
                    + "|Executors\\s*\\.|Socket|URLConnection|HttpClient|new\\s+URL\\s*\\(|Class\\s*\\.\\s*forName)");

    private RuleText() {}

    /** The rule name a line declares ({@code rule "name"}), unescaped, or null. */
    static String ruleDeclared(String line) {
        Matcher m = RULE.matcher(line);
        return m.find() ? m.group(1).replace("\\\"", "\"") : null;
    }

    /** One {@code file:line: calls X: ...} per forbidden call in {@code files}, comments aside. */
    static List<String> forbiddenCalls(List<Path> files) {
        List<String> out = new ArrayList<>();
        for (Path file : files) {
            String[] lines = RuleBook.read(file).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher f = FORBIDDEN.matcher(withoutComment(lines[i]));
                if (f.find()) {
                    out.add(file + ":" + (i + 1) + ": calls " + f.group(1).replaceAll("\\s+", "") + ": a rule may only read"
                            + " facts and insert policy facts (no files, network, processes, threads or exits)");
                }
            }
        }
        return out;
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
