package dev.arbiter.model;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared instance per value for the small immutable parts pods repeat (node selectors, tolerations, requests): a
 * fleet's pods come from a few templates, so each value has many equal copies, and the engine compares them pod by pod
 * (the pods of a job one after another). Shared, equal values are the same object, and compare by identity. At most
 * {@value #MAX} values are kept, for the life of the process; past that, a new value is used as it is.
 */
final class Shared {
    static final int MAX = 4096;
    private static final ConcurrentHashMap<Object, Object> VALUES = new ConcurrentHashMap<>();

    private Shared() {}

    /** The shared instance equal to {@code value} (which must be immutable), or {@code value} itself. */
    @SuppressWarnings("unchecked")
    static <T> T of(T value) {
        Object shared = VALUES.get(value);
        if (shared != null) return (T) shared;
        if (VALUES.size() >= MAX) return value;
        shared = VALUES.putIfAbsent(value, value);
        return shared == null ? value : (T) shared;
    }
}
