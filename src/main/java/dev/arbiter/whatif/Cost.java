package dev.arbiter.whatif;

import dev.arbiter.model.Resources;

/**
 * How {@code whatif} ranks the changes it finds (docs/policy-guide.md, "What would start it"): by tier first, then by
 * the cost within the tier, then by the words. The tiers, cheapest first: a queue's quota (an edit of one object, no
 * work lost), a policy setting (an edit of policy.yaml, no work lost, but it applies to every job), the pending job's
 * own constraints (its owner's edit; its pods may then run less well placed), running jobs ending (work lost: GPUs x
 * priority), hardware (money and lead time).
 */
public final class Cost {
    private Cost() {}

    /** The tiers, cheapest first. */
    public enum Tier {
        QUOTA("quota"), POLICY("policy"), OWN_CONSTRAINT("job spec"), JOBS_END("jobs end"), HARDWARE("hardware");

        private final String word;

        Tier(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /**
     * The weight of an amount: accelerator units count whole (1 GPU = 1), a CPU core as 1/100, memory not at all
     * (a node's memory comes with its cores and GPUs). A quota raise, the work of an ended job, a node: all weigh
     * their accelerators first.
     */
    static long weight(Resources r) {
        long w = 0;
        for (int i = 0; i < r.size(); i++) {
            String d = r.name(i);
            if (isAccelerator(d)) w += r.milliAt(i) * 100 / 1000;
            else if (d.equals("cpu")) w += r.milliAt(i) / 1000;
        }
        return Math.max(1, w);
    }

    /** Work lost when a job of {@code priority} holding {@code held} ends: its weight times its priority (at least 1). */
    static long lost(Resources held, int priority) {
        return weight(held) * Math.max(1, priority);
    }

    static boolean isAccelerator(String dim) {
        return dim.contains("gpu") || dim.contains("npu") || dim.contains("tpu") || dim.contains("neuron");
    }
}
