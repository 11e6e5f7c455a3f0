package dev.arbiter.forecast;

/**
 * A pending job's estimated start: {@code at}, on the snapshot's clock (epoch seconds live, simulated seconds in the
 * simulator), or -1 with {@code none} saying why it cannot be known. {@code waitsOn} names, for {@link
 * None#WAITS_ON_UNKNOWN_END}, the running job without a runtime estimate it waits on (null otherwise). {@code queue}
 * is the job's queue (the metric counts by it).
 */
public record StartEstimate(String job, String queue, long at, None none, String waitsOn) {
    /** Why a job has no estimated start. */
    public enum None {
        /** It has one. */
        KNOWN,
        /**
         * It did not start in the forward run while a job without a runtime estimate was still running at its end: it
         * may start once that job ends, and when that is, no one said.
         */
        WAITS_ON_UNKNOWN_END,
        /** It did not start within the horizon (simulated time, or the cap on cycles), every running job's end known. */
        BEYOND_HORIZON,
        /** The forward run settled with it still pending and nothing left to end: it would not start by waiting. */
        NEVER
    }

    public static StartEstimate known(String job, String queue, long at) {
        return new StartEstimate(job, queue, at, None.KNOWN, null);
    }

    public boolean isKnown() {
        return none == None.KNOWN;
    }

    /** Seconds from {@code now} to the start (0 when it is now or past), or -1 when none is known. */
    public long secondsAfter(long now) {
        return isKnown() ? Math.max(0, at - now) : -1;
    }
}
