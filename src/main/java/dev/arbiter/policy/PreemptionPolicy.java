package dev.arbiter.policy;

/** A pod's or PriorityClass's {@code preemptionPolicy}. */
public enum PreemptionPolicy implements Words.Worded {
    PREEMPT_LOWER_PRIORITY("PreemptLowerPriority"), NEVER("Never");

    private final String spelling;

    PreemptionPolicy(String spelling) {
        this.spelling = spelling;
    }

    @Override
    public String word() {
        return spelling.toLowerCase(java.util.Locale.ROOT);
    }

    /** The Kubernetes spelling, or null for none. */
    public static PreemptionPolicy of(String spelling) {
        if (spelling == null) return null;
        return spelling.equals("Never") ? NEVER : PREEMPT_LOWER_PRIORITY;
    }
}
