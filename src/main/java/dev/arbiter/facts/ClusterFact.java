package dev.arbiter.facts;

import dev.arbiter.model.Resources;
import java.util.Objects;

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

    /** Equal when every field is: the kept rules session updates a fact only when it changed. */
    @Override
    public boolean equals(Object other) {
        if (this == other) return true;
        if (!(other instanceof ClusterFact o)) return false;
        return Objects.equals(total, o.total)
                && Objects.equals(guaranteed, o.guaranteed);
    }

    @Override
    public int hashCode() {
        return Objects.hash(total, guaranteed);
    }
}
