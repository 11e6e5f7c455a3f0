package dev.arbiter.live;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded exponential backoff for one API call inside a cycle: at most {@code attempts} tries, waiting
 * {@code initial}, then twice that, ... capped at {@code max}. Never retries forever: what still fails is handed back
 * to the cycle, which decides again next time. Example: {@code new Backoff(4, 100ms, 1s)} tries at 0, 100, 300 and
 * 700 ms.
 *
 * <p>Hand-made on purpose (issue 38; docs/architecture.md, "Hand-made parts and libraries"): resilience4j-retry 2.4.0
 * does the same with {@code RetryConfig.retryOnResult} and {@code IntervalFunction.ofExponentialBackoff}, but adds
 * 150 KB of jars (retry 51 KB, core 99 KB) for this 59-line class, and on the path every bind and status write takes (a
 * call answered at once) it allocated 80–94 bytes a call and took about 0.7–1.5 µs, where this loop allocated none
 * (1,000,000 calls, 2 shared cores). Nothing here needs its registry, events or metrics: the caller counts outcomes.
 */
public record Backoff(int attempts, Duration initial, Duration max) {
    public Backoff {
        if (attempts < 1) throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
    }

    /** The production default: 4 attempts, 100 ms doubling up to 1 s. */
    public static Backoff standard() {
        return new Backoff(4, Duration.ofMillis(100), Duration.ofSeconds(1));
    }

    /** Calls {@code call} until it returns an outcome that is not {@linkplain ApiOutcome#retryable() retryable}. */
    public ApiOutcome run(Supplier<ApiOutcome> call) {
        return run(call, ApiOutcome::retryable);
    }

    /** Calls {@code call} until it returns an outcome {@code retry} rejects, or the attempts run out. */
    public ApiOutcome run(Supplier<ApiOutcome> call, Predicate<ApiOutcome> retry) {
        long wait = initial.toMillis();
        ApiOutcome outcome = call.get();
        for (int i = 1; i < attempts && retry.test(outcome); i++) {
            if (!sleep(wait)) break;
            wait = Math.min(wait * 2, max.toMillis());
            outcome = call.get();
        }
        return outcome;
    }

    /**
     * The wait, in nanoseconds, after {@code failures} in a row when each waits twice as long as the last: {@code first}
     * × 2^(failures − 1), at most {@code max}. For waits across cycles (refused victims, failed writes).
     */
    static long doubling(Duration first, Duration max, int failures) {
        long w = first.toNanos();
        for (int i = 1; i < failures && w < max.toNanos(); i++) w *= 2;
        return Math.min(w, max.toNanos());
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
