package dev.arbiter.live;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the short durations of command-line flags: {@code 500ms}, {@code 1s}, {@code 2m}, {@code 1h}. */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("([0-9]+)(ms|s|m|h)");
    /** Longer than any flag needs; also where {@link Duration} arithmetic stays far from overflow. */
    private static final Duration LONGEST = Duration.ofDays(365);

    private Durations() {}

    /** The duration, or {@link IllegalArgumentException} with a readable message. Zero is allowed. */
    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("\"" + text + "\" is not a duration (expected e.g. 500ms, 1s, 2m)");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
            if (d.compareTo(LONGEST) > 0) throw new ArithmeticException();
            return d;
        } catch (NumberFormatException | ArithmeticException tooLarge) {
            throw new IllegalArgumentException("\"" + text + "\" is too long a duration (at most 365 days)");
        }
    }

    /** Durations a flag accepts: between {@code min} and {@code max}, inclusive. */
    public record Bounded(Duration min, Duration max) {
        /** The flag's duration; {@link IllegalArgumentException} naming the flag when it is not one or out of range. */
        public Duration parse(String flag, String text) {
            Duration d;
            try {
                d = Durations.parse(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(flag + ": " + e.getMessage());
            }
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException(flag + " must be between " + show(min) + " and " + show(max) + ", got " + text);
            }
            return d;
        }

        private static String show(Duration d) {
            if (d.toMillis() < 1000) return d.toMillis() + "ms";
            if (d.toSeconds() < 60 || d.toSeconds() % 60 != 0) return d.toSeconds() + "s";
            if (d.toMinutes() < 60 || d.toMinutes() % 60 != 0) return d.toMinutes() + "m";
            return d.toHours() + "h";
        }
    }
}
