package dev.arbiter.facts;

/** A job that may not evict anyone (neither preempt nor reclaim), with the reason. {@code rule} inserted it. */
public record NoPreemption(String job, String reason, String rule) {}
