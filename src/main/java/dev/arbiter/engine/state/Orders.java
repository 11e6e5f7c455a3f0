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
        return build(keys, k -> switch (k) {
            case PRIORITY -> Comparator.comparingInt(q -> q.spec.priority());
            case SHARE -> Comparator.comparingDouble(QueueState::share);
            case NAME -> Comparator.comparing(QueueState::name);
        }, Comparator.comparing(QueueState::name));
    }

    public static Comparator<Job> jobs(List<OrderKey<JobKey>> keys) {
        return build(keys, k -> switch (k) {
            case PRIORITY -> Comparator.comparingInt(j -> j.priority);
            case CREATION -> Comparator.comparingLong(j -> j.creationOrder);
            case NAME -> Comparator.comparing(j -> j.id);
        }, Comparator.comparing(j -> j.id));
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
