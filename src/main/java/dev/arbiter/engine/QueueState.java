package dev.arbiter.engine;

import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.model.Caps;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;

/** A queue during one cycle: its spec, its fair-share fact, its live allocation, and its jobs in job order. */
final class QueueState {
    final QueueSpec spec;
    final List<Job> jobs = new ArrayList<>();
    QueueFact fact;
    AllocationLimit limit;
    Resources allocated = Resources.NONE;
    int cursor;

    QueueState(QueueSpec spec) {
        this.spec = spec;
    }

    String name() {
        return spec.name();
    }

    Resources deserved() {
        return fact == null ? Resources.NONE : fact.getDeserved();
    }

    double share() {
        return allocated.dominantShare(deserved());
    }

    /** Volcano's overused: the allocation covers the ceiling (the deserved share) in every dimension. */
    boolean reached(Resources ceiling) {
        return ceiling.fitsIn(allocated);
    }

    Caps hardCap() {
        return limit == null ? Caps.UNLIMITED : limit.hardCap();
    }

    @Override
    public String toString() {
        return name();
    }
}
