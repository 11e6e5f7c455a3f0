package dev.arbiter.facts;

/** The lowest priority among a queue's running tasks: what a preemptor must beat to make room in that queue. */
public record LowestRunningPriority(String queue, int priority, String rule) {}
