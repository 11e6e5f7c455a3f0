package dev.arbiter.policy;

/**
 * Keys the queue order sorts by: the queue's priority, its share (its allocation's dominant share of its deserved
 * share), its usage (its decayed past usage's dominant share of the cluster over its weight; needs
 * {@code shares.usageHalfLife}), its name.
 */
public enum QueueKey implements Words.Worded {
    PRIORITY, SHARE, USAGE, NAME;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
