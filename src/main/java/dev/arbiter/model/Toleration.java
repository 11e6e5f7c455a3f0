package dev.arbiter.model;

/**
 * A pod toleration with Kubernetes matching: operator {@code Exists} matches any value (and with an empty key, any
 * taint); {@code Equal} (the default) needs the same value; an empty effect matches every effect.
 */
public record Toleration(String key, String operator, String value, String effect) {
    public boolean tolerates(Taint t) {
        if (effect != null && !effect.isEmpty() && !effect.equals(t.effect())) return false;
        boolean exists = "Exists".equals(operator);
        if (key == null || key.isEmpty()) return exists;
        if (!key.equals(t.key())) return false;
        return exists || java.util.Objects.equals(nullToEmpty(value), nullToEmpty(t.value()));
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
