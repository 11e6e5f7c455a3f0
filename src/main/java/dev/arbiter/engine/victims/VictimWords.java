package dev.arbiter.engine.victims;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.victims.VictimSelector.Terms;

import dev.arbiter.model.Resources;

/**
 * The words of the victim search: why a search found no plan ({@link #noPlan}, from the {@link Tally} the search
 * returns), and how names and amounts read in them ({@link #quoted}, {@link #lacks}). The search decides; this class
 * only words what it decided, once, when the search fails (the words are remembered with the failure).
 *
 * <p>Example: {@code no set of victims makes room for a/want-0: queue "b" is at its floor (its deserved share or
 * guarantee) in what the task needs; closest node n1 lacks nvidia.com/gpu 4 with every allowed victim gone}.
 */
final class VictimWords {
    private final WorkingCluster state;
    private final NodeFitter fitter;

    VictimWords(WorkingCluster state, NodeFitter fitter) {
        this.state = state;
        this.fitter = fitter;
    }

    /**
     * Why a search found no plan, from what turned its candidates down ({@code tally}), e.g. {@code no set of victims
     * makes room for ns/p: hysteresis spares queue "b" (it would qualify to take its pods straight back); closest node
     * node-3 lacks nvidia.com/gpu 4 with every allowed victim gone}.
     */
    String noPlan(Task task, Terms terms, Tally tally) {
        StringBuilder sb = new StringBuilder("no set of victims makes room for ").append(task.id());
        String sep = ": ";
        if (!tally.wouldReturn.isEmpty()) {
            sb.append(sep).append("hysteresis spares queue ").append(quoted(tally.wouldReturn))
                    .append(" (it would qualify to take its pods straight back)");
            sep = "; ";
        }
        if (!tally.atFloor.isEmpty()) {
            sb.append(sep).append("queue ").append(quoted(tally.atFloor))
                    .append(" is at its floor (its deserved share or guarantee) in what the task needs");
            sep = "; ";
        }
        if (!tally.wouldGoBelow.isEmpty()) {
            sb.append(sep).append("no victim of queue ").append(quoted(tally.wouldGoBelow))
                    .append(" leaves it at its floor in what the task needs");
            sep = "; ";
        }
        if (!tally.belowFloor.isEmpty()) {
            sb.append(sep).append(tally.belowFloor.size() == 1
                    ? "job " + quoted(tally.belowFloor) + " is larger than its queue's share and would leave the queue"
                            + " below its floor"
                    : tally.belowFloor.size() + " jobs are larger than their queues' shares and would leave the queues"
                            + " below their floors")
                    .append(" (victims.gangBelowFloor: spare)");
            sep = "; ";
        }
        if (!tally.unbreakable.isEmpty()) {
            sb.append(sep).append(tally.unbreakable.size()).append(" gang(s) cannot be evicted whole (a member is"
                    + " protected or was bound this cycle)");
            sep = "; ";
        }
        sb.append(sep).append(closest(task, terms, tally.candidates));
        return sb.toString();
    }

    /** The candidate node that comes closest to holding the task with every allowed victim on it gone. */
    private String closest(Task task, Terms terms, java.util.BitSet candidates) {
        if (candidates.isEmpty()) {
            String blocked = fitter.blocked(task.pod);
            if (blocked != null) return blocked;
            if (fitter.eligibleIndexes(task.pod).isEmpty()) return "no node suits it: " + fitter.whyNoFit(task.pod);
            return "no pod it may evict runs on a node that suits it";
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
        if (bestShort.isEmpty()) return "node " + best.name() + " would have room with every allowed victim gone";
        return "closest node " + best.name() + " lacks " + lacks(bestShort) + " with every allowed victim gone";
    }

    private static long total(Resources r) {
        long sum = 0;
        for (int i = 0; i < r.size(); i++) sum += Math.min(r.milliAt(i), Long.MAX_VALUE / 64);
        return sum;
    }

    /** {@code "a", "b"}. */
    static String quoted(java.util.Collection<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String n : names) sb.append(sb.length() == 0 ? "" : ", ").append('"').append(n).append('"');
        return sb.toString();
    }

    /** e.g. {@code cpu 4, nvidia.com/gpu 10.7}, in each resource's own units. */
    static String lacks(Resources r) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < r.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(r.name(i)).append(' ').append(dev.arbiter.model.Quantity.human(r.name(i), r.milliAt(i)));
        }
        return sb.toString();
    }
}
