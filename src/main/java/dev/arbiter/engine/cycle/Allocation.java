package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.placement.NetworkDomains;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.Eviction;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.Resources;
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
public final class Allocation {
    private final CycleWork w;
    private final WorkingCluster state;
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
        kept = KeptRoom.of(state);
        if (policy.settings.cycle().nominatedFirst()) startNominatedJobs();
        PriorityQueue<QueueState> order = new PriorityQueue<>(queueOrder);
        for (QueueState q : state.queues.values()) {
            q.cursor = 0;
            if (q.limit == null) {
                Refusal closed = new Refusal.QueueNotOpen(q.name());
                for (Job j : q.jobs) if (CycleWork.admitted(j) && j.hasPending() && j.reason == null) j.setReason(closed, null);
                continue;
            }
            order.add(q);
        }
        Map<QueueState, java.util.ArrayDeque<Job>> deferred = new java.util.IdentityHashMap<>();
        Map<QueueState, Job> crossing = new java.util.IdentityHashMap<>();
        withinShares(order, deferred, crossing);
        // What is left no queue under its share could use: each queue's deferred jobs, in queue order again, are
        // served as before the first round existed: until the queue has reached its share, and the job that crosses
        // it (the first of the queue's jobs the first round stopped at its share) may finish crossing it.
        order.addAll(deferred.keySet());
        while (!order.isEmpty()) {
            QueueState q = order.poll();
            Job j = deferred.get(q).poll();
            if (j == null) continue;
            if (q.reached(q.limit.ceiling()) && !j.bestEffort() && crossing.get(q) != j) {
                markOverused(q, j, deferred.get(q));
                continue;
            }
            if (!allocateJob(q, j) && policy.fifo(q.name())) {
                blockBehind(q, j, deferred.get(q));
                continue;
            }
            order.add(q);
        }
    }

    /** The room lenders keep idle (null: no queue keeps any, and nothing is checked). */
    private KeptRoom kept;

    /** Set while {@link #withinShares} runs: no task may take its queue past its deserved share (the ceiling). */
    private boolean withinShare;
    /** Whether the last {@link #attempt} left out a task because it would have passed its queue's ceiling. */
    private boolean ceilingHit;

    /**
     * The first round (Volcano's proportion {@code allocatable}): queues in queue order, each task placed only if its
     * queue then still holds at most its deserved share in what the task asks. A job that cannot start that way, or
     * leaves out tasks it could otherwise run, is deferred to the second round; so is every job of a queue that has
     * reached its share, and in a fifo queue every job behind a deferred one. So a queue goes past its share only
     * with what no queue still under its share could use. The first job of each queue deferred at its share is the
     * one that may cross it ({@code crossing}).
     */
    private void withinShares(PriorityQueue<QueueState> order, Map<QueueState, java.util.ArrayDeque<Job>> deferred,
                              Map<QueueState, Job> crossing) {
        withinShare = true;
        try {
            while (!order.isEmpty()) {
                QueueState q = order.poll();
                Job j = nextJob(q);
                if (j == null) continue;
                if (q.reached(q.limit.ceiling()) && !j.bestEffort()) {
                    defer(q, j, deferred);
                    Job rest;
                    while ((rest = nextJob(q)) != null) {
                        if (rest.bestEffort()) allocateJob(q, rest);
                        else defer(q, rest, deferred);
                    }
                    continue;
                }
                ceilingHit = false;
                boolean started = allocateJob(q, j);
                if (ceilingHit) {
                    if (!deferred.containsKey(q)) crossing.put(q, j);
                    defer(q, j, deferred);
                    if (!started && policy.fifo(q.name())) {
                        Job rest;
                        while ((rest = nextJob(q)) != null) defer(q, rest, deferred);
                        continue;
                    }
                } else if (!started && policy.fifo(q.name())) {
                    blockBehind(q, j, null);
                    continue;
                }
                order.add(q);
            }
        } finally {
            withinShare = false;
        }
    }

    private static void defer(QueueState q, Job j, Map<QueueState, java.util.ArrayDeque<Job>> deferred) {
        deferred.computeIfAbsent(q, k -> new java.util.ArrayDeque<>()).add(j);
    }

    /**
     * In a fifo queue, a head job that cannot start holds back every job behind it: those the round has not reached,
     * and in the second round those still deferred ({@code later}; null in the first).
     */
    private void blockBehind(QueueState q, Job head, java.util.ArrayDeque<Job> later) {
        String rule = policy.dequeue().get(q.name()).rule();
        Refusal reason = CycleWork.behindHead(q, head);
        Job j;
        while ((j = nextJob(q)) != null) j.setReason(reason, rule);
        if (later != null) while ((j = later.poll()) != null) j.setReason(reason, rule);
    }

    private Job nextJob(QueueState q) {
        while (q.cursor < q.jobs.size()) {
            Job j = q.jobs.get(q.cursor++);
            if (CycleWork.admitted(j) && j.hasPending() && !w.staysParked(j)) return j;
        }
        return null;
    }

    /**
     * The queue has reached its deserved share: its remaining jobs wait, except those that ask nothing of queue shares
     * (BestEffort pods need only a pod slot, as Volcano's backfill places them).
     */
    private void markOverused(QueueState q, Job first, java.util.ArrayDeque<Job> later) {
        Refusal reason = new Refusal.Overused(q.name(), q.allocated, q.deserved());
        first.setReason(reason, q.limit.rule());
        Job j;
        while ((j = later.poll()) != null) {
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
                if (!j.nominated) continue; // (no task of it can hold room)
                boolean nominated = false;
                for (Task t : j.pending) nominated |= t.holding;
                if (nominated && CycleWork.admitted(j)) allocateJob(q, j);
            }
        }
    }

    /**
     * Tries to start one gang; true if it started. A gang with a network topology tries the domains it may take, in
     * the policy's order, each all-or-nothing ({@link #allocateInDomain}); a soft one that fits in none, and every
     * other gang, tries the whole cluster.
     */
    private boolean allocateJob(QueueState q, Job j) {
        w.releaseNominatedRoom(j);
        GangRequirement gang = policy.gangFor(j);
        NetworkTopology want = gang == null ? null : w.domains.wanted(j);
        if (want != null) {
            Boolean started = allocateInDomain(q, j, gang, want);
            if (started != null) return started;
        }
        Attempt a = attempt(q, j, gang, false);
        if (a.shortfall == null && gang != null) {
            commit(j, a.tx, gang, null);
            return true;
        }
        a.tx.discard();
        w.holdNominatedRoom(j);
        if (gang == null) {
            j.setReason(NO_GANG_RULE, null);
        } else {
            j.setReason(w.because(a.shortfall, a.firstFailure), gang.rule());
        }
        return false;
    }

    /** One try at placing the job's pending tasks: the transaction, the gang's shortfall (null: it may start), the first reason a task found no node. */
    private record Attempt(GangTransaction tx, Refusal shortfall, Refusal firstFailure) {}

    private static final Refusal NO_GANG_RULE = new Refusal.NoGangRule();

    /** The queue's capability (or an ancestor's, {@code blocker}) leaves no room for the task: short by how much. */
    static Refusal capabilityReached(QueueState blocker, Task t) {
        return new Refusal.CapabilityReached(blocker.name(), blocker.hardCap().excess(blocker.allocated, t.share()));
    }

    /**
     * Places the job's unplaced pending tasks in task order, each on the best node the fitter offers (confined to a
     * domain when the caller confined it). With {@code stopEarly} it stops once too few tasks are left to reach
     * {@code minMember} (a domain that cannot hold the gang is given up at once).
     */
    private Attempt attempt(QueueState q, Job j, GangRequirement gang, boolean stopEarly) {
        GangTransaction tx = new GangTransaction(state, fitter);
        Refusal firstFailure = null;
        int left = 0;
        for (Task t : j.pending) if (!t.placed) left++;
        int needed = gang == null ? 0 : Math.max(gang.minMember(), 1) - j.liveMembers();
        for (Task t : j.pending) {
            // A nominated job started first may come round again for the rest of its tasks.
            if (t.placed) continue;
            if (stopEarly && tx.placed() + left < needed) break;
            left--;
            NodeState n = fitter.best(t.pod);
            if (n == null) {
                if (firstFailure == null) firstFailure = fitter.whyNoFit(t.pod);
                // Nothing is placed from here on: the rest of the job's pods ask what this one asked (Job#pendingAlike).
                if (j.pendingAlike() && !fitter.anyExistingAntiAffinity()) break;
                continue;
            }
            if (withinShare && !q.allocated.plusWithinIn(t.share(), q.limit.ceiling(), t.share())) {
                ceilingHit = true;
                continue;
            }
            QueueState blocker = q.capabilityBlocker(t.share());
            if (blocker != null) {
                if (firstFailure == null) firstFailure = capabilityReached(blocker, t);
                continue;
            }
            if (kept != null) {
                Refusal lent = kept.refuses(q, t);
                if (lent != null) {
                    if (firstFailure == null) firstFailure = lent;
                    continue;
                }
            }
            tx.place(t, n);
        }
        return new Attempt(tx, gang == null ? NO_GANG_RULE : CycleWork.gangShortfall(j, gang, tx), firstFailure);
    }

    /** The gang starts: its placements become bindings, named by the gang rule. */
    private void commit(Job j, GangTransaction tx, GangRequirement gang, NetworkDomains.Domain domain) {
        for (Task t : tx.placements()) bindings.add(new Binding(t.id(), tx.nodeOf(t).name(), gang.rule()));
        boundThisCycle.merge(j, tx.placed(), Integer::sum);
        j.bound += tx.placed();
        for (Task t : tx.placements()) {
            t.place();
            t.bound = true;
            state.touch(t);
        }
        if (domain != null) j.domain = domain.name;
        j.reason = null;
        j.reasonRule = null;
    }

    /**
     * A gang with a network topology: tries each domain {@link NetworkDomains#candidates} offers (those where its
     * missing members' requests fit in free capacity, in the policy's order), confining its pods to the domain, and
     * starts in the first that holds it whole. True when it started; false when a hard gang fits in no domain (it
     * waits, and its reason names the closest domain and its shortfall); null when a soft gang fits in none (it may
     * then spread).
     */
    private Boolean allocateInDomain(QueueState q, Job j, GangRequirement gang, NetworkTopology want) {
        Task first = firstUnplaced(j);
        if (first == null) return null;
        Resources need = missingRequests(j, gang);
        java.util.BitSet eligible = fitter.eligibleBits(first.pod);
        Refusal tried = null;
        for (NetworkDomains.Fit f : w.domains.candidates(j, want, need, eligible)) {
            fitter.confine(j.pending, f.domain());
            Attempt a;
            try {
                a = attempt(q, j, gang, true);
            } finally {
                fitter.unconfine();
            }
            if (a.shortfall == null) {
                commit(j, a.tx, gang, f.domain());
                return true;
            }
            a.tx.discard();
            if (tried == null) {
                tried = new Refusal.NoDomainTried(want, NetworkDomains.room(f, NodeFitter.primaryDimension(need), need),
                        w.because(a.shortfall, a.firstFailure));
            }
        }
        if (!want.hard()) return null;
        w.holdNominatedRoom(j);
        Refusal why = tried != null ? tried : w.domains.noDomainReason(j, want, need, eligible);
        j.setReason(why, gang.rule());
        return false;
    }

    private static Task firstUnplaced(Job j) {
        for (Task t : j.pending) if (!t.placed) return t;
        return null;
    }

    /**
     * What the members the gang still misses request: the next unplaced pending tasks in task order, up to
     * {@code minMember} live members (at least one). Example: a gang of 4 × 8 GPUs with nothing running, 32 GPUs.
     */
    static Resources missingRequests(Job j, GangRequirement gang) {
        int k = Math.max(1, Math.max(gang.minMember(), 1) - j.liveMembers());
        Resources.Sum need = new Resources.Sum();
        for (Task t : j.pending) {
            if (k == 0) break;
            if (t.placed) continue;
            need.add(t.request());
            k--;
        }
        return need.toResources();
    }
}
