package dev.arbiter.decision;

/**
 * A pending pod whose place is being made on {@code node} (its victims are leaving): like Kubernetes'
 * {@code status.nominatedNodeName}, the next cycle holds that room for the pod so no other job takes it.
 */
public record Nomination(String pod, String node) {}
