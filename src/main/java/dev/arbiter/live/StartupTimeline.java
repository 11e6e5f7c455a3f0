package dev.arbiter.live;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where start-up went, from the JVM's start to the first cycle that acted: each step marks when it ended, and
 * {@link #line()} says when each ended, as one log line ({@code arbiter run} logs it at the first cycle). A
 * restarted or failed-over scheduler leaves the cluster waiting for this long, so an operator should see it.
 *
 * <p>Thread-safe; a step marked twice keeps its first mark (the informers of a standby that leads later, a second
 * cycle).
 */
public final class StartupTimeline {
    private final long origin;
    private final List<String> steps = new ArrayList<>();
    private final List<Long> ends = new ArrayList<>();
    private boolean told;

    private StartupTimeline(long origin) {
        this.origin = origin;
    }

    /** A timeline from this JVM's start (as the runtime reports it), so the JVM's own start-up is its first step. */
    public static StartupTimeline sinceJvmStart() {
        long sinceStartMillis;
        try {
            sinceStartMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        } catch (RuntimeException | LinkageError e) {
            sinceStartMillis = 0;
        }
        return new StartupTimeline(System.nanoTime() - sinceStartMillis * 1_000_000L);
    }

    /** A timeline from now. */
    public static StartupTimeline sinceNow() {
        return new StartupTimeline(System.nanoTime());
    }

    /** Step {@code step} ended now (a step already marked keeps its first mark). */
    public synchronized void mark(String step) {
        if (steps.contains(step)) return;
        steps.add(step);
        ends.add(System.nanoTime());
    }

    /** Seconds from the origin to the end of {@code step}, or NaN when it was not marked. */
    public synchronized double secondsTo(String step) {
        int i = steps.indexOf(step);
        return i < 0 ? Double.NaN : (ends.get(i) - origin) / 1e9;
    }

    /** Steps marked so far, in order. */
    public synchronized List<String> steps() {
        return List.copyOf(steps);
    }

    /**
     * {@code "3.41 s: jvm 0.52, rules compiled 1.90, cluster answered 1.75, ..."}: the time from the origin to the
     * last mark, then when each step ended, in seconds from the origin. Steps may run side by side (the rules load
     * while the cluster is tried), so a step's end, not its length, is what each figure says.
     */
    public synchronized String line() {
        StringBuilder b = new StringBuilder();
        long last = origin;
        for (int i = 0; i < steps.size(); i++) {
            if (i > 0) b.append(", ");
            b.append(steps.get(i)).append(' ').append(String.format(Locale.ROOT, "%.2f", (ends.get(i) - origin) / 1e9));
            last = Math.max(last, ends.get(i));
        }
        return seconds(last - origin) + " (each step's end, in seconds from the JVM's start): " + b;
    }

    /** True the first time only: whoever logs the timeline asks this, so it is logged once. */
    public synchronized boolean tellOnce() {
        if (told) return false;
        told = true;
        return true;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
