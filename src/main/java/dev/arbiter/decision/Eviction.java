package dev.arbiter.decision;

/**
 * Evict {@code pod} from {@code node} so that PodGroup {@code forPodGroup} can run. {@code action} is
 * {@code preempt} or {@code reclaim}; {@code rule} names the grant that allowed it; {@code reason} is one line.
 */
public record Eviction(String pod, String node, String action, String forPodGroup, String rule, String reason) {}
