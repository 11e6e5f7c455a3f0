package dev.arbiter.live;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the short durations of command-line flags: {@code 500ms}, {@code 1s}, {@code 2m}, {@code 1h}. */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("([0-9]+)(ms|s|m|h)");

    private Durations() {}

    /** The duration, or {@link IllegalArgumentException} with a readable message. Zero is allowed. */
    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("\"" + text + "\" is not a duration (expected e.g. 500ms, 1s, 2m)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
