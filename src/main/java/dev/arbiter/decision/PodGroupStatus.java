package dev.arbiter.decision;

/**
 * What a cycle concluded about one PodGroup: its phase (Pending, Inqueue or Running), its gang size and running
 * members, and the one-line reason it is not running (null when it is). {@code why} is that reason as data (the
 * {@link Refusal} {@link ReasonWords} worded; null when it is not running or the status was made from words alone),
 * {@code rule} names the rule behind the reason, when one decided it. {@code domain} is the network domain the cycle
 * started it in (a gang with a network topology, bound or waiting on victims there), or null.
 */
public record PodGroupStatus(String podGroup, String queue, String phase, int minMember, int running, int pending,
                             String reason, String rule, String domain, Refusal why) {
    /** A status whose reason is words alone. */
    public PodGroupStatus(String podGroup, String queue, String phase, int minMember, int running, int pending,
                          String reason, String rule, String domain) {
        this(podGroup, queue, phase, minMember, running, pending, reason, rule, domain, null);
    }

    /** A status without a network domain, whose reason is words alone. */
    public PodGroupStatus(String podGroup, String queue, String phase, int minMember, int running, int pending,
                          String reason, String rule) {
        this(podGroup, queue, phase, minMember, running, pending, reason, rule, null, null);
    }

    /** The status as words: {@code why} is the data behind {@code reason} and says nothing more. */
    @Override
    public String toString() {
        return "PodGroupStatus[podGroup=" + podGroup + ", queue=" + queue + ", phase=" + phase + ", minMember="
                + minMember + ", running=" + running + ", pending=" + pending + ", reason=" + reason + ", rule=" + rule
                + ", domain=" + domain + "]";
    }
}
