package dev.arbiter.facts;

/**
 * How a job whose PodGroup names no priority class gets its priority: from its member pods, the highest of their
 * priorities, instead of the cluster's default class. (Volcano takes the default class.) Without this fact such a job
 * takes the default class's value, or zero. {@code rule} inserted it.
 */
public record PriorityFromPods(String rule) {}
