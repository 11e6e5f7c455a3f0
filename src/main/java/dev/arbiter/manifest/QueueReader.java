package dev.arbiter.manifest;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/** Reads a {@code scheduling.volcano.sh/v1beta1} Queue (cluster-scoped). */
final class QueueReader {
    private QueueReader() {}

    private static String dequeueStrategy(Field f) {
        String s = f.string(QueueSpec.TRAVERSE);
        if (!s.equals(QueueSpec.TRAVERSE) && !s.equals(QueueSpec.FIFO)) {
            throw f.error("must be traverse or fifo, got " + f.shown());
        }
        return s;
    }

    /**
     * {@code spec.weight} (default 1, must be a positive integer), {@code spec.priority} (default 0),
     * {@code spec.capability} (null = unlimited; an explicit 0 forbids the resource), {@code spec.guarantee.resource} (empty when unset),
     * {@code spec.reclaimable} (default true), {@code spec.parent}, {@code status.state} (default Open),
     * {@code spec.dequeueStrategy} ({@code traverse} by default, or {@code fifo}) and {@code spec.deserved}
     * (null when unset; used by the capacity policy pack), and the {@value QueueSpec#LENDING_LIMIT} annotation
     * ({@link #lendingLimit}: a value that does not read gives {@code notices} one line and no limit).
     */
    static QueueSpec read(Field queue, Metadata meta, Consumer<String> notices) {
        Field spec = queue.get("spec");
        Resources guarantee = spec.get("guarantee", "resource").resources();
        return new QueueSpec(meta.name(),
                spec.get("weight").integer(1, w -> w > 0, "must be a positive integer"),
                spec.get("priority").integer(0, p -> true, "must be an integer"),
                spec.get("capability").caps(),
                guarantee == null ? Resources.NONE : guarantee,
                spec.get("reclaimable").bool(true),
                queue.get("status", "state").string("Open"),
                spec.get("parent").string(),
                meta.arrivalCycleOr(0),
                dequeueStrategy(spec.get("dequeueStrategy")),
                spec.get("deserved").resources(),
                lendingLimit(queue, meta, notices));
    }

    /**
     * The queue's lending limit from its {@value QueueSpec#LENDING_LIMIT} annotation: comma-separated
     * {@code resource=quantity} pairs, e.g. {@code "nvidia.com/gpu=4, cpu=16"}; a resource it does not name is lent
     * without limit, and {@code =0} lends none of it. Null when the annotation is absent or empty, or when it does not
     * read: then one notice names the queue, the annotation and the problem, and the queue lends as if it had none
     * (a typo must not keep a cluster's GPUs idle).
     */
    static Caps lendingLimit(Field queue, Metadata meta, Consumer<String> notices) {
        String value = meta.annotations().get(QueueSpec.LENDING_LIMIT);
        if (value == null || value.isBlank()) return null;
        try {
            return parseLendingLimit(value);
        } catch (IllegalArgumentException e) {
            notices.accept(queue.notice("annotation " + QueueSpec.LENDING_LIMIT + ": " + e.getMessage()
                    + "; the queue is read without a lending limit"));
            return null;
        }
    }

    /** {@code "nvidia.com/gpu=4,cpu=16"} as bounds; an IllegalArgumentException says what does not read. */
    static Caps parseLendingLimit(String value) {
        Map<String, Long> bounds = new TreeMap<>();
        for (String part : value.split(",")) {
            String pair = part.trim();
            int eq = pair.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("\"" + pair + "\" is not resource=quantity (e.g. nvidia.com/gpu=4)");
            String resource = pair.substring(0, eq).trim();
            String amount = pair.substring(eq + 1).trim();
            if (bounds.containsKey(resource)) throw new IllegalArgumentException("names " + resource + " twice");
            long milli = Quantity.parseAmount(resource, amount);
            if (milli < 0) throw new IllegalArgumentException(resource + " must not be negative, got " + amount);
            bounds.put(resource, milli);
        }
        return Caps.ofMilli(bounds);
    }
}
