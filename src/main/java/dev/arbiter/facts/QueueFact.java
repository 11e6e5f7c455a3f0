package dev.arbiter.facts;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import org.kie.api.definition.type.Modifies;

/**
 * A queue with what Java measured ({@code request}, {@code allocated}, {@code inqueue}) and what the fair-share
 * rules derive ({@code deserved}, {@code overused}). {@code capability} null means unlimited.
 *
 * <p>{@code request} is what the queue's jobs ask for: running tasks plus pending tasks of admitted jobs
 * (Volcano's proportion). {@code inqueue} is the part of admitted-but-not-yet-running jobs' minimum resources that
 * is not yet allocated.
 */
public final class QueueFact {
    private final String name;
    private final int weight;
    private final int priority;
    private final boolean open;
    private final boolean reclaimable;
    private final Caps capability;
    private final Resources guarantee;
    private final Resources request;
    private final Resources allocated;
    private final Resources inqueue;
    private final String parent;
    private final String dequeueStrategy;
    private final Resources explicitDeserved;

    private Caps realCapability = Caps.UNLIMITED;
    private Resources deserved = Resources.NONE;
    private boolean met;
    private int lastRound;
    private boolean overused;
    private boolean aboveDeserved;
    private boolean shareSettled;
    private boolean capabilityResolved;
    private boolean levelSettled;

    /**
     * A queue in the tree: {@code parent} is the parent's name ({@code root} for a top-level queue);
     * {@code request}, {@code allocated} and {@code inqueue} cover the queue's whole subtree; {@code guarantee} is the
     * larger of its own and its children's; {@code explicitDeserved} is {@code spec.deserved} (null when unset).
     */
    public QueueFact(String name, String parent, int weight, int priority, boolean open, boolean reclaimable,
                     Caps capability, Resources guarantee, Resources request, Resources allocated,
                     Resources inqueue, String dequeueStrategy, Resources explicitDeserved) {
        this.name = name;
        this.parent = parent;
        this.weight = weight;
        this.priority = priority;
        this.open = open;
        this.reclaimable = reclaimable;
        this.capability = capability;
        this.guarantee = guarantee;
        this.request = request;
        this.allocated = allocated;
        this.inqueue = inqueue;
        this.dequeueStrategy = dequeueStrategy;
        this.explicitDeserved = explicitDeserved;
    }

    /** A top-level queue with the default dequeue strategy and no explicit deserved share. */
    public QueueFact(String name, int weight, int priority, boolean open, boolean reclaimable, Resources capability,
                     Resources guarantee, Resources request, Resources allocated, Resources inqueue) {
        this(name, "root", weight, priority, open, reclaimable, capability == null ? null : Caps.of(capability),
                guarantee, request, allocated, inqueue, "traverse", null);
    }

    public String getName() { return name; }
    public String getParent() { return parent; }
    public String getDequeueStrategy() { return dequeueStrategy; }
    public Resources getExplicitDeserved() { return explicitDeserved; }
    public boolean isLevelSettled() { return levelSettled; }
    public void setLevelSettled(boolean levelSettled) { this.levelSettled = levelSettled; }
    public int getWeight() { return weight; }
    public int getPriority() { return priority; }
    public boolean isOpen() { return open; }
    public boolean isReclaimable() { return reclaimable; }
    /** {@code spec.capability}: null when unset (unlimited); a bound of zero forbids the resource. */
    public Caps getCapability() { return capability; }
    public boolean isCapped() { return capability != null; }
    public Resources getGuarantee() { return guarantee; }
    public Resources getRequest() { return request; }
    public Resources getAllocated() { return allocated; }
    public Resources getInqueue() { return inqueue; }
    public Caps getRealCapability() { return realCapability; }
    public Resources getDeserved() { return deserved; }
    public boolean isMet() { return met; }
    public int getLastRound() { return lastRound; }
    public boolean isOverused() { return overused; }
    /** The allocation exceeds the deserved share in some dimension: what reclaim may take back (once settled). */
    public boolean isAboveDeserved() { return aboveDeserved; }
    public boolean isShareSettled() { return shareSettled; }
    public boolean isCapabilityResolved() { return capabilityResolved; }

    public void setRealCapability(Caps realCapability) { this.realCapability = realCapability; }
    public void setDeserved(Resources deserved) { this.deserved = deserved; }
    public void setMet(boolean met) { this.met = met; }
    public void setOverused(boolean overused) { this.overused = overused; }
    public void setShareSettled(boolean shareSettled) { this.shareSettled = shareSettled; }
    public void setCapabilityResolved(boolean capabilityResolved) { this.capabilityResolved = capabilityResolved; }

    /**
     * One water-filling step: add {@code weight/totalWeight} of {@code remaining} to the deserved share, cap it by the
     * real capability and by the request (only in the dimensions the queue requests), keep at least the guarantee,
     * and mark the queue met once it has all it asked for, or all it could get were it given everything that remains.
     * A step that rounds down to nothing (a weight of 1 next to 20,000) leaves the queue unmet, so it takes its part
     * in a later round, once the heavier queues are met.
     */
    @Modifies({"deserved", "met", "lastRound"})
    public void takeShare(Resources remaining, long totalWeight, int round) {
        Resources before = deserved;
        deserved = grown(before, remaining.scale(weight, totalWeight));
        met = request.fitsIn(deserved) || deserved.equals(grown(before, remaining));
        lastRound = round;
    }

    /** {@code from} plus {@code more}, within the real capability and the request, and at least the guarantee. */
    private Resources grown(Resources from, Resources more) {
        return realCapability.cap(from.add(more)).min(request).clampNonNegative().max(guarantee);
    }

    /**
     * Settles the queue's standing once its deserved share is final: {@code overused} when the allocation covers the
     * deserved share in every dimension (Volcano's overused: it may not reclaim), {@code aboveDeserved} when it holds
     * more than its deserved share in some dimension (Volcano's reclaimable: others may take that back).
     */
    @Modifies({"overused", "aboveDeserved", "shareSettled"})
    public void settleShare() {
        overused = deserved.fitsIn(allocated);
        aboveDeserved = !allocated.fitsIn(deserved);
        shareSettled = true;
    }

    /** Volcano's share: the largest ratio of allocated to deserved over the deserved dimensions. */
    public double share(Resources allocatedNow) {
        return allocatedNow.dominantShare(deserved);
    }
}
