package dev.arbiter.facts;

import java.util.Objects;

/**
 * One priority class name in use (null: pods and PodGroups that name none), for the priority rules to decide a
 * value for ({@link PriorityOf}). The engine inserts one lookup per distinct name and gives every job and task the
 * decided value, so priority policy costs one rule firing per class, not one per pod. Immutable.
 */
public final class PriorityLookup {
    private final String name;

    public PriorityLookup(String name) {
        this.name = name;
    }

    public String getName() { return name; }

    @Override
    public String toString() {
        return "PriorityLookup[" + name + "]";
    }

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof PriorityLookup o)) return false;
        return Objects.equals(name, o.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name);
    }
}
