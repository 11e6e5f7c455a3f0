package dev.arbiter.decision;

/** Bind pod {@code pod} (namespace/name) to {@code node}; {@code rule} is the policy sentence that let its gang start. */
public record Binding(String pod, String node, String rule) {}
