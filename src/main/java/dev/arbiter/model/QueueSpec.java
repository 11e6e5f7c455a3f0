package dev.arbiter.model;

/**
 * A Volcano Queue. {@code capability} null means unlimited (a bound of zero is kept and forbids any use of that
 * resource, as {@link Caps} documents); {@code guarantee} is empty when unset;
 * {@code state} is Open unless the manifest says Closed/Closing; {@code parent} is null for a top-level queue (a
 * child of the implicit {@code root}); {@code dequeueStrategy} is {@code traverse} (a job that cannot be placed is
 * skipped) or {@code fifo} (the head job blocks the queue); {@code deserved} is the explicit per-resource share the
 * {@code capacity} policy pack uses (null when unset).
 */
public record QueueSpec(String name, int weight, int priority, Caps capability, Resources guarantee,
                        boolean reclaimable, String state, String parent, int arrivalCycle,
                        String dequeueStrategy, Resources deserved) {
    public static final String DEFAULT = "default";
    public static final String ROOT = "root";
    public static final String TRAVERSE = "traverse";
    public static final String FIFO = "fifo";

    public QueueSpec {
        if (dequeueStrategy == null || dequeueStrategy.isEmpty()) dequeueStrategy = TRAVERSE;
        // Queue names are few and asked about for every job and victim: one string per name, so that a lookup by a
        // job's queue finds its queue by identity (PodGroupSpec interns its queue too), its hash computed once.
        if (name != null) name = name.intern();
        if (parent != null) parent = parent.intern();
    }

    /** A queue with the default dequeue strategy and no explicit deserved share. */
    public QueueSpec(String name, int weight, int priority, Caps capability, Resources guarantee,
                     boolean reclaimable, String state, String parent, int arrivalCycle) {
        this(name, weight, priority, capability, guarantee, reclaimable, state, parent, arrivalCycle, TRAVERSE, null);
    }

    public static QueueSpec defaultQueue() {
        return new QueueSpec(DEFAULT, 1, 0, null, Resources.NONE, true, "Open", null, 0);
    }

    /** This queue as it arrives at {@code cycle} (live objects are all present from the start). */
    public QueueSpec withArrivalCycle(int cycle) {
        return new QueueSpec(name, weight, priority, capability, guarantee, reclaimable, state, parent, cycle,
                dequeueStrategy, deserved);
    }

    /** The parent queue's name, {@code root} for a top-level queue. */
    public String parentOrRoot() {
        return parent == null || parent.isEmpty() ? ROOT : parent;
    }
}
