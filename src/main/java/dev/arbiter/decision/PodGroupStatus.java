package dev.arbiter.decision;

/**
 * What a cycle concluded about one PodGroup: its phase (Pending, Inqueue or Running), its gang size and running
 * members, and the one-line reason it is not running (null when it is). {@code rule} names the rule behind the
 * reason, when one decided it. {@code domain} is the network domain the cycle started it in (a gang with a network
 * topology, bound or waiting on victims there), or null.
 */
public record PodGroupStatus(String podGroup, String queue, String phase, int minMember, int running, int pending,
                             String reason, String rule, String domain) {
    /** A status without a network domain. */
    public PodGroupStatus(String podGroup, String queue, String phase, int minMember, int running, int pending,
                          String reason, String rule) {
        this(podGroup, queue, phase, minMember, running, pending, reason, rule, null);
    }
}
