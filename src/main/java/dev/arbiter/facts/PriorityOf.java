package dev.arbiter.facts;

import dev.arbiter.policy.PreemptionPolicy;

/**
 * What the priority rules decided for one priority class name ({@code name} null: no class): its {@code value} and
 * {@code preemptionPolicy} (null: preempts). Every job and pod naming it takes the value (a pod's own
 * {@code spec.priority} wins). {@code rule} inserted it.
 */
public record PriorityOf(String name, int value, PreemptionPolicy preemptionPolicy, String rule) {}
