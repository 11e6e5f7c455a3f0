package dev.arbiter.cli;

import java.util.Locale;

/**
 * The level and form of Arbiter's log lines, set before the first logger exists (Logback reads {@code logback.xml} once,
 * with these system properties in it). {@code arbiter run} logs at INFO by default — reloads, cycle summaries, refusals,
 * start and stop — and {@code --log-level} changes it; the other commands keep the quiet default (WARN). Libraries
 * (fabric8, Vert.x, Drools) stay at WARN either way. {@code --log-format text|json} chooses between a text line
 * (timestamp, level, logger, message, fields) and one JSON object a line; text is the default.
 */
final class LogLevel {
    static final String PROPERTY = "arbiter.log.level";
    static final String FORMAT_PROPERTY = "arbiter.log.format";
    static final java.util.Set<String> LEVELS = java.util.Set.of("trace", "debug", "info", "warn", "error", "off");
    static final java.util.Set<String> FORMATS = java.util.Set.of("text", "json");

    private LogLevel() {}

    /**
     * Applies {@code --log-level} (or run's INFO default) and {@code --log-format} from the raw arguments; an invalid
     * value is left to the command, which refuses it.
     */
    static void configure(String[] args) {
        String level = option(args, "--log-level");
        String format = option(args, "--log-format");
        boolean run = java.util.Arrays.asList(args).contains("run");
        if (level == null && run) level = "info";
        if (System.getProperty(PROPERTY) == null && level != null && LEVELS.contains(level.toLowerCase(Locale.ROOT))) {
            System.setProperty(PROPERTY, level.toLowerCase(Locale.ROOT));
        }
        if (System.getProperty(FORMAT_PROPERTY) == null && format != null && FORMATS.contains(format)) {
            System.setProperty(FORMAT_PROPERTY, format);
        }
    }

    private static String option(String[] args, String name) {
        String value = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(name) && i + 1 < args.length) value = args[i + 1];
            else if (args[i].startsWith(name + "=")) value = args[i].substring(name.length() + 1);
        }
        return value;
    }
}
