package dev.arbiter.policy;

/** A queue's state: only an open queue admits, allocates and reclaims. */
public enum QueuePhase implements Words.Worded {
    OPEN, CLOSED, CLOSING;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code status.state}: Open unless it says Closed or Closing. */
    public static QueuePhase of(String state) {
        if ("Closed".equals(state)) return CLOSED;
        return "Closing".equals(state) ? CLOSING : OPEN;
    }
}
