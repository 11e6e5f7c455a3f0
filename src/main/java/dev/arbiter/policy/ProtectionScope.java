package dev.arbiter.policy;

/** What a protection covers: every eviction, or reclaim only (a higher-priority job of the queue may preempt). */
public enum ProtectionScope implements Words.Worded {
    ALL, RECLAIM;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
