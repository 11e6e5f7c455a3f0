package dev.arbiter.policy;

/** Keys the queue order sorts by. */
public enum QueueKey implements Words.Worded {
    PRIORITY, SHARE, NAME;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
