package dev.arbiter.manifest;

import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;

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
     * (null when unset; used by the capacity policy pack).
     */
    static QueueSpec read(Field queue, Metadata meta) {
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
                spec.get("deserved").resources());
    }
}
