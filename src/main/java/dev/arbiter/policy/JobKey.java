package dev.arbiter.policy;

/**
 * Keys the job order sorts by: the job's priority, its creation, its name, or its {@code share}: its dominant resource
 * share (DRF, Volcano's {@code drf} plugin's job order): the largest fraction of the cluster's total, over the
 * resources queues share, that its running members hold, as the cycle starts.
 */
public enum JobKey implements Words.Worded {
    PRIORITY, CREATION, NAME, SHARE;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
