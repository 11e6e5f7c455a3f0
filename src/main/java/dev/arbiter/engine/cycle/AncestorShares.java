package dev.arbiter.engine.cycle;

import dev.arbiter.engine.state.QueueState;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.ReclaimFit;

/**
 * Whether a reclaiming queue's job fits under a deserved share: its own, as its grant's fit says, or (with
 * {@code levels} above 0, Volcano's capacity plugin's {@code ancestorReclaimLevel}) one of its ancestors' up to that
 * many levels up, in at least one resource the job asks for (the plugin's preemptive check: a leaf that deserves
 * nothing of its own reclaims on its parent's share). The implicit root is never asked.
 */
final class AncestorShares {
    private AncestorShares() {}

    static boolean admits(ReclaimFit fit, QueueState q, Resources need, Resources ceiling, int levels) {
        if (fit.admits(q.allocated, need, ceiling)) return true;
        QueueState a = q.parent;
        for (int level = 1; level <= levels && a != null; level++, a = a.parent) {
            if (ReclaimFit.SOME_NEEDED.admits(a.allocated, need, a.deserved())) return true;
        }
        return false;
    }

    /** Whether the queue, and each ancestor up to {@code levels}, holds its deserved share in every resource. */
    static boolean reached(QueueState q, Resources ceiling, int levels) {
        if (!q.reached(ceiling)) return false;
        QueueState a = q.parent;
        for (int level = 1; level <= levels && a != null; level++, a = a.parent) {
            if (!a.reached(a.deserved())) return false;
        }
        return true;
    }
}
