package dev.arbiter.forecast;

import dev.arbiter.model.Runtimes;
import java.time.Instant;

/**
 * The one place an estimated start becomes words, for {@code explain}, {@code simulate}, the report and live status:
 * {@code in 2h10m (at 2026-12-05T01:40:00Z)}, {@code none — job team-b/x, which it waits on, has no runtime estimate}.
 */
public final class StartWords {
    private StartWords() {}

    /**
     * How a clock's seconds are shown: as RFC 3339 times of a wall clock whose second 0 is {@code epochOfZero} (live:
     * 0; a live snapshot rebased to the simulator's second 0: the time it was taken), or as simulated seconds.
     */
    public record Clock(boolean wall, long epochOfZero) {
        public static final Clock SIMULATED = new Clock(false, 0);
        public static final Clock EPOCH = new Clock(true, 0);

        public static Clock rebasedAt(Instant taken) {
            return new Clock(true, taken.getEpochSecond());
        }

        /** {@code 2026-12-05T01:40:00Z}, or {@code simulated second 7810}. */
        public String at(long second) {
            return wall ? Instant.ofEpochSecond(epochOfZero + second).toString() : "simulated second " + second;
        }
    }

    /** {@code in 2h10m (at …)}, {@code now (at …)}, or {@code none — …}. */
    public static String line(StartEstimate e, long now, Clock clock) {
        if (!e.isKnown()) return "none — " + why(e, 0);
        long in = e.secondsAfter(now);
        return (in == 0 ? "now" : "in " + Runtimes.show(in)) + " (at " + clock.at(e.at()) + ")";
    }

    /** {@link #line} with the horizon named when the job is beyond it. */
    public static String line(StartEstimate e, Forecast f, Clock clock) {
        if (!e.isKnown()) return "none — " + why(e, f.horizonSeconds());
        return line(e, f.now(), clock);
    }

    /** Why a job has no estimated start, in words (horizonSeconds 0: not named). */
    public static String why(StartEstimate e, long horizonSeconds) {
        return switch (e.none()) {
            case KNOWN -> "";
            case WAITS_ON_UNKNOWN_END -> "job " + e.waitsOn() + ", which it waits on, has no runtime estimate";
            case BEYOND_HORIZON -> "it would not start within the forecast's horizon"
                    + (horizonSeconds > 0 ? " (" + Runtimes.show(horizonSeconds) + ")" : "");
            case NEVER -> "it would not start even once every running job with an estimate has ended";
        };
    }

    /** A short form for tables: {@code 2h10m}, {@code now}, {@code none (waits on team-b/x)}, {@code none (horizon)}. */
    public static String brief(StartEstimate e, long now) {
        if (e.isKnown()) {
            long in = e.secondsAfter(now);
            return in == 0 ? "now" : "in " + Runtimes.show(in);
        }
        return switch (e.none()) {
            case WAITS_ON_UNKNOWN_END -> "none (waits on " + e.waitsOn() + ")";
            case BEYOND_HORIZON -> "none (beyond horizon)";
            default -> "none (would not start)";
        };
    }

    /** The machine form of why: {@code waitsOnUnknownEnd}, {@code beyondHorizon}, {@code never}, or null when known. */
    public static String code(StartEstimate e) {
        return switch (e.none()) {
            case KNOWN -> null;
            case WAITS_ON_UNKNOWN_END -> "waitsOnUnknownEnd";
            case BEYOND_HORIZON -> "beyondHorizon";
            case NEVER -> "never";
        };
    }
}
