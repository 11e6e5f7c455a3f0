package dev.arbiter.cli;

import picocli.CommandLine.Option;

/**
 * {@code --output table|json} of {@code simulate} and {@code diff} (a picocli mixin). {@code explain --output} (text or
 * json) and {@code generate -o FILE} are other options.
 */
final class OutputOption {
    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "table", description = "table or json (default: ${DEFAULT-VALUE}).")
    String format;

    /** Why the format is not one of the two (one line; invalid input, exit 2), or null. */
    String problem() {
        return format.equals("table") || format.equals("json") ? null : "--output must be table or json, got " + format;
    }

    boolean json() {
        return format.equals("json");
    }
}
