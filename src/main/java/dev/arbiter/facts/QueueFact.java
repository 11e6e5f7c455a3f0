package dev.arbiter.facts;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.DequeueStrategy;
import dev.arbiter.policy.QueuePhase;
import java.util.Objects;

/**
 * A queue, as Java measured it from the snapshot: immutable, inserted once per cycle, never modified by rules.
 * {@code request}, {@code allocated} and {@code inqueue} cover the queue's whole subtree; {@code request} is what its
 * jobs ask for (running plus pending tasks, Volcano's proportion), {@code inqueue} the part of admitted jobs' minimum
 * resources not yet allocated. {@code guarantee} is the larger of its own and its children's (scaled down when all
 * guarantees together pass the cluster). {@code capability} null means unlimited; a bound of zero forbids. The queue's
 * fair share comes later, as a {@link QueueShare}.
 */
public final class QueueFact {
    private final String name;
    private final String parent;
    private final int weight;
    private final int priority;
    private final QueuePhase phase;
    private final boolean open;
    private final boolean reclaimable;
    private final Caps capability;
    private final Resources guarantee;
    private final Resources request;
    private final Resources allocated;
    private final Resources inqueue;
    private final DequeueStrategy dequeueStrategy;
    private final Resources explicitDeserved;
    private final Caps lendingLimit;

    /**
     * {@code parent} is the parent's name ({@code root} for a top-level queue); {@code open} is false for a queue
     * that is not Open or that the queue tree cut loose; {@code explicitDeserved} is {@code spec.deserved} (null when
     * unset); {@code lendingLimit} is the most of its share it lends, per named resource (the Queue's
     * {@code arbiter.dev/lending-limit} annotation; null when unset).
     */
    public QueueFact(String name, String parent, int weight, int priority, QueuePhase phase, boolean open,
                     boolean reclaimable, Caps capability, Resources guarantee, Resources request, Resources allocated,
                     Resources inqueue, DequeueStrategy dequeueStrategy, Resources explicitDeserved,
                     Caps lendingLimit) {
        this.name = name;
        this.parent = parent;
        this.weight = weight;
        this.priority = priority;
        this.phase = phase;
        this.open = open;
        this.reclaimable = reclaimable;
        this.capability = capability;
        this.guarantee = guarantee;
        this.request = request;
        this.allocated = allocated;
        this.inqueue = inqueue;
        this.dequeueStrategy = dequeueStrategy;
        this.explicitDeserved = explicitDeserved;
        this.lendingLimit = lendingLimit;
    }

    public String getName() { return name; }
    public String getParent() { return parent; }
    public int getWeight() { return weight; }
    public int getPriority() { return priority; }
    public QueuePhase getPhase() { return phase; }
    public boolean isOpen() { return open; }
    public boolean isReclaimable() { return reclaimable; }
    /** {@code spec.capability}: null when unset (unlimited); a bound of zero forbids the resource. */
    public Caps getCapability() { return capability; }
    public boolean isCapped() { return capability != null; }
    public Resources getGuarantee() { return guarantee; }
    public Resources getRequest() { return request; }
    public Resources getAllocated() { return allocated; }
    public Resources getInqueue() { return inqueue; }
    public DequeueStrategy getDequeueStrategy() { return dequeueStrategy; }
    public Resources getExplicitDeserved() { return explicitDeserved; }
    /** The most of its share the queue lends, per named resource; null when it lends all it does not use. */
    public Caps getLendingLimit() { return lendingLimit; }

    @Override
    public String toString() {
        return "QueueFact[" + name + "]";
    }

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof QueueFact o)) return false;
        return Objects.equals(name, o.name)
                && Objects.equals(parent, o.parent)
                && weight == o.weight
                && priority == o.priority
                && Objects.equals(phase, o.phase)
                && open == o.open
                && reclaimable == o.reclaimable
                && Objects.equals(capability, o.capability)
                && Objects.equals(guarantee, o.guarantee)
                && Objects.equals(request, o.request)
                && Objects.equals(allocated, o.allocated)
                && Objects.equals(inqueue, o.inqueue)
                && Objects.equals(dequeueStrategy, o.dequeueStrategy)
                && Objects.equals(explicitDeserved, o.explicitDeserved)
                && Objects.equals(lendingLimit, o.lendingLimit);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, parent, weight, priority, phase, open, reclaimable, capability, guarantee, request, allocated, inqueue, dequeueStrategy, explicitDeserved, lendingLimit);
    }
}
