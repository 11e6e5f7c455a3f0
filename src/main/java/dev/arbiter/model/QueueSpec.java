package dev.arbiter.model;

/**
 * A Volcano Queue. {@code capability} null means unlimited (a bound of zero is kept and forbids any use of that
 * resource, as {@link Caps} documents); {@code guarantee} is empty when unset;
 * {@code state} is Open unless the manifest says Closed/Closing; {@code parent} is null for a top-level queue (a
 * child of the implicit {@code root}); {@code dequeueStrategy} is {@code traverse} (a job that cannot be placed is
 * skipped) or {@code fifo} (the head job blocks the queue); {@code deserved} is the explicit per-resource share the
 * {@code capacity} policy pack uses (null when unset); {@code lendingLimit} is the most of its share, per named
 * resource, that it lends to other queues (the {@value #LENDING_LIMIT} annotation, Kueue's {@code lendingLimit}; null
 * when unset: it lends all it does not use; a bound of zero lends nothing of that resource).
 */
public record QueueSpec(String name, int weight, int priority, Caps capability, Resources guarantee,
                        boolean reclaimable, String state, String parent, int arrivalCycle,
                        String dequeueStrategy, Resources deserved, Caps lendingLimit) {
    public static final String DEFAULT = "default";
    public static final String ROOT = "root";
    public static final String TRAVERSE = "traverse";
    public static final String FIFO = "fifo";
    /**
     * The Queue annotation that sets its lending limit, e.g. {@code "nvidia.com/gpu=4,cpu=16"}: an annotation because
     * Volcano's Queue CRD is structural (no {@code x-kubernetes-preserve-unknown-fields} on {@code spec}), so the API
     * server would prune an unknown spec field.
     */
    public static final String LENDING_LIMIT = "arbiter.dev/lending-limit";

    public QueueSpec {
        if (dequeueStrategy == null || dequeueStrategy.isEmpty()) dequeueStrategy = TRAVERSE;
        // Queue names are few and asked about for every job and victim: one string per name, so that a lookup by a
        // job's queue finds its queue by identity (PodGroupSpec interns its queue too), its hash computed once.
        if (name != null) name = name.intern();
        if (parent != null) parent = parent.intern();
    }

    /** A queue without a lending limit. */
    public QueueSpec(String name, int weight, int priority, Caps capability, Resources guarantee,
                     boolean reclaimable, String state, String parent, int arrivalCycle,
                     String dequeueStrategy, Resources deserved) {
        this(name, weight, priority, capability, guarantee, reclaimable, state, parent, arrivalCycle, dequeueStrategy,
                deserved, null);
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
                dequeueStrategy, deserved, lendingLimit);
    }

    /** The parent queue's name, {@code root} for a top-level queue. */
    public String parentOrRoot() {
        return parent == null || parent.isEmpty() ? ROOT : parent;
    }
}
