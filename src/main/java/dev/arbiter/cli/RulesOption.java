package dev.arbiter.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --rules DIR}, the policy folder, for the commands that run one policy: {@code simulate}, {@code explain},
 * {@code validate}, {@code run}, {@code bench} and {@code train-jvm} (a picocli mixin). {@code diff} (the running
 * policy, beside {@code --candidate}) and {@code verify} (the folder to check) describe theirs in their own words.
 */
final class RulesOption {
    @Option(names = "--rules", paramLabel = "DIR", description = "Folder of .drl policy files (default: ${DEFAULT-VALUE}).")
    Path folder = RulesLocation.defaultFolder();

    /** Why the folder cannot be a rules folder (one line; invalid input, exit 2), or null. */
    String problem() {
        return RulesLocation.problem("--rules", folder);
    }
}
