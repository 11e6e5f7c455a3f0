package dev.arbiter.facts;

/**
 * A job that must stay Pending this cycle, with the reason shown in its status.
 * {@code rule} is the name of the rule that inserted it.
 */
public record AdmissionDenied(String job, String reason, String rule) {
}
