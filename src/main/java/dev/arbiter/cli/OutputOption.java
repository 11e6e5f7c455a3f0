package dev.arbiter.cli;

import picocli.CommandLine.Option;

/**
 * {@code -o/--output table|wide|json|yaml} of {@code simulate} and {@code diff} (a picocli mixin), as kubectl's: the
 * table fits 120 columns, {@code wide} prints every column (for {@code diff}, the same table), {@code yaml} is the JSON
 * document in YAML. {@code explain -o} (text, json or yaml) and {@code generate -o yaml} are their own options.
 */
final class OutputOption {
    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "table (fits 120 columns), wide (every column), json or yaml (default: ${DEFAULT-VALUE}).")
    String format;

    /** Why the format is not one of the three (one line; invalid input, exit 2), or null. */
    String problem() {
        return format.equals("table") || format.equals("wide") || format.equals("json") || format.equals("yaml") ? null
                : "--output must be table, wide, json or yaml, got " + format;
    }

    boolean yaml() {
        return format.equals("yaml");
    }

    /** The document in the format asked for, when it is json or yaml; null for a table. */
    String document(java.util.function.Supplier<String> json) {
        if (json()) return json.get();
        return yaml() ? YamlText.of(json.get()) : null;
    }

    boolean json() {
        return format.equals("json");
    }

    boolean wide() {
        return format.equals("wide");
    }
}
