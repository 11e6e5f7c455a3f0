package dev.arbiter.policy;

/** How nodes are scored among those that fit: the fullest first (binpack) or the emptiest (spread). */
public enum ScoringMode implements Words.Worded {
    BINPACK, SPREAD;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
