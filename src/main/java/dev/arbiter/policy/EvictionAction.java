package dev.arbiter.policy;

/** Why a pod is evicted. */
public enum EvictionAction implements Words.Worded {
    PREEMPT, RECLAIM;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
