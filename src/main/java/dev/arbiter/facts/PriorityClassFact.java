package dev.arbiter.facts;

import dev.arbiter.policy.PreemptionPolicy;
import java.util.Objects;

/** A PriorityClass: its value, whether it is the cluster default, and its preemption policy (null: unset). */
public final class PriorityClassFact {
    private final String name;
    private final int value;
    private final boolean globalDefault;
    private final PreemptionPolicy preemptionPolicy;

    public PriorityClassFact(String name, int value, boolean globalDefault, PreemptionPolicy preemptionPolicy) {
        this.name = name;
        this.value = value;
        this.globalDefault = globalDefault;
        this.preemptionPolicy = preemptionPolicy;
    }

    public String getName() { return name; }
    public int getValue() { return value; }
    public boolean isGlobalDefault() { return globalDefault; }
    public PreemptionPolicy getPreemptionPolicy() { return preemptionPolicy; }

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof PriorityClassFact o)) return false;
        return Objects.equals(name, o.name)
                && value == o.value
                && globalDefault == o.globalDefault
                && Objects.equals(preemptionPolicy, o.preemptionPolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, value, globalDefault, preemptionPolicy);
    }
}
