package dev.arbiter.bench;

import dev.arbiter.bench.RefState.Queue;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.Collection;

/**
 * Deserved shares by weighted water-filling (fair-share.drl, docs/volcano-differences.md), as a plain loop.
 *
 * <p>Every queue's real capability is the cluster less the other queues' guarantees, bounded by its own capability.
 * Round one hands out the cluster less every guarantee; each round, every queue that is not yet satisfied adds its
 * weighted part of what remains (integer milli-units, rounded down), capped by its real capability and by what it
 * requests, and raised to its guarantee; a queue is satisfied once it has all it requests or all it could get.
 * Rounds also go on while the set of unsatisfied queues changes (a light queue takes what heavy ones left).
 * What remains for the next round is the cluster less each queue's larger of deserved and guarantee. Rounds stop
 * when nothing remains, nothing changed, or every queue is satisfied. A queue is overused when its allocation covers
 * its deserved share.
 */
final class FairShare {
    private FairShare() {}

    static void divide(Resources total, Resources guarantees, Collection<Queue> queues) {
        Resources shareable = total.subtract(guarantees).clampNonNegative();
        for (Queue q : queues) {
            Caps real = Caps.of(shareable.add(q.guarantee));
            if (q.spec.capability() != null) real = real.intersect(q.spec.capability());
            q.realCapability = real;
            q.deserved = Resources.NONE;
        }
        int n = queues.size();
        boolean[] met = new boolean[n];
        Resources remaining = shareable;
        long weight = unmetWeight(queues, met);
        boolean more = weight > 0 && !remaining.isEmpty();
        while (more) {
            int i = 0;
            for (Queue q : queues) {
                if (!met[i] && q.spec.weight() > 0) {
                    Resources before = q.deserved;
                    Resources next = q.realCapability.cap(before.add(remaining.scale(q.spec.weight(), weight)));
                    next = next.min(q.request).clampNonNegative().max(q.guarantee);
                    Resources all = q.realCapability.cap(before.add(remaining)).min(q.request).clampNonNegative()
                            .max(q.guarantee);
                    q.deserved = next;
                    // Met: it has what it asks for, or all it could get; a step rounded down to nothing is not met.
                    met[i] = q.request.fitsIn(next) || next.equals(all);
                }
                i++;
            }
            Resources held = Resources.NONE;
            for (Queue q : queues) held = held.add(q.deserved.max(q.guarantee));
            Resources previous = remaining;
            long previousWeight = weight;
            remaining = total.subtract(held).clampNonNegative();
            weight = unmetWeight(queues, met);
            more = weight > 0 && !remaining.isEmpty() && (!remaining.equals(previous) || weight != previousWeight);
        }
        for (Queue q : queues) {
            q.overused = q.deserved.fitsIn(q.allocated);
            q.aboveDeserved = !q.allocated.fitsIn(q.deserved);
        }
    }

    private static long unmetWeight(Collection<Queue> queues, boolean[] met) {
        long w = 0;
        int i = 0;
        for (Queue q : queues) if (!met[i++]) w += q.spec.weight();
        return w;
    }
}
