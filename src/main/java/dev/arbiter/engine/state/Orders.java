package dev.arbiter.engine.state;

import dev.arbiter.policy.JobKey;
import dev.arbiter.policy.OrderKey;
import dev.arbiter.policy.QueueKey;
import dev.arbiter.policy.TaskKey;
import java.util.Comparator;
import java.util.List;

/** Turns the policy's orders ({@code order} in {@code policy.yaml}) into comparators. */
public final class Orders {
    private Orders() {}

    public static Comparator<QueueState> queues(List<OrderKey<QueueKey>> keys) {
        return queues(keys, q -> 0);
    }

    /**
     * The queue order; {@code usage} gives a queue's decayed past usage rank ({@link QueueKey#USAGE}) when a key asks
     * for it.
     */
    public static Comparator<QueueState> queues(List<OrderKey<QueueKey>> keys, java.util.function.ToDoubleFunction<QueueState> usage) {
        return build(keys, k -> switch (k) {
            case PRIORITY -> Comparator.comparingInt(q -> q.spec.priority());
            case SHARE -> Comparator.comparingDouble(QueueState::share);
            case USAGE -> Comparator.comparingDouble(usage);
            case NAME -> Comparator.comparing(QueueState::name);
        }, Comparator.comparing(QueueState::name));
    }

    /** The job order; {@code share} gives a job's dominant resource share ({@link JobKey#SHARE}) when a key asks for it. */
    public static Comparator<Job> jobs(List<OrderKey<JobKey>> keys, java.util.function.ToDoubleFunction<Job> share) {
        return build(keys, k -> switch (k) {
            case PRIORITY -> Comparator.comparingInt(j -> j.priority);
            case CREATION -> Comparator.comparingLong(j -> j.creationOrder);
            case NAME -> Comparator.comparing(j -> j.id);
            case SHARE -> Comparator.comparingDouble(share);
        }, Comparator.comparing(j -> j.id));
    }

    /** Whether the job order reads the jobs' shares (then they are worked out before the jobs are sorted). */
    public static boolean readsShares(List<OrderKey<JobKey>> keys) {
        for (OrderKey<JobKey> k : keys) if (k.key() == JobKey.SHARE) return true;
        return false;
    }

    /**
     * Each job's dominant resource share: the largest fraction of {@code total} (the schedulable nodes' allocatable)
     * its live running members hold, in the resources queues share, as Volcano's {@code drf} plugin works it out (a
     * resource the cluster has none of counts as all of it, when held).
     */
    public static java.util.function.ToDoubleFunction<Job> dominantShares(java.util.Collection<Job> jobs, dev.arbiter.model.Resources total) {
        java.util.IdentityHashMap<Job, Double> shares = new java.util.IdentityHashMap<>();
        for (Job j : jobs) shares.put(j, j.running.isEmpty() ? 0.0 : j.heldShare().dominantShare(total));
        return j -> shares.getOrDefault(j, 0.0);
    }

    public static Comparator<Task> tasks(List<OrderKey<TaskKey>> keys) {
        return build(keys, k -> switch (k) {
            case PRIORITY -> Comparator.comparingInt(t -> t.priority);
            case LEADER -> Comparator.comparing(t -> t.leader() ? 0 : 1);
            case CREATION -> Comparator.comparingLong(t -> t.creationOrder);
            case NAME -> Comparator.comparing(Task::id);
        }, Comparator.comparing(Task::id));
    }

    /** The keys in turn, each reversed by {@code desc}/{@code last}; the fallback makes the order total. */
    private static <T, K extends Enum<K> & dev.arbiter.policy.Words.Worded> Comparator<T> build(
            List<OrderKey<K>> keys, java.util.function.Function<K, Comparator<T>> comparator, Comparator<T> fallback) {
        Comparator<T> c = null;
        for (OrderKey<K> key : keys) {
            Comparator<T> k = comparator.apply(key.key());
            if (key.direction().reversed()) k = k.reversed();
            c = c == null ? k : c.thenComparing(k);
        }
        return c == null ? fallback : c.thenComparing(fallback);
    }
}
