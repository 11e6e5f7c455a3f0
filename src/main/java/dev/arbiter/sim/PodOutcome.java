package dev.arbiter.sim;

/**
 * A pod at the end of a simulation: Pending, Running (with its node), Evicted (node null), or Succeeded or Failed as
 * the manifests said (with the node it ran on; it holds nothing there).
 */
public record PodOutcome(String pod, String phase, String node) {}
