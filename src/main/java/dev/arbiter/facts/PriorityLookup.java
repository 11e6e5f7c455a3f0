package dev.arbiter.facts;

import org.kie.api.definition.type.Modifies;

/**
 * One priority class name in use (null: pods and PodGroups that name none), to be resolved by the priority rules
 * into a value and a preemption policy. The engine inserts one lookup per distinct name and gives every job and task
 * its resolved value, so priority policy costs one rule firing per class, not one per pod.
 */
public final class PriorityLookup {
    private final String name;
    private int value;
    private String preemptionPolicy;
    private boolean resolved;
    private String rule;

    public PriorityLookup(String name) {
        this.name = name;
    }

    public String getName() { return name; }
    public int getValue() { return value; }
    public String getPreemptionPolicy() { return preemptionPolicy; }
    public boolean isResolved() { return resolved; }
    /** The rule that resolved this name. */
    public String getRule() { return rule; }

    @Modifies({"value", "preemptionPolicy", "resolved", "rule"})
    public void resolve(int value, String preemptionPolicy, String rule) {
        this.value = value;
        this.preemptionPolicy = preemptionPolicy;
        this.resolved = true;
        this.rule = rule;
    }
}
