package dev.arbiter.policy;

/** How nodes are scored among those that fit: the fullest first (binpack) or the emptiest (spread). */
public enum ScoringMode implements Words.Worded {
    BINPACK, SPREAD;

    /** The mode spelled {@code binpack} or {@code spread}; null for null; else an error naming both. */
    public static ScoringMode parse(String word) {
        if (word == null) return null;
        for (ScoringMode m : values()) if (m.word().equals(word)) return m;
        throw new IllegalArgumentException("scoring must be binpack or spread, got " + word);
    }

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
