package dev.arbiter.policy;

/** A queue's dequeue strategy: a job that cannot start lets the next one try (traverse) or holds it back (fifo). */
public enum DequeueStrategy implements Words.Worded {
    TRAVERSE, FIFO;

    /** A queue spec's {@code dequeueStrategy}: fifo, else traverse. */
    public static DequeueStrategy of(String strategy) {
        return "fifo".equals(strategy) ? FIFO : TRAVERSE;
    }

    @Override
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
