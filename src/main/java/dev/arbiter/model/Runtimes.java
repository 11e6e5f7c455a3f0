package dev.arbiter.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long pods run: what a user estimates, and, in the simulator, how long they really run.
 *
 * <ul>
 *   <li>{@value #ESTIMATE} on a pod (for a controller's pods, on its pod template): the user's estimate of the
 *       pod's running time, as Slurm's {@code --time}. Start-time estimates and backfill read it. A job's estimate is
 *       its pods' largest.</li>
 *   <li>{@value #SIMULATED} on a pod: in the simulator only, how long the pod really runs once bound; it then
 *       Succeeds and frees its room. Without it a simulated pod runs until the end of the run, as before.</li>
 * </ul>
 *
 * <p>Both take a duration such as {@code 90s}, {@code 45m}, {@code 2h}, {@code 1h30m}, {@code 1d}, or a plain number
 * of seconds. A value that is none of these is {@link #UNKNOWN} (the manifest reader says so in a notice).
 */
public final class Runtimes {
    public static final String ESTIMATE = "arbiter.dev/runtime-estimate";
    public static final String SIMULATED = "simulation.arbiter.dev/runtime";
    /** No estimate, or no end: the pod runs as long as it runs. */
    public static final long UNKNOWN = -1;

    private static final Pattern PART = Pattern.compile("([0-9]+)(d|h|m|s)");
    private static final long LONGEST = 366L * 24 * 3600;

    private Runtimes() {}

    /** The pod's estimated running time in seconds, or {@link #UNKNOWN}. */
    public static long estimateOf(PodSpec p) {
        return seconds(p.annotations().get(ESTIMATE));
    }

    /** The simulated pod's real running time in seconds, or {@link #UNKNOWN} (it runs to the end of the run). */
    public static long simulatedOf(PodSpec p) {
        return seconds(p.annotations().get(SIMULATED));
    }

    /** Seconds of {@code text} ({@code 90s}, {@code 1h30m}, {@code 1d}, {@code 3600}), or {@link #UNKNOWN}. */
    public static long seconds(String text) {
        if (text == null) return UNKNOWN;
        String t = text.trim();
        if (t.isEmpty()) return UNKNOWN;
        try {
            if (t.chars().allMatch(Character::isDigit)) return bounded(Long.parseLong(t));
            Matcher m = PART.matcher(t);
            long total = 0;
            int at = 0;
            while (at < t.length()) {
                if (!m.find(at) || m.start() != at) return UNKNOWN;
                long n = Long.parseLong(m.group(1));
                total += switch (m.group(2)) {
                    case "d" -> Math.multiplyExact(n, 86_400L);
                    case "h" -> Math.multiplyExact(n, 3_600L);
                    case "m" -> Math.multiplyExact(n, 60L);
                    default -> n;
                };
                at = m.end();
            }
            return bounded(total);
        } catch (NumberFormatException | ArithmeticException tooLarge) {
            return UNKNOWN;
        }
    }

    /** Whether {@code text} is a duration {@link #seconds} reads (for the manifest reader's notice). */
    public static boolean readable(String text) {
        return text == null || seconds(text) != UNKNOWN;
    }

    private static long bounded(long s) {
        return s > LONGEST ? UNKNOWN : s;
    }

    /** {@code seconds} as a person writes it: {@code 45s}, {@code 12m}, {@code 2h5m}, {@code 3d4h}. */
    public static String show(long seconds) {
        if (seconds < 0) return "unknown";
        if (seconds < 60) return seconds + "s";
        long d = seconds / 86_400, h = seconds % 86_400 / 3_600, m = seconds % 3_600 / 60, s = seconds % 60;
        StringBuilder b = new StringBuilder();
        if (d > 0) b.append(d).append('d');
        if (h > 0) b.append(h).append('h');
        if (m > 0 && d == 0) b.append(m).append('m');
        if (s > 0 && d == 0 && h == 0) b.append(s).append('s');
        return b.toString();
    }
}
