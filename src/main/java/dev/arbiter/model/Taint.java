package dev.arbiter.model;

/** A node taint; {@code effect} is NoSchedule, PreferNoSchedule or NoExecute. */
public record Taint(String key, String value, String effect) {}
