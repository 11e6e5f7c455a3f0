package dev.arbiter.engine;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.model.Caps;
import java.util.HashMap;
import java.util.Map;

/**
 * Step 3 of a cycle: Pending jobs become Inqueue, in job order, while their minimum resources fit the admission budget
 * of their queue and of every ancestor ({@code AdmissionBudget}); an {@code AdmissionDenied} keeps a job Pending with
 * its reason, an {@code AdmissionGrant} admits it beyond the budget. In a fifo queue the first job refused blocks the
 * jobs behind it.
 */
final class Admission {
    private final CycleState state;
    private final Policy policy;

    Admission(CycleWork w) {
        this.state = w.state;
        this.policy = w.policy;
    }

    void admit() {
        for (Job j : state.jobs.values()) {
            if (!j.initialPhase.equals("Pending")) continue;
            AdmissionDenied d = policy.denials().get(j.id);
            if (d != null) j.setReason(d.reason(), d.rule());
        }
        Map<QueueState, Caps> rooms = new HashMap<>();
        for (QueueState q : state.queues.values()) {
            AdmissionBudget b = policy.budgets().get(q.name());
            if (b != null) rooms.put(q, b.room());
        }
        for (QueueState q : state.queues.values()) {
            Job head = null;
            for (Job j : q.jobs) {
                if (!j.initialPhase.equals("Pending") || policy.denials().containsKey(j.id)) continue;
                if (head != null) {
                    j.setReason(CycleWork.behindHead(q, head), policy.dequeue().get(q.name()).rule());
                    continue;
                }
                String refusal = admitAlongTree(q, j, rooms);
                if (refusal == null || policy.grants().containsKey(j.id)) {
                    j.phase = "Inqueue";
                    continue;
                }
                AdmissionBudget b = policy.budgets().get(q.name());
                j.setReason(refusal, b == null ? null : b.rule());
                if (policy.fifo(q.name())) head = j;
            }
        }
    }

    /**
     * Admits a job if its minimum resources fit the admission room of its queue and of every ancestor, taking
     * them from each; otherwise returns why not and changes nothing.
     */
    private static String admitAlongTree(QueueState q, Job j, Map<QueueState, Caps> rooms) {
        for (QueueState a = q; a != null; a = a.parent) {
            Caps room = rooms.get(a);
            if (room == null) return "queue \"" + a.name() + "\" admits nothing: no admission rule grants it a budget";
            if (!room.admits(j.minResources)) {
                return "queue \"" + a.name() + "\" capability exhausted: minResources short of " + room.excess(j.minResources);
            }
        }
        for (QueueState a = q; a != null; a = a.parent) rooms.put(a, rooms.get(a).minus(j.minResources));
        return null;
    }
}
