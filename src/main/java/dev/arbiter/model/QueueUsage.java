package dev.arbiter.model;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A queue's decayed past usage as last sampled (Kueue's {@code consumedResources} with its {@code lastUpdate}):
 * {@code amounts} per resource in Arbiter's units (milli-units, or bytes for byte-valued resources, as
 * {@link Resources}), kept as fractions because a long half-life adds less than a milli-unit per sample; {@code at}
 * is when it was sampled, on the snapshot's clock (epoch seconds live).
 *
 * <p>It is stored on the Volcano Queue as the annotation {@value #ANNOTATION}, e.g.
 * {@code 2026-12-04T20:46:00Z cpu=12.5 memory=68719476736 nvidia.com/gpu=15.98}: the sampling time, then each
 * resource in its own unit (cores, GPUs, bytes). An annotation, not a status field: the Queue CRD's status schema is
 * structural, so the API server prunes a field it does not declare, and Volcano's own controller writes that status.
 */
public record QueueUsage(Map<String, Double> amounts, long at) {
    public static final String ANNOTATION = "arbiter.dev/usage";

    public QueueUsage {
        amounts = Collections.unmodifiableMap(new TreeMap<>(amounts));
    }

    /** No usage, sampled at {@code at}. */
    public static QueueUsage none(long at) {
        return new QueueUsage(Map.of(), at);
    }

    /** The amount of {@code resource}, in Arbiter's units; 0 when absent. */
    public double amount(String resource) {
        return amounts.getOrDefault(resource, 0.0);
    }

    /** The annotation's value: the time, then {@code resource=amount} in the resource's own unit, by name. */
    public String annotationValue() {
        StringBuilder b = new StringBuilder(Instant.ofEpochSecond(at).toString());
        amounts.forEach((r, v) -> {
            if (v == 0) return;
            double own = Quantity.isBytes(r) ? v : v / 1000;
            b.append(' ').append(r).append('=').append(BigDecimal.valueOf(own).stripTrailingZeros().toPlainString());
        });
        return b.toString();
    }

    /**
     * Reads an annotation's value ({@link #annotationValue}); a value that is not one is an
     * {@link IllegalArgumentException} saying what is wrong, in one line.
     */
    public static QueueUsage parse(String value) {
        String[] parts = value.trim().split("\\s+");
        long at;
        try {
            at = Instant.parse(parts[0]).getEpochSecond();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("must start with the time it was sampled (e.g. 2026-12-04T20:46:00Z), got \""
                    + parts[0] + "\"");
        }
        Map<String, Double> amounts = new TreeMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("\"" + parts[i] + "\" is not resource=amount");
            String r = parts[i].substring(0, eq);
            double v;
            try {
                v = Double.parseDouble(parts[i].substring(eq + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(r + ": \"" + parts[i].substring(eq + 1) + "\" is not a number");
            }
            if (!(v >= 0) || Double.isInfinite(v)) throw new IllegalArgumentException(r + ": must be a finite amount of at least 0, got " + v);
            if (amounts.put(r, Quantity.isBytes(r) ? v : v * 1000) != null) throw new IllegalArgumentException(r + " is stated twice");
        }
        return new QueueUsage(amounts, at);
    }
}
