package dev.arbiter.model;

/** A {@code scheduling.k8s.io/v1} PriorityClass; {@code preemptionPolicy} is PreemptLowerPriority or Never. */
public record PriorityClassSpec(String name, int value, boolean globalDefault, String preemptionPolicy) {}
