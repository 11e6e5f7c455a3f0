package dev.arbiter.engine.cycle;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;
import dev.arbiter.model.Resources;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Volcano's {@code drf} preemptable rule, for a grant that asks for it ({@code PreemptGrant.shareGapOnly}): a task of a
 * job of the preemptor's own priority is a victim only when its job, without it, would still hold at least the dominant
 * resource share the preemptor would hold with one more task (lower priorities go as the priority plugin lets them, the
 * tier before drf in Volcano's default configuration) (within a millionth: Volcano's {@code shareDelta}), so preemption only narrows the gap between
 * shares. A share is the largest fraction of the cluster's total a job's live running members hold, in the resources
 * queues share. Unlike Volcano, each victim is judged against its job's share before this search (Volcano lowers it
 * as it takes more of the same job's tasks in one call).
 */
final class ShareGap {
    private static final double DELTA = 0.000001;
    private final Resources total;
    private final Map<Job, Resources> held = new IdentityHashMap<>();

    ShareGap(Resources total) {
        this.total = total;
    }

    /** The preemptor's share with its next pending task placed. */
    double preemptorShare(Job j) {
        Resources with = held(j);
        for (Task t : j.pending) {
            if (!t.placed) {
                with = with.add(t.share());
                break;
            }
        }
        return with.dominantShare(total);
    }

    /** Whether {@code victim} may go for a preemptor whose share would be {@code preemptorShare}. */
    boolean allows(double preemptorShare, Task victim) {
        double rest = held(victim.job).subtract(victim.share()).clampNonNegative().dominantShare(total);
        return preemptorShare < rest || Math.abs(preemptorShare - rest) <= DELTA;
    }

    private Resources held(Job j) {
        return held.computeIfAbsent(j, Job::heldShare);
    }
}
