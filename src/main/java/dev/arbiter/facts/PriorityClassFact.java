package dev.arbiter.facts;

import dev.arbiter.policy.PreemptionPolicy;

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
}
