package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.AdmissionOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * Step 3 of a cycle: Pending jobs become Inqueue, in job order, while their minimum resources fit the admission budget
 * of their queue and of every ancestor ({@code AdmissionBudget}), queues taking turns one job each or queue by queue
 * ({@code cycle.admission}); an {@code AdmissionDenied} keeps a job Pending with
 * its reason, an {@code AdmissionGrant} admits it beyond the budget. In a fifo queue the first job refused blocks the
 * jobs behind it.
 */
final class Admission {
    private final CycleWork w;
    private final WorkingCluster state;
    private final Policy policy;

    Admission(CycleWork w) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
    }

    void admit() {
        Map<String, AdmissionDenied> denials = policy.denials();
        if (!denials.isEmpty()) { // (most cycles deny none: no walk of every job)
            for (Job j : state.jobs.values()) {
                if (!j.initialPhase.equals("Pending")) continue;
                AdmissionDenied d = denials.get(j.id);
                if (d != null) j.setReason(new Refusal.RuleSaid(d.reason()), d.rule());
            }
        }
        Map<QueueState, Caps> rooms = new HashMap<>();
        for (QueueState q : state.queues.values()) {
            AdmissionBudget b = policy.budgets().get(q.name());
            if (b != null) rooms.put(q, b.room());
        }
        // Interleaved: queues take turns in queue order, one job each (as Volcano's enqueue does), so sibling queues
        // share their parent's admission room instead of the first sibling's backlog taking all of it. Queue by queue:
        // each queue admits all it can before the next.
        Map<QueueState, java.util.Iterator<Job>> cursors = new java.util.LinkedHashMap<>();
        for (QueueState q : w.sortedQueues()) cursors.put(q, q.jobs.iterator());
        boolean interleaved = policy.settings.cycle().admission() == AdmissionOrder.INTERLEAVED;
        while (!cursors.isEmpty()) {
            for (var turn = cursors.entrySet().iterator(); turn.hasNext(); ) {
                Map.Entry<QueueState, java.util.Iterator<Job>> e = turn.next();
                boolean more;
                do {
                    more = admitNext(e.getKey(), e.getValue(), rooms);
                } while (more && !interleaved);
                if (!more) turn.remove();
            }
        }
    }

    /** Admits or refuses the queue's next candidate job; false when the queue has no more to consider. */
    private boolean admitNext(QueueState q, java.util.Iterator<Job> jobs, Map<QueueState, Caps> rooms) {
        Job j = nextCandidate(jobs);
        if (j == null) return false;
        Refusal refusal = admitAlongTree(q, j, rooms);
        if (refusal == null || policy.grants().containsKey(j.id)) {
            j.phase = "Inqueue";
            return true;
        }
        AdmissionBudget b = policy.budgets().get(q.name());
        j.setReason(refusal, b == null ? null : b.rule());
        if (policy.fifo(q.name())) {
            blockBehind(q, j, jobs);
            return false;
        }
        return true;
    }

    /** The queue's next Pending job that no rule denied, or null. */
    private Job nextCandidate(java.util.Iterator<Job> jobs) {
        while (jobs.hasNext()) {
            Job j = jobs.next();
            if (j.initialPhase.equals("Pending") && !policy.denials().containsKey(j.id)) return j;
        }
        return null;
    }

    /** In a fifo queue, a head job that is refused holds back every Pending job behind it. */
    private void blockBehind(QueueState q, Job head, java.util.Iterator<Job> rest) {
        Refusal reason = CycleWork.behindHead(q, head);
        String rule = policy.dequeue().get(q.name()).rule();
        Job j;
        while ((j = nextCandidate(rest)) != null) j.setReason(reason, rule);
    }

    /**
     * Admits a job if its minimum resources fit the admission room of its queue and of every ancestor, taking
     * them from each; otherwise returns why not and changes nothing.
     */
    private static Refusal admitAlongTree(QueueState q, Job j, Map<QueueState, Caps> rooms) {
        // Members already running are in the queue's allocation: only the rest of the minimum needs room.
        Resources need = j.running.isEmpty() ? j.minResources : j.minResources.subtract(j.heldShare()).clampNonNegative();
        for (QueueState a = q; a != null; a = a.parent) {
            Caps room = rooms.get(a);
            if (room == null) return new Refusal.NoAdmissionBudget(a.name());
            if (!room.admits(need)) return new Refusal.AdmissionExhausted(a.name(), room.excess(need));
        }
        for (QueueState a = q; a != null; a = a.parent) rooms.put(a, rooms.get(a).minus(need));
        return null;
    }
}
