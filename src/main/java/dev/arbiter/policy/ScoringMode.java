package dev.arbiter.policy;

/** How nodes are scored among those that fit: the fullest first (binpack) or the emptiest (spread). */
public enum ScoringMode implements Words.Worded {
    BINPACK, SPREAD;

    /** The mode spelled {@code word} ({@code binpack} or {@code spread}), or null for any other word or null. */
    public static ScoringMode named(String word) {
        for (ScoringMode m : values()) if (m.word().equals(word)) return m;
        return null;
    }

    /** The mode spelled {@code binpack} or {@code spread}; null for null; else an error naming both. */
    public static ScoringMode parse(String word) {
        if (word == null) return null;
        ScoringMode m = named(word);
        if (m == null) throw new IllegalArgumentException("scoring must be binpack or spread, got " + word);
        return m;
    }

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
