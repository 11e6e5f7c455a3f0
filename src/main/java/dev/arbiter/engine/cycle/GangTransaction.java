package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A gang's tentative placements and evictions (Volcano's Statement). Each step changes the cycle state at once, so
 * later steps see it; {@link #discard()} undoes them in reverse order, so a gang that cannot start leaves no trace.
 */
public final class GangTransaction {
    private record Step(Task task, NodeState node, boolean eviction) {}

    private final WorkingCluster state;
    private final Map<String, QueueState> queues;
    private final NodeFitter fitter;
    private final List<Step> steps = new ArrayList<>();
    private final Map<String, Integer> placedByRole = new HashMap<>();
    private int placed;
    private final NodeFitter.Mark start;

    GangTransaction(WorkingCluster state, NodeFitter fitter) {
        this.state = state;
        this.queues = state.queues;
        this.fitter = fitter;
        this.start = fitter.mark();
    }

    void place(Task t, NodeState n) {
        n.take(t.request());
        fitter.podAdded(t.pod, n);
        QueueState q = queues.get(t.job.queue);
        if (q != null) q.charge(t.share());
        steps.add(new Step(t, n, false));
        fitter.changed();
        placed++;
        placedByRole.merge(t.pod.taskRole(), 1, Integer::sum);
    }

    void evict(Task victim) {
        takeOut(state, fitter, victim);
        steps.add(new Step(victim, victim.node, true));
    }

    /**
     * Evicts {@code victim} from the cycle's numbers: its node, its queue and the fitter no longer count it (a
     * transaction's step, or an eviction given back and taken again after the cycle's add-back).
     */
    static void takeOut(WorkingCluster state, NodeFitter fitter, Task victim) {
        victim.evicted = true;
        state.touch(victim);
        victim.job.evictedMembers++;
        victim.node.give(victim.request());
        fitter.podRemoved(victim.pod, victim.node);
        QueueState q = state.queues.get(victim.job.queue);
        if (q != null) q.credit(victim.share());
        fitter.capacityReleased(gangNodes(victim));
    }

    /** Undoes {@link #takeOut}: {@code victim} runs on {@code node} again, for its node, its queue and the fitter. */
    static void putBack(WorkingCluster state, NodeFitter fitter, Task victim, NodeState node) {
        victim.evicted = false;
        victim.job.evictedMembers--;
        node.take(victim.request());
        fitter.podAdded(victim.pod, node);
        QueueState q = state.queues.get(victim.job.queue);
        if (q != null) q.charge(victim.share());
        fitter.touched(gangNodes(victim));
    }

    /** The victim's node, and its gang's other nodes: there a search may now take the gang's members differently. */
    private static List<NodeState> gangNodes(Task victim) {
        List<NodeState> where = new ArrayList<>();
        where.add(victim.node);
        for (Task m : victim.job.running) if (m.node != victim.node) where.add(m.node);
        return where;
    }

    int placed() {
        return placed;
    }

    int placedInRole(String role) {
        return placedByRole.getOrDefault(role, 0);
    }

    List<Task> placements() {
        List<Task> out = new ArrayList<>();
        for (Step s : steps) if (!s.eviction()) out.add(s.task());
        return out;
    }

    NodeState nodeOf(Task placedTask) {
        for (Step s : steps) if (!s.eviction() && s.task() == placedTask) return s.node();
        throw new IllegalStateException(placedTask + " is not placed in this transaction");
    }

    List<Task> evictions() {
        List<Task> out = new ArrayList<>();
        for (Step s : steps) if (s.eviction()) out.add(s.task());
        return out;
    }

    /**
     * Takes back the eviction of {@code victim} (it stays where it runs): the add-back of a gang's plan, once every
     * member is placed. The other steps stand.
     */
    void restore(Task victim) {
        for (int i = steps.size() - 1; i >= 0; i--) {
            Step s = steps.get(i);
            if (!s.eviction() || s.task() != victim) continue;
            steps.remove(i);
            putBack(state, fitter, victim, s.node());
            return;
        }
        throw new IllegalStateException(victim + " is not evicted in this transaction");
    }

    /** Undoes every step, newest first. */
    void discard() {
        for (int i = steps.size() - 1; i >= 0; i--) {
            Step s = steps.get(i);
            if (s.eviction()) {
                putBack(state, fitter, s.task(), s.node());
            } else {
                QueueState q = queues.get(s.task().job.queue);
                s.node().give(s.task().request());
                fitter.podRemoved(s.task().pod, s.node());
                if (q != null) q.credit(s.task().share());
                fitter.touched(List.of(s.node()));
            }
        }
        if (!steps.isEmpty()) fitter.undo(start);
        steps.clear();
        placedByRole.clear();
        placed = 0;
    }
}
