package dev.arbiter.facts;

/**
 * What allocation may give a queue: a job is not started while the queue has reached {@code ceiling} in a dimension the job needs (Volcano's overused), and no placement may take the queue past {@code hardCap}.
 * {@code rule} is the name of the rule that inserted it.
 */
public record AllocationLimit(String queue, dev.arbiter.model.Resources ceiling, dev.arbiter.model.Caps hardCap, String rule) {
}
