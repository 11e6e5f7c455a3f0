package dev.arbiter.cli;

import java.nio.file.Path;

/** Where the shipped policy lives: {@code -Darbiter.rules}, else {@code $ARBITER_HOME/rules}, else {@code ./rules}. */
final class RulesLocation {
    private RulesLocation() {}

    static Path defaultFolder() {
        String prop = System.getProperty("arbiter.rules");
        if (prop != null && !prop.isBlank()) return Path.of(prop);
        String home = System.getenv("ARBITER_HOME");
        if (home != null && !home.isBlank()) return Path.of(home, "rules");
        return Path.of("rules");
    }
}
