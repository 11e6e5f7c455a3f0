package dev.arbiter.facts;

/**
 * How much more of each capped dimension a queue may admit this cycle: jobs move Pending → Inqueue, in job order, while their minimum resources fit the room.
 * {@code rule} is the name of the rule that inserted it.
 */
public record AdmissionBudget(String queue, dev.arbiter.model.Caps room, String rule) {
}
