package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;

/**
 * The room lending queues keep for themselves and do not use (each lender's {@code QueueShare.kept}, as the fair-share
 * step computed it from the rules' {@code LendingLimit}s, less what the lender holds), held back from every placement
 * that takes a queue past its deserved share: such a task is placed only if the cluster's free room, after it, still
 * covers what the lenders outside its queue's branch (neither the queue's ancestors nor its descendants) keep and do
 * not use, in the resources it asks for. The lenders' kept shares are already left out of other queues' deserved
 * shares; this check stops growth past a share (the job that crosses its queue's share, a capacity-pack queue
 * borrowing up to its capability) from taking them, by one borrower or several together. Null ({@link #of}) when no
 * queue keeps anything: then allocation is exactly as without lending limits.
 *
 * <p>Example: 32 GPUs, lender A keeps 12 and holds 2, B holds 18 and C 0: free 12, A keeps 10 idle; a task of C that
 * takes C past its share may take 2 GPUs, no more.
 */
final class KeptRoom {
    private record Lender(QueueState queue, Resources kept) {}

    private final WorkingCluster state;
    private final List<Lender> lenders;

    private KeptRoom(WorkingCluster state, List<Lender> lenders) {
        this.state = state;
        this.lenders = lenders;
    }

    /** The cycle's kept room, or null when no queue keeps any. */
    static KeptRoom of(WorkingCluster state) {
        List<Lender> lenders = null;
        for (QueueState q : state.queues.values()) {
            if (q.fairShare == null || q.fairShare.getKept().isEmpty()) continue;
            if (lenders == null) lenders = new ArrayList<>();
            lenders.add(new Lender(q, q.fairShare.getKept()));
        }
        return lenders == null ? null : new KeptRoom(state, lenders);
    }

    /**
     * Null when task {@code t} of queue {@code q} may be placed: it does not take {@code q} past its deserved share in
     * a resource it asks for, or the free room left after it covers what lenders outside {@code q}'s branch keep idle.
     * Otherwise why not.
     */
    Refusal refuses(QueueState q, Task t) {
        Resources share = t.share();
        if (q.allocated.plusWithinIn(share, q.deserved(), share)) return null;
        Resources idle = Resources.NONE;
        List<String> whose = new ArrayList<>();
        for (Lender l : lenders) {
            if (l.queue == q || q.isWithin(l.queue) || l.queue.isWithin(q)) continue;
            Resources unused = l.kept.subtract(l.queue.allocated).clampNonNegative().onlyDimensionsOf(share);
            if (unused.isEmpty()) continue;
            idle = idle.add(unused);
            whose.add(l.queue.name());
        }
        if (idle.isEmpty()) return null;
        Resources needed = idle.add(share.onlyDimensionsOf(idle));
        Resources free = free(needed);
        if (needed.fitsIn(free)) return null;
        return new Refusal.KeptByLenders(q.name(), whose, needed.shortfall(free));
    }

    /** The schedulable nodes' free room, in the dimensions of {@code dims}. */
    private Resources free(Resources dims) {
        java.util.Map<String, Long> sum = new java.util.TreeMap<>();
        for (NodeState n : state.nodes) {
            if (n.spec.unschedulable()) continue;
            for (int i = 0; i < dims.size(); i++) sum.merge(dims.name(i), Math.max(0, n.freeMilli(dims.name(i))), Resources::addSaturated);
        }
        return Resources.ofMilli(sum);
    }
}
