package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;

import dev.arbiter.facts.GangRequirement;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's gang requirement and, per pending task, its request, share, role and node constraints: what of a job's
 * shape stays the same for the whole cycle, worked out once, its hash with it. It is kept for the job (by a kept
 * working copy across cycles, {@code KeptJob#evictionShape}; else for the cycle) and serves later cycles too while it
 * {@link #stillFor} the job: at 10k × 100k the eviction steps ask it of some 15,000 starving jobs a cycle.
 */
public final class EvictionShape {
    public static final EvictionShape NONE = new EvictionShape(List.of(), null, false);
    private final List<Object> parts;
    private final int hash;
    /** The pending tasks it was worked out from, in task order. */
    private final Task[] of;
    /**
     * None of those pods states a placement rule, and no pod of the cycle had an anti-affinity term: every part
     * is the pods' own, and stays so in any cycle where that holds.
     */
    private final boolean plain;

    private EvictionShape(List<Object> parts, Task[] of, boolean plain) {
        this.parts = parts;
        this.hash = parts.hashCode();
        this.of = of;
        this.plain = plain;
    }

    /** {@link #NONE} when a pod's placement depends on other pods. */
    public static EvictionShape of(Job j, GangRequirement gang, NodeFitter fitter) {
        List<Object> parts = new ArrayList<>();
        parts.add(gang.minMember());
        parts.add(gang.minTaskMember());
        boolean plain = !fitter.anyExistingAntiAffinity();
        // Alike pods (no rule of their own, and no anti-affinity in the cycle to tell them apart) have equal
        // requests, shares and constraints (a domain confines all of a job's pending pods or none): the first
        // pod's serve for the rest, whose roles may still differ.
        boolean alike = plain && j.pendingAlike();
        Task first = null;
        Object firstConstraints = null;
        for (Task t : j.pending) {
            if (first != null) {
                parts.add(first.request());
                parts.add(first.share());
                parts.add(String.valueOf(t.pod.taskRole()));
                parts.add(firstConstraints);
                continue;
            }
            Object constraints = fitter.ownConstraintsKey(t.pod);
            if (constraints == null) return NONE;
            parts.add(t.request());
            parts.add(t.share());
            parts.add(String.valueOf(t.pod.taskRole()));
            parts.add(constraints);
            plain &= t.pod.placement() == dev.arbiter.model.Placement.NONE;
            if (alike) {
                first = t;
                firstConstraints = constraints;
            }
        }
        return new EvictionShape(parts, j.pending.toArray(new Task[0]), plain);
    }

    /**
     * Whether it is still the job's shape: the same pending tasks in the same order, the same gang requirement,
     * and pods whose fit depends on no other pod (no rule of their own, and no pod of the cycle's with an
     * anti-affinity term that could match them).
     */
    public boolean stillFor(Job j, GangRequirement gang, NodeFitter fitter) {
        if (!plain || fitter.anyExistingAntiAffinity() || of.length != j.pending.size()) return false;
        if (!parts.get(0).equals(gang.minMember()) || !parts.get(1).equals(gang.minTaskMember())) return false;
        for (int i = 0; i < of.length; i++) if (of[i] != j.pending.get(i)) return false;
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EvictionShape other && other.hash == hash && other.parts.equals(parts);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
