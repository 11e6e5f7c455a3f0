package dev.arbiter.sim;

/** A pod at the end of a simulation: Pending, Running (with its node) or Evicted (node null). */
public record PodOutcome(String pod, String phase, String node) {}
