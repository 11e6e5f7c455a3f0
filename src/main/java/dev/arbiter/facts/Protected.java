package dev.arbiter.facts;

/**
 * A running task that is never a victim, with the reason.
 * {@code rule} is the name of the rule that inserted it.
 */
public record Protected(String task, String reason, String rule) {
}
