package dev.arbiter.decision;

/**
 * What a cycle concluded about one PodGroup: its phase (Pending, Inqueue or Running), its gang size and running
 * members, and the one-line reason it is not running (null when it is). {@code rule} names the rule behind the
 * reason, when one decided it.
 */
public record PodGroupStatus(String podGroup, String queue, String phase, int minMember, int running, int pending,
                             String reason, String rule) {}
