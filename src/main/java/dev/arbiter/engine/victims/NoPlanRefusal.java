package dev.arbiter.engine.victims;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.victims.VictimSelector.Terms;

import dev.arbiter.model.Resources;
import java.util.List;

/**
 * Why a victim search found no plan, as a {@link Refusal.NoPlan}: from the {@link Tally} the search returns, and the
 * candidate node that came closest. The search decides; this class only gathers what it decided, once, when the search
 * fails (the refusal is remembered with the failure). {@link dev.arbiter.decision.ReasonWords} words it, e.g.
 * {@code no set of victims makes room for a/want-0: queue "b" is at its floor (its deserved share or guarantee) in
 * what the task needs; closest node n1 lacks nvidia.com/gpu 4 with every allowed victim gone}.
 */
final class NoPlanRefusal {
    private final WorkingCluster state;
    private final NodeFitter fitter;

    NoPlanRefusal(WorkingCluster state, NodeFitter fitter) {
        this.state = state;
        this.fitter = fitter;
    }

    /** Why a search for {@code task} found no plan, from what turned its candidates down ({@code tally}). */
    Refusal.NoPlan of(Task task, Terms terms, Tally tally) {
        return new Refusal.NoPlan(task.id(), List.copyOf(tally.wouldReturn), List.copyOf(tally.atFloor),
                List.copyOf(tally.wouldGoBelow), List.copyOf(tally.belowFloor), tally.unbreakable.size(),
                closest(task, terms, tally.candidates));
    }

    /** The candidate node that comes closest to holding the task with every allowed victim on it gone. */
    private Refusal closest(Task task, Terms terms, java.util.BitSet candidates) {
        if (candidates.isEmpty()) {
            Refusal blocked = fitter.blocked(task.pod);
            if (blocked != null) return blocked;
            if (fitter.eligibleIndexes(task.pod).isEmpty()) return new Refusal.NoNodeSuits(fitter.whyNoFit(task.pod));
            return new Refusal.NoVictimOnSuitableNode();
        }
        NodeState best = null;
        Resources bestShort = null;
        for (int i = candidates.nextSetBit(0); i >= 0; i = candidates.nextSetBit(i + 1)) {
            NodeState n = state.nodes.get(i);
            Resources free = n.free();
            for (Task t : n.tasks) if (terms.allows(t)) free = free.add(t.request());
            Resources shortBy = task.request().shortfall(free);
            if (best == null || shortBy.size() < bestShort.size()
                    || (shortBy.size() == bestShort.size() && total(shortBy) < total(bestShort))) {
                best = n;
                bestShort = shortBy;
            }
        }
        if (bestShort.isEmpty()) return new Refusal.RoomWithVictimsGone(best.name());
        return new Refusal.ClosestNode(best.name(), bestShort);
    }

    private static long total(Resources r) {
        long sum = 0;
        for (int i = 0; i < r.size(); i++) sum += Math.min(r.milliAt(i), Long.MAX_VALUE / 64);
        return sum;
    }
}
