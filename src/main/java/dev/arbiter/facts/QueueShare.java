package dev.arbiter.facts;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.Objects;

/**
 * A queue's fair share, as the Java fair-share step computed it from the rules' {@link ShareTerms} and
 * {@link DeservedShare} facts, inserted before the policy rules fire: what it {@code deserved}s, the most it could
 * ever deserve ({@code realCapability}: its capability within what other queues' guarantees leave), whether its
 * allocation covers its share in every dimension ({@code overused}: Volcano's overused, it may not reclaim) and
 * whether it holds more than its share in some dimension ({@code aboveDeserved}: others may reclaim that), and what of
 * its share it keeps for itself ({@code kept}: the share it would deserve asking for everything, less its
 * {@link LendingLimit}, in the resources the limit names; empty for a queue without one).
 */
public final class QueueShare {
    private final String queue;
    private final Resources deserved;
    private final Caps realCapability;
    private final boolean overused;
    private final boolean aboveDeserved;
    private final Resources kept;

    public QueueShare(String queue, Resources deserved, Caps realCapability, boolean overused, boolean aboveDeserved) {
        this(queue, deserved, realCapability, overused, aboveDeserved, Resources.NONE);
    }

    public QueueShare(String queue, Resources deserved, Caps realCapability, boolean overused, boolean aboveDeserved,
                      Resources kept) {
        this.kept = kept;
        this.queue = queue;
        this.deserved = deserved;
        this.realCapability = realCapability;
        this.overused = overused;
        this.aboveDeserved = aboveDeserved;
    }

    public String getQueue() { return queue; }
    public Resources getDeserved() { return deserved; }
    public Caps getRealCapability() { return realCapability; }
    public boolean isOverused() { return overused; }
    public boolean isAboveDeserved() { return aboveDeserved; }
    /** What of its share the queue keeps for itself and never lends; empty without a lending limit. */
    public Resources getKept() { return kept; }

    @Override
    public String toString() {
        return "QueueShare[" + queue + " deserved " + deserved + "]";
    }

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof QueueShare o)) return false;
        return Objects.equals(queue, o.queue)
                && Objects.equals(deserved, o.deserved)
                && Objects.equals(realCapability, o.realCapability)
                && overused == o.overused
                && aboveDeserved == o.aboveDeserved
                && Objects.equals(kept, o.kept);
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(queue, deserved, realCapability, overused, aboveDeserved);
        return kept.isEmpty() ? h : 31 * h + kept.hashCode();
    }
}
