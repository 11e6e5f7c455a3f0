package dev.arbiter.engine.usage;

import dev.arbiter.model.QueueUsage;
import dev.arbiter.model.Resources;
import java.util.Map;
import java.util.TreeMap;

/**
 * The arithmetic of decayed usage, as Kueue's admission fair sharing does it: an exponentially weighted moving average
 * of a queue's allocation over time, whose weight halves every half-life. After {@code elapsed} seconds the old value
 * keeps {@code 0.5^(elapsed / halfLife)} of its weight and the allocation held now takes the rest
 * ({@link #alpha}): a queue that holds a constant allocation converges to it ({@code 1 - 0.5^n} of the way after n
 * half-lives), and one that holds nothing halves its usage every half-life. Since the weight depends only on the time
 * elapsed, sampling more or less often gives the same value for an allocation that did not change in between.
 */
public final class Decay {
    private Decay() {}

    /** The weight the allocation held now takes after {@code elapsed} seconds: {@code 1 - 0.5^(elapsed / halfLife)}. */
    public static double alpha(double elapsedSeconds, double halfLifeSeconds) {
        if (halfLifeSeconds <= 0) return 1.0;
        return 1.0 - Math.pow(0.5, Math.max(0, elapsedSeconds) / halfLifeSeconds);
    }

    /**
     * {@code old} decayed to {@code now} while the queue held {@code held}: {@code old × (1 - α) + held × α}, sampled at
     * {@code now}. A sample from the future (a clock set back) counts as sampled now: the elapsed time is never
     * negative, so the weight stays within [0, 1].
     */
    public static QueueUsage decayed(QueueUsage old, Resources held, long now, double halfLifeSeconds) {
        double a = alpha(now - old.at(), halfLifeSeconds);
        Map<String, Double> out = new TreeMap<>();
        old.amounts().forEach((r, v) -> out.put(r, v * (1 - a)));
        for (int i = 0; i < held.size(); i++) out.merge(held.name(i), held.milliAt(i) * a, Double::sum);
        out.values().removeIf(v -> v == 0);
        return new QueueUsage(out, Math.max(now, old.at()));
    }

    /**
     * The rank the queue order's {@code usage} key compares: the usage's dominant share of the cluster's {@code total}
     * (in the dimension it holds most of, as DRF measures a share), over the queue's {@code weight}. A dimension the
     * cluster has none of counts as all of it when used. A weight of 0 or less ranks last (+∞), whatever the usage:
     * Kueue's rule, so that such a queue is never served first by 0/0.
     */
    public static double rank(Map<String, Double> usage, Resources total, double weight) {
        if (weight <= 0) return Double.POSITIVE_INFINITY;
        double share = 0;
        for (Map.Entry<String, Double> e : usage.entrySet()) {
            if (e.getValue() <= 0) continue;
            long t = total.milli(e.getKey());
            share = Math.max(share, t > 0 ? e.getValue() / t : 1.0);
        }
        return share / weight;
    }
}
