package dev.arbiter.cli;

import picocli.CommandLine.Option;

/**
 * {@code -o/--output table|wide|json|yaml} of the commands that print objects ({@code simulate}, {@code diff},
 * {@code explain}, {@code validate}, {@code verify}; a picocli mixin), as kubectl's: the table fits 120 columns,
 * {@code wide} prints every column (where a command has no more columns, the same table), {@code yaml} is the JSON
 * document in YAML. {@code snapshot -o yaml|json} and {@code generate -o yaml} write manifests, not tables: their own
 * options.
 */
final class OutputOption {
    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "table (fits 120 columns), wide (every column), json or yaml (default: ${DEFAULT-VALUE}).")
    String format;

    /** Why the format is not one of the four (one line; invalid input, exit 2), or null. */
    String problem() {
        return format.equals("table") || format.equals("wide") || format.equals("json") || format.equals("yaml") ? null
                : "--output must be table, wide, json or yaml, got " + format;
    }

    /** A table (table or wide), not a document. */
    boolean table() {
        return format.equals("table") || format.equals("wide");
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

    /** {@code data} (maps, lists, strings, numbers) as indented JSON, ending in a newline. */
    static String json(Object data) {
        return new tools.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(data) + "\n";
    }
}
