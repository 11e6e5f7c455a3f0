package dev.arbiter.engine;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.Eviction;
import dev.arbiter.facts.GangRequirement;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Step 4 of a cycle: queues in queue order (re-sorted after every job, so allocation interleaves by share), jobs in
 * job order, tasks in task order. Jobs holding nominated room go first (unless {@code cycle.nominatedFirst} is off:
 * then they wait their turn, and the room stays held for them until it comes). A queue that has reached its allocation
 * ceiling is skipped; no placement may pass a capability along the queue tree. Each job is a {@link GangTransaction}:
 * its placements become bindings only if its {@code GangRequirement} holds, otherwise they are undone.
 */
final class Allocation {
    private final CycleWork w;
    private final CycleState state;
    private final Policy policy;
    private final NodeFitter fitter;
    private final Comparator<QueueState> queueOrder;
    private final List<Binding> bindings;
    private final List<Eviction> evictions;
    private final Map<Job, Integer> boundThisCycle;

    Allocation(CycleWork w) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
        this.fitter = w.fitter;
        this.queueOrder = w.queueOrder;
        this.bindings = w.bindings;
        this.evictions = w.evictions;
        this.boundThisCycle = w.boundThisCycle;
    }

    void allocate() {
        if (policy.settings.cycle().nominatedFirst()) startNominatedJobs();
        PriorityQueue<QueueState> order = new PriorityQueue<>(queueOrder);
        for (QueueState q : state.queues.values()) {
            q.cursor = 0;
            if (q.limit == null) {
                for (Job j : q.jobs) if (CycleWork.admitted(j) && j.hasPending() && j.reason == null)
                    j.setReason("queue \"" + q.name() + "\" allocates nothing: it is not open", null);
                continue;
            }
            order.add(q);
        }
        while (!order.isEmpty()) {
            QueueState q = order.poll();
            Job j = nextJob(q);
            if (j == null) continue;
            if (q.reached(q.limit.ceiling()) && !j.bestEffort()) {
                markOverused(q, j);
                continue;
            }
            if (!allocateJob(q, j) && policy.fifo(q.name())) {
                blockBehind(q, j);
                continue;
            }
            order.add(q);
        }
    }

    /** In a fifo queue, a head job that cannot start holds back every job behind it. */
    private void blockBehind(QueueState q, Job head) {
        String rule = policy.dequeue().get(q.name()).rule();
        Job j;
        while ((j = nextJob(q)) != null) j.setReason(CycleWork.behindHead(q, head), rule);
    }

    private Job nextJob(QueueState q) {
        while (q.cursor < q.jobs.size()) {
            Job j = q.jobs.get(q.cursor++);
            if (CycleWork.admitted(j) && j.hasPending()) return j;
        }
        return null;
    }

    /**
     * The queue has reached its deserved share: its remaining jobs wait, except those that ask nothing of queue shares
     * (BestEffort pods need only a pod slot, as Volcano's backfill places them).
     */
    private void markOverused(QueueState q, Job first) {
        String reason = "queue \"" + q.name() + "\" is overused: allocated " + q.allocated + " covers deserved "
                + q.deserved();
        first.setReason(reason, q.limit.rule());
        Job j;
        while ((j = nextJob(q)) != null) {
            if (j.bestEffort()) allocateJob(q, j);
            else j.setReason(reason, q.limit.rule());
        }
    }

    /**
     * Jobs whose room the previous cycle made by evicting others go first, whatever their queue's share: the
     * evictions were for them (a preemption swaps work inside a queue, so an overused queue may still take it).
     * Capability still binds.
     */
    private void startNominatedJobs() {
        for (QueueState q : w.sortedQueues()) {
            if (q.limit == null) continue;
            for (Job j : q.jobs) {
                boolean nominated = false;
                for (Task t : j.pending) nominated |= t.holding;
                if (nominated && CycleWork.admitted(j)) allocateJob(q, j);
            }
        }
    }

    /** Tries to start one gang; true if it started. */
    private boolean allocateJob(QueueState q, Job j) {
        w.releaseNominatedRoom(j);
        GangTransaction tx = new GangTransaction(state.queues, fitter);
        String firstFailure = null;
        for (Task t : j.pending) {
            // A nominated job started first may come round again for the rest of its tasks.
            if (t.placed) continue;
            NodeState n = fitter.best(t.pod);
            if (n == null) {
                if (firstFailure == null) firstFailure = fitter.whyNoFit(t.pod);
                continue;
            }
            QueueState blocker = q.capabilityBlocker(t.share());
            if (blocker != null) {
                if (firstFailure == null) firstFailure = "queue \"" + blocker.name() + "\" capability reached: short of "
                        + blocker.hardCap().excess(blocker.allocated.add(t.share()));
                continue;
            }
            tx.place(t, n);
        }
        GangRequirement gang = policy.gangFor(j);
        String shortfall = gang == null ? null : CycleWork.gangShortfall(j, gang, tx);
        if (gang != null && shortfall == null) {
            for (Task t : tx.placements()) bindings.add(new Binding(t.id(), tx.nodeOf(t).name(), gang.rule()));
            boundThisCycle.merge(j, tx.placed(), Integer::sum);
            j.bound += tx.placed();
            for (Task t : tx.placements()) {
                t.placed = true;
                t.bound = true;
            }
            j.reason = null;
            j.reasonRule = null;
            return true;
        } else {
            tx.discard();
            w.holdNominatedRoom(j);
            if (gang == null) {
                j.setReason("no rule states this job's gang requirement", null);
            } else {
                j.setReason(shortfall + (firstFailure == null ? "" : ": " + firstFailure), gang.rule());
            }
            return false;
        }
    }
}
