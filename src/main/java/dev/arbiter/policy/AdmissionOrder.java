package dev.arbiter.policy;

/** How admission goes through the queues: one job per queue in turn (as Volcano's enqueue), or queue by queue. */
public enum AdmissionOrder implements Words.Worded {
    INTERLEAVED, QUEUE_BY_QUEUE("queue by queue");

    private final String word;

    AdmissionOrder() {
        this.word = name().toLowerCase(java.util.Locale.ROOT);
    }

    AdmissionOrder(String word) {
        this.word = word;
    }

    @Override
    public String word() {
        return word;
    }
}
