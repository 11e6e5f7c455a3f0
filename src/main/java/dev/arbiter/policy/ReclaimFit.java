package dev.arbiter.policy;

import dev.arbiter.model.Resources;

/**
 * How a reclaiming queue's job must fit under the ceiling its grant states (its deserved share), in the resources the
 * job asks for: in every one of them ({@link #EVERY_NEEDED}, Volcano's {@code proportion} plugin and the shipped
 * policy), or in at least one ({@link #SOME_NEEDED}, Volcano's {@code capacity} plugin: a queue over its memory share
 * but under its GPU share may still reclaim for a job that asks for both).
 */
public enum ReclaimFit {
    EVERY_NEEDED, SOME_NEEDED;

    /** Whether {@code allocated} plus {@code need} fits under {@code ceiling} as this fit says (absent: none). */
    public boolean admits(Resources allocated, Resources need, Resources ceiling) {
        if (this == EVERY_NEEDED) return allocated.plusWithinIn(need, ceiling, need);
        boolean asks = false;
        for (int i = 0; i < need.size(); i++) {
            if (need.milliAt(i) <= 0) continue;
            asks = true;
            String d = need.name(i);
            if (Resources.addSaturated(allocated.milli(d), need.milliAt(i)) <= ceiling.milli(d)) return true;
        }
        return !asks;
    }
}
