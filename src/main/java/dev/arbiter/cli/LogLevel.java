package dev.arbiter.cli;

import java.util.Locale;

/**
 * The level of Arbiter's own log lines, set before the first logger exists (slf4j-simple reads it once per logger).
 * {@code arbiter run} logs at INFO by default — reloads, cycle summaries, refusals, start and stop — and
 * {@code --log-level} changes it; the other commands keep the quiet default (WARN) of {@code simplelogger.properties}.
 * Libraries (fabric8, Vert.x, Drools) stay at WARN either way.
 */
final class LogLevel {
    static final String PROPERTY = "org.slf4j.simpleLogger.log.dev.arbiter";
    static final java.util.Set<String> LEVELS = java.util.Set.of("trace", "debug", "info", "warn", "error", "off");

    private LogLevel() {}

    /** Applies {@code --log-level} (or run's INFO default) from the raw arguments; an invalid level is left to the command. */
    static void configure(String[] args) {
        if (System.getProperty(PROPERTY) != null) return;
        String level = null;
        boolean run = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("run")) run = true;
            if (args[i].equals("--log-level") && i + 1 < args.length) level = args[i + 1];
            else if (args[i].startsWith("--log-level=")) level = args[i].substring("--log-level=".length());
        }
        if (level == null && run) level = "info";
        if (level != null && LEVELS.contains(level.toLowerCase(Locale.ROOT))) {
            System.setProperty(PROPERTY, level.toLowerCase(Locale.ROOT));
        }
    }
}
