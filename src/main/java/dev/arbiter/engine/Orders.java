package dev.arbiter.engine;

import dev.arbiter.facts.OrderPolicy;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Turns the order rules' sort keys into comparators. Unknown keys are a {@link PolicyException} naming the rule. */
final class Orders {
    private static final Map<String, Comparator<QueueState>> QUEUE_KEYS = Map.of(
            "priority", Comparator.comparingInt(q -> q.spec.priority()),
            "share", Comparator.comparingDouble(QueueState::share),
            "name", Comparator.comparing(QueueState::name));
    private static final Map<String, Comparator<Job>> JOB_KEYS = Map.of(
            "priority", Comparator.comparingInt(j -> j.priority),
            "creation", Comparator.comparingLong(j -> j.creationOrder),
            "name", Comparator.comparing(j -> j.id));
    private static final Map<String, Comparator<Task>> TASK_KEYS = Map.of(
            "priority", Comparator.comparingInt(t -> t.priority),
            "leader", Comparator.comparing(t -> t.leader() ? 0 : 1),
            "creation", Comparator.comparingLong(t -> t.pod.creationOrder()),
            "name", Comparator.comparing(Task::id));

    private Orders() {}

    static Comparator<QueueState> queues(Map<String, OrderPolicy> orders) {
        return build(orders.get("queue"), QUEUE_KEYS, Comparator.comparing(QueueState::name));
    }

    static Comparator<Job> jobs(Map<String, OrderPolicy> orders) {
        return build(orders.get("job"), JOB_KEYS, Comparator.comparing(j -> j.id));
    }

    static Comparator<Task> tasks(Map<String, OrderPolicy> orders) {
        return build(orders.get("task"), TASK_KEYS, Comparator.comparing(Task::id));
    }

    /**
     * Keys read "{@code <key> asc|desc}"; for the boolean keys "{@code leader first|last}". The fallback breaks
     * remaining ties so that the order is total and decisions are deterministic.
     */
    private static <T> Comparator<T> build(OrderPolicy p, Map<String, Comparator<T>> known, Comparator<T> fallback) {
        if (p == null) return fallback;
        Comparator<T> c = null;
        for (String key : p.keys()) {
            String[] parts = key.trim().split("\\s+");
            Comparator<T> k = known.get(parts[0]);
            String dir = parts.length > 1 ? parts[1] : "asc";
            if (k == null || parts.length > 2 || !List.of("asc", "desc", "first", "last").contains(dir)) {
                throw new PolicyException("rule \"" + p.rule() + "\": unknown " + p.scope() + " sort key \"" + key
                        + "\" (known: " + String.join(", ", known.keySet()) + " with asc|desc)");
            }
            if (dir.equals("desc") || dir.equals("last")) k = k.reversed();
            c = c == null ? k : c.thenComparing(k);
        }
        return c == null ? fallback : c.thenComparing(fallback);
    }

}
