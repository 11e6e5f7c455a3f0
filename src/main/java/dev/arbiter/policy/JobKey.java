package dev.arbiter.policy;

/** Keys the job order sorts by. */
public enum JobKey implements Words.Worded {
    PRIORITY, CREATION, NAME;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
