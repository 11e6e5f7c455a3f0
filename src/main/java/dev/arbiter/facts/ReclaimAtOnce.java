package dev.arbiter.facts;

/**
 * A step of the rules' own reasoning that Java does not read: the running pods of {@code queue} may be reclaimed at
 * once (the minimum runtime does not protect them), because the queue holds more than its share while a lender waits
 * for the room it keeps ({@code lender}). {@code rule} inserted it.
 */
public record ReclaimAtOnce(String queue, String lender, String rule) {}
