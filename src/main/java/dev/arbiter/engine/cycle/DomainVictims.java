package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.NetworkDomains;
import dev.arbiter.engine.victims.VictimSelector;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.facts.GangRequirement;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * Where a hard gang that must evict should do it: victims come from a single network domain, and the domain is the
 * one whose victims are fewest, then cheapest (the lowest sum of their jobs' priorities), then of the lowest tier.
 *
 * <p>For each allowed domain that could hold the gang at all (its allocatable on the nodes the gang may use covers
 * what the missing members request), the gang is placed task by task with its pods confined to the domain, exactly
 * as the eviction phase will: idle room first, else the {@link VictimSelector}'s plan for the task. The
 * transaction is then discarded, so nothing changes; the eviction phase tries the ranked domains in turn with the real
 * budgets. The estimate ignores the eviction budgets and capabilities (the real attempt applies them), so it may rank
 * a domain the real attempt then refuses; the next domain is tried then.
 *
 * <p>Each estimate is a victim search per missing member, so their number is bounded: with more than
 * {@value #MAX_ESTIMATES} allowed domains (say a hostname level under racks and blocks), only those of the highest
 * tier among them are estimated. That loses no victim: a plan inside a node or a rack is also a plan inside the block
 * that holds it, and the search inside the block finds the fewest victims per member there.
 */
public final class DomainVictims {
    /** A domain where the gang could start with {@code victims} evictions costing {@code cost}. */
    public record Ranked(NetworkDomains.Domain domain, int victims, long cost) {}

    static final int MAX_ESTIMATES = 64;

    private final CycleWork w;

    DomainVictims(CycleWork w) {
        this.w = w;
    }

    /** The domains where the gang could start with victims evicted inside them, the best first. */
    List<Ranked> rank(Job j, GangRequirement gang, NetworkTopology want, VictimSelector.Terms terms) {
        Task first = null;
        for (Task t : j.pending) {
            if (!t.placed) {
                first = t;
                break;
            }
        }
        List<Ranked> out = new ArrayList<>();
        if (first == null) return out;
        Resources need = Allocation.missingRequests(j, gang);
        BitSet eligible = w.fitter.eligibleBits(first.pod);
        List<NetworkDomains.Fit> fits = new ArrayList<>();
        int highest = 0;
        for (NetworkDomains.Fit f : w.domains.measure(j, want, eligible)) {
            if (!need.fitsIn(f.allocatable())) continue;
            fits.add(f);
            highest = Math.max(highest, f.domain().tier);
        }
        for (NetworkDomains.Fit f : fits) {
            if (fits.size() > MAX_ESTIMATES && f.domain().tier < highest) continue;
            Ranked r = estimate(j, gang, terms, f.domain());
            if (r != null) out.add(r);
        }
        out.sort(Comparator.comparingInt(Ranked::victims).thenComparingLong(Ranked::cost)
                .thenComparingInt(r -> r.domain().tier).thenComparing(r -> r.domain().name));
        return out;
    }

    /** The victims the gang would need inside {@code d}, or null when no plan inside it starts the gang. */
    private Ranked estimate(Job j, GangRequirement gang, VictimSelector.Terms terms, NetworkDomains.Domain d) {
        w.fitter.confine(j.pending, d);
        GangTransaction tx = new GangTransaction(w.state, w.fitter);
        try {
            int victims = 0;
            long cost = 0;
            for (Task t : j.pending) {
                if (t.placed) continue;
                if (CycleWork.gangSatisfied(j, gang, tx)) break;
                NodeState n = w.fitter.best(t.pod);
                if (n == null) {
                    VictimSelector.Plan plan = w.victims.find(t, terms);
                    if (plan == null) return null;
                    for (Task v : plan.victims()) {
                        tx.evict(v);
                        victims++;
                        cost += v.job.priority;
                    }
                    n = plan.node();
                }
                tx.place(t, n);
            }
            return CycleWork.gangSatisfied(j, gang, tx) ? new Ranked(d, victims, cost) : null;
        } finally {
            tx.discard();
            w.fitter.unconfine();
        }
    }
}
