package dev.arbiter.policy;

/** A direction of an order key: {@code asc}/{@code first} sort the key's low values (or leaders) first. */
public enum Direction implements Words.Worded {
    ASC, DESC, FIRST, LAST;

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public boolean reversed() {
        return this == DESC || this == LAST;
    }
}
