package dev.arbiter.policy;

/** Keys the task order sorts by ({@code leader} sorts leaders first with {@code first}, last with {@code last}). */
public enum TaskKey implements Words.Worded {
    PRIORITY, LEADER, CREATION, NAME;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
