package dev.arbiter.facts;

/**
 * The cycle's time, {@code now}, in seconds since the epoch: the one fact that moves every cycle. A rule about how long
 * something has run compares {@link TaskFact#getStartedAt()} with it, e.g.
 * {@code Clock($youngSince : now - 60)  TaskFact(startedAt >= 0, startedAt > $youngSince)} for the pods started in the
 * last minute. (Tasks carry when they started rather than how long they have run, so that a kept rules session
 * updates this one fact each cycle instead of every running task.)
 */
public final class Clock {
    private final long now;

    public Clock(long now) {
        this.now = now;
    }

    public long getNow() { return now; }

    /** How long something started at {@code startedAt} has run by now, in seconds (never negative). */
    public long since(long startedAt) {
        return Math.max(0, now - startedAt);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Clock o && o.now == now;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(now);
    }

    @Override
    public String toString() {
        return "Clock[now=" + now + "]";
    }
}
