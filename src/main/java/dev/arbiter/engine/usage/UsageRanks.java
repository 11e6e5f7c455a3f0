package dev.arbiter.engine.usage;

import dev.arbiter.engine.state.QueueState;
import dev.arbiter.model.QueueUsage;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.PolicySettings;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One cycle's view of the queues' decayed past usage (the policy's {@code shares.usageHalfLife}): what each queue used,
 * decayed to the cycle's time from the sample stored last ({@link QueueUsage}, carried by the snapshot: the simulator
 * keeps it between cycles, live mode on the Queue), the rank the queue order's {@code usage} key compares, and the
 * samples due to be stored.
 *
 * <p>Memory across cycles lives only in the stored samples: a cycle reads them, never writes them; the caller stores
 * {@link #samples()}. A queue without a sample starts from no usage now, as Kueue seeds a new LocalQueue. A sample is
 * taken when the stored one is {@code usageSamplingInterval} old or older (or there is none); between samples every
 * cycle decays the stored one to its own time, so the rank moves with time although nothing is written.
 *
 * <p>Within a cycle, what a queue starts is charged at once (Kueue's entry penalty): its allocation's growth since the
 * cycle began, weighted as one sampling interval would weigh it. So queues of equal usage take turns, and one cycle does
 * not give everything to the queue that used least.
 */
public final class UsageRanks {
    private final Map<QueueState, Entry> entries = new IdentityHashMap<>();
    private final Map<String, QueueUsage> samples = new TreeMap<>();
    private final Resources total;
    private final double entryWeight;

    private static final class Entry {
        final QueueUsage decayed;
        final Resources start;
        /** The allocation the last rank was worked out from, and that rank. */
        Resources rankedAt;
        double rank;

        Entry(QueueUsage decayed, Resources start) {
            this.decayed = decayed;
            this.start = start;
        }
    }

    /**
     * The ranks of {@code queues} at {@code now}, from the {@code stored} samples, against the cluster's {@code total};
     * {@code shares} must track usage ({@link PolicySettings.Shares#tracksUsage}).
     */
    public UsageRanks(Iterable<QueueState> queues, Map<String, QueueUsage> stored, long now, Resources total,
                      PolicySettings.Shares shares) {
        double halfLife = shares.usageHalfLife().toMillis() / 1000.0;
        long interval = Math.max(1, shares.usageSamplingInterval().toSeconds());
        this.total = total;
        this.entryWeight = Decay.alpha(interval, halfLife);
        for (QueueState q : queues) {
            QueueUsage last = stored.get(q.name());
            QueueUsage decayed = Decay.decayed(last == null ? QueueUsage.none(now) : last, q.allocated, now, halfLife);
            entries.put(q, new Entry(decayed, q.allocated));
            if (last == null || now - last.at() >= interval) samples.put(q.name(), decayed);
        }
    }

    /** The queue's rank for the order key {@code usage}: lower is served first. */
    public double rank(QueueState q) {
        Entry e = entries.get(q);
        if (e == null) return 0;
        if (e.rankedAt != q.allocated) {
            Map<String, Double> u = e.decayed.amounts();
            if (q.allocated != e.start) {
                u = new TreeMap<>(u);
                Resources grown = q.allocated.subtract(e.start);
                for (int i = 0; i < grown.size(); i++) {
                    if (grown.milliAt(i) > 0) u.merge(grown.name(i), grown.milliAt(i) * entryWeight, Double::sum);
                }
            }
            e.rank = Decay.rank(u, total, q.spec.weight());
            e.rankedAt = q.allocated;
        }
        return e.rank;
    }

    /** The queue's usage decayed to this cycle's time (before anything this cycle starts), or null for an unknown queue. */
    public QueueUsage decayed(String queue) {
        for (Map.Entry<QueueState, Entry> e : entries.entrySet()) if (e.getKey().name().equals(queue)) return e.getValue().decayed;
        return null;
    }

    /** The samples this cycle took, by queue name: the caller stores them for the next cycle and the next process. */
    public Map<String, QueueUsage> samples() {
        return Map.copyOf(samples);
    }
}
