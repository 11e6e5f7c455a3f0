package dev.arbiter.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the shipped policy lives: {@code -Darbiter.rules}, else {@code $ARBITER_HOME/rules}, else {@code ./rules}. */
final class RulesLocation {
    private RulesLocation() {}

    static Path defaultFolder() {
        String prop = System.getProperty("arbiter.rules");
        if (prop != null && !prop.isBlank()) return Path.of(prop);
        return dev.arbiter.engine.rules.RuleBook.shippedFolder();
    }

    /**
     * Why {@code folder}, given as {@code option}, cannot be a rules folder (a path that does not exist or is not a
     * directory: invalid input, exit 2), or null. A folder whose rules do not compile is the rules' problem (exit 3).
     */
    static String problem(String option, Path folder) {
        if (!Files.exists(folder)) {
            return option + ": " + folder + ": no such directory"
                    + (option.equals("--rules") && folder.equals(defaultFolder()) ? " (the default; pass --rules DIR or set ARBITER_HOME)" : "");
        }
        if (!Files.isDirectory(folder)) return option + ": " + folder + ": not a directory";
        return null;
    }
}
