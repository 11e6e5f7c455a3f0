package dev.arbiter.live;

/**
 * A token bucket read on demand, as client-go's {@code flowcontrol.NewTokenBucketPassiveRateLimiterWithClock}: it
 * holds up to {@code burst} tokens, starts full, gains {@code perSecond} tokens a second, and {@link #tryTake} takes one
 * when there is one. The caller passes the time ({@link System#nanoTime()} in production), so tests need no clock.
 * Example: burst 25, one token per 300 s — 25 events pass at once, the 26th is refused, one more passes 5 minutes later.
 *
 * <p>Hand-made on purpose (issue 38; docs/architecture.md, "Hand-made parts and libraries"): Guava's
 * {@code RateLimiter} cannot hold a burst larger than one second of its rate (25 tokens at 1/300 s is a burst of
 * 7,500 seconds), and resilience4j's {@code RateLimiter} is a fixed window (25 per 125 minutes would make the 26th
 * event wait up to 125 minutes instead of 5). One bucket is 44 bytes, against 583 for a resilience4j limiter and 156
 * for Guava's; {@link EventRecorder} keeps 4,096 of them. Not thread-safe: the owner synchronizes.
 */
final class TokenBucket {
    private final double burst;
    private final double perNano;
    private double tokens;
    private long atNanos;

    TokenBucket(int burst, double perSecond, long nowNanos) {
        if (burst < 1 || perSecond <= 0) throw new IllegalArgumentException("a token bucket needs burst >= 1 and a positive rate");
        this.burst = burst;
        this.perNano = perSecond / 1e9;
        this.tokens = burst;
        this.atNanos = nowNanos;
    }

    /** Takes a token if one is there at {@code nowNanos}. */
    boolean tryTake(long nowNanos) {
        refill(nowNanos);
        if (tokens < 1) return false;
        tokens -= 1;
        return true;
    }

    /** Nanoseconds from {@code nowNanos} until a token is there (0 when one is). */
    long nanosUntilToken(long nowNanos) {
        refill(nowNanos);
        return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / perNano);
    }

    private void refill(long nowNanos) {
        tokens = Math.min(burst, tokens + Math.max(0, nowNanos - atNanos) * perNano);
        atNanos = Math.max(atNanos, nowNanos);
    }
}
