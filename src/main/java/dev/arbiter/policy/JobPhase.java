package dev.arbiter.policy;

/** A PodGroup's phase at the start of a cycle. */
public enum JobPhase implements Words.Worded {
    PENDING("Pending"), INQUEUE("Inqueue"), RUNNING("Running");

    private final String phase;

    JobPhase(String phase) {
        this.phase = phase;
    }

    /** The phase as Volcano writes it ({@code Pending}, {@code Inqueue}, {@code Running}). */
    public String phase() {
        return phase;
    }

    @Override
    public String word() {
        return phase.toLowerCase(java.util.Locale.ROOT);
    }

    /** The phase a PodGroup carries; anything Arbiter does not schedule from (e.g. Completed) counts as Running. */
    public static JobPhase of(String phase) {
        if (phase == null || phase.equals("Pending")) return PENDING;
        return phase.equals("Inqueue") ? INQUEUE : RUNNING;
    }
}
