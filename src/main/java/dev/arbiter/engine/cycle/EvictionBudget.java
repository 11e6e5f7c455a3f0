package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.VictimSelector;

import dev.arbiter.decision.Eviction;
import dev.arbiter.policy.PolicySettings;
import java.util.List;
import java.util.Map;

/**
 * The cycle's eviction budgets (churn control): {@code maxEvictionsPerCycle} pods in all and
 * {@code maxEvictionsPerQueuePerCycle} from one queue, counted as the eviction steps commit evictions
 * ({@link #charge}) and give them back ({@link #refund}).
 */
final class EvictionBudget {
    private final Policy policy;
    private final VictimSelector victims;
    private final List<Eviction> evictions;
    private final Map<String, Integer> evictedPerQueue;
    private final int maxEvictionsPerQueue;

    EvictionBudget(CycleWork w) {
        this.policy = w.policy;
        this.victims = w.victims;
        this.evictions = w.evictions;
        this.evictedPerQueue = w.evictedPerQueue;
        this.maxEvictionsPerQueue = policy.settings.churn().maxEvictionsPerQueuePerCycle();
    }

    /** The cycle's cluster-wide eviction budget is used up: no search could be committed. */
    boolean spent() {
        int max = policy.settings.churn().maxEvictionsPerCycle();
        return max > 0 && evictions.size() >= max;
    }

    /**
     * The queue has used its per-queue eviction budget this cycle: it offers no more victims, and the search looks
     * elsewhere (a victim from it could only overspend).
     */
    boolean queueSpent(String queue) {
        return maxEvictionsPerQueue > 0 && evictedPerQueue.getOrDefault(queue, 0) >= maxEvictionsPerQueue;
    }

    /** {@link #queueSpent(String)} of the job's queue, read from the queue itself when it exists. */
    boolean queueSpent(Job job) {
        QueueState qs = job.queueState;
        if (qs == null) return queueSpent(job.queue);
        return maxEvictionsPerQueue > 0 && qs.evicted >= maxEvictionsPerQueue;
    }

    /**
     * How many more victims this job may take within the cycle's budget, given {@code victimCount} it has chosen; no
     * limit when there is no budget, or for the cycle's first evicting job (which may exceed it).
     */
    int left(int victimCount) {
        int max = policy.settings.churn().maxEvictionsPerCycle();
        if (max <= 0 || evictions.isEmpty()) return Integer.MAX_VALUE;
        return max - evictions.size() - victimCount;
    }

    /**
     * Why these evictions would overspend this cycle's eviction budget (churn control), or null. A budget limits what
     * is added to the cycle's evictions: the first gang to evict in a cycle (cluster-wide, or from a queue) may exceed
     * it, so a gang that needs more victims than one cycle's budget still starts — alone in its cycle.
     */
    Refusal overspends(int victimCount, Map<String, Integer> victimsPerQueue) {
        PolicySettings.Churn churn = policy.settings.churn();
        int max = churn.maxEvictionsPerCycle();
        if (max > 0 && !evictions.isEmpty() && evictions.size() + victimCount > max) {
            return new Refusal.BudgetWouldPass(max, evictions.size(), victimCount);
        }
        int maxQ = churn.maxEvictionsPerQueuePerCycle();
        for (Map.Entry<String, Integer> e : victimsPerQueue.entrySet()) {
            int already = evictedPerQueue.getOrDefault(e.getKey(), 0);
            if (maxQ > 0 && already > 0 && already + e.getValue() > maxQ) {
                return new Refusal.QueueBudgetWouldPass(maxQ, e.getKey());
            }
        }
        return null;
    }

    /** Counts a committed eviction against its queue; the victim search hears when that spends the queue's budget. */
    void charge(Task v) {
        int fromQueue = evictedPerQueue.merge(v.job.queue, 1, Integer::sum);
        if (v.job.queueState != null) v.job.queueState.evicted = fromQueue;
        if (fromQueue == maxEvictionsPerQueue) victims.queueBudgetSpent();
    }

    /** Takes back what {@link #charge} counted, for an eviction given back. */
    void refund(Task v) {
        evictedPerQueue.merge(v.job.queue, -1, Integer::sum);
        if (v.job.queueState != null) v.job.queueState.evicted = evictedPerQueue.get(v.job.queue);
    }
}
