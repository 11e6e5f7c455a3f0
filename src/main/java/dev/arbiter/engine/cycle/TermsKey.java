package dev.arbiter.engine.cycle;

import java.util.List;

/**
 * A victim search's terms as a key (the action, the queue, and the preemptor's priority or reclaim's usable
 * queues), hashed once and made once per queue and value: the eviction steps, the refusals they remember and the
 * searches' memories ask it of thousands of jobs a cycle.
 */
final class TermsKey {
    private final List<Object> parts;
    private final int hash;

    TermsKey(List<Object> parts) {
        this.parts = parts;
        this.hash = parts.hashCode();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || (o instanceof TermsKey k && k.hash == hash && k.parts.equals(parts));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return parts.toString();
    }
}
