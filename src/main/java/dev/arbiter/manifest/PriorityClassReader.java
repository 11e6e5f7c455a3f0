package dev.arbiter.manifest;

import dev.arbiter.model.PriorityClassSpec;

/** Reads a {@code scheduling.k8s.io/v1} PriorityClass. */
final class PriorityClassReader {
    static final String PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority";

    private PriorityClassReader() {}

    /**
     * {@code value} (a required integer), {@code globalDefault} (default false) and {@code preemptionPolicy}
     * (PreemptLowerPriority, the default, or Never). These fields sit at the top level, not under {@code spec}.
     */
    static PriorityClassSpec read(Field priorityClass, Metadata meta) {
        Field value = priorityClass.get("value");
        if (!value.isPresent()) throw value.error("is required");
        return new PriorityClassSpec(meta.name(),
                value.integer(0, v -> true, "must be an integer"),
                priorityClass.get("globalDefault").bool(false),
                PodReader.preemptionPolicy(priorityClass.get("preemptionPolicy"), PREEMPT_LOWER_PRIORITY));
    }
}
