package dev.arbiter.facts;

/**
 * The head job of {@code queue} (the first job in its queue's order that allocation would serve and that has not
 * started), once it has waited at least {@code afterSeconds}, reserves the nodes that would start it soonest: Java
 * finds them from the running pods' estimated ends ({@code runtime} in policy.yaml) and keeps other work off them,
 * except work whose runtime estimate ends before the reservation starts (backfill, unless {@code reservation.backfill}
 * is false). {@code rule} is the name of the rule that inserted it.
 */
public record ReservationGrant(String queue, long afterSeconds, String rule) {}
