package dev.arbiter.cli;

import picocli.CommandLine.Option;

/**
 * {@code -o/--output table|wide|json} of {@code simulate} and {@code diff} (a picocli mixin), as kubectl's: the table
 * fits 120 columns, {@code wide} prints every column (for {@code diff}, the same table). {@code explain --output}
 * (text or json) and {@code generate -o FILE} are other options.
 */
final class OutputOption {
    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "table (fits 120 columns), wide (every column) or json (default: ${DEFAULT-VALUE}).")
    String format;

    /** Why the format is not one of the three (one line; invalid input, exit 2), or null. */
    String problem() {
        return format.equals("table") || format.equals("wide") || format.equals("json") ? null
                : "--output must be table, wide or json, got " + format;
    }

    boolean json() {
        return format.equals("json");
    }

    boolean wide() {
        return format.equals("wide");
    }
}
