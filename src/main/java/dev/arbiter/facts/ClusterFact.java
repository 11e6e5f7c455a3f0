package dev.arbiter.facts;

import dev.arbiter.model.Resources;

/** The whole cluster's schedulable capacity (allocatable of nodes that are not cordoned) and the sum of guarantees. */
public final class ClusterFact {
    private final Resources total;
    private final Resources guaranteed;

    public ClusterFact(Resources total, Resources guaranteed) {
        this.total = total;
        this.guaranteed = guaranteed;
    }

    public Resources getTotal() { return total; }

    public Resources getGuaranteed() { return guaranteed; }

    /** What fair share divides: the total minus every queue's guarantee. */
    public Resources getShareable() { return total.subtract(guaranteed).clampNonNegative(); }
}
