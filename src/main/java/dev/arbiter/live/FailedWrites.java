package dev.arbiter.live;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes that keep failing, per object and kind of write ({@code bind}, {@code evict}, {@code status}), owned by the
 * actuator: after each failure in a row the object's next write of that kind waits twice as long, {@link #FIRST}
 * doubling up to {@link #MAX}, across cycles (a cycle's own {@link Backoff} retries within the call first). A write of
 * an object whose wait runs is not sent; the cycle that decided it is not held up. Each failure is counted in
 * {@code arbiter_write_failures_total{kind}} and said in one line by the room that saw it, ending with the wait
 * ({@link #failed}); a success after failures is one line here, and forgets them.
 *
 * <p>Example: a binding refused by an admission webhook (422) is tried at 0 s, then at 1 s, 3 s, 7 s, 15 s, ... and
 * every 5 min at most, where before every cycle (each second) sent it again.
 */
final class FailedWrites {
    private static final Logger LOG = LoggerFactory.getLogger(FailedWrites.class);
    static final Duration FIRST = Duration.ofSeconds(1);
    static final Duration MAX = Duration.ofMinutes(5);

    private record Entry(int failures, long untilNanos) {}

    private final Map<String, Entry> byObject = new ConcurrentHashMap<>();
    private final Metrics metrics;
    private volatile LongSupplier clock = System::nanoTime;

    FailedWrites(Metrics metrics) {
        this.metrics = metrics;
    }

    /** Tests move time themselves (nanoseconds, as {@link System#nanoTime}). */
    void useClock(LongSupplier nanos) {
        clock = nanos;
    }

    /**
     * The {@code kind} write of {@code object} failed: its next one waits. Returns the wait as the caller's log line
     * ends with it, e.g. "next try in 4 s (3rd failure in a row)": each failure is said once, by the room that saw it.
     */
    String failed(String kind, String object) {
        long now = clock.getAsLong();
        Entry e = byObject.merge(kind + " " + object, new Entry(1, now + FIRST.toNanos()),
                (last, first) -> new Entry(last.failures() + 1, now + wait(last.failures() + 1)));
        metrics.writeFailure(kind);
        return "next try in " + Duration.ofNanos(wait(e.failures())).toSeconds() + " s (" + ordinal(e.failures())
                + " failure in a row)";
    }

    private static String ordinal(int n) {
        String suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : switch (n % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }

    /** The {@code kind} write of {@code object} succeeded: its failures are forgotten. */
    void succeeded(String kind, String object) {
        Entry e = byObject.remove(kind + " " + object);
        if (e != null) {
            LogFields.id(LOG.atInfo(), object).log("{} of {} succeeded after {} failure(s)", kind, object, e.failures());
        }
    }

    /** True while the {@code kind} write of {@code object} must wait. */
    boolean waiting(String kind, String object) {
        if (byObject.isEmpty()) return false;
        Entry e = byObject.get(kind + " " + object);
        return e != null && clock.getAsLong() - e.untilNanos() < 0;
    }

    /** Entries whose wait ended long ago (as long as the longest wait) are dropped: the object may be gone. */
    void prune() {
        long now = clock.getAsLong();
        byObject.values().removeIf(e -> now - e.untilNanos() > MAX.toNanos());
    }

    /** Objects with failures remembered now. */
    int size() {
        return byObject.size();
    }

    /** {@link #FIRST} × 2^(failures − 1), at most {@link #MAX}. */
    static long wait(int failures) {
        return Backoff.doubling(FIRST, MAX, failures);
    }
}
