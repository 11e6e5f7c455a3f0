package dev.arbiter.forecast;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One forecast: made on the snapshot of time {@code now} (its clock), looking {@code horizonSeconds} ahead, an
 * estimate for every job pending then, by job key ({@code namespace/podgroup}).
 */
public record Forecast(long now, long horizonSeconds, Map<String, StartEstimate> jobs) {
    public static final Forecast NONE = new Forecast(0, 0, Map.of());
    /**
     * Live: the annotation on a pending Volcano PodGroup holding its estimated start, RFC 3339 to the minute (rounded
     * up), e.g. {@code 2026-12-05T01:40:00Z}; the actuator removes it when the job starts or has no estimate.
     */
    public static final String ANNOTATION = "arbiter.dev/estimated-start";

    /** {@code at} (epoch seconds) as the annotation holds it: RFC 3339, rounded up to the minute. */
    public static String annotationValue(long at) {
        return java.time.Instant.ofEpochSecond(Math.floorDiv(at + 59, 60) * 60).toString();
    }

    public Forecast {
        jobs = java.util.Collections.unmodifiableMap(new TreeMap<>(jobs));
    }

    public StartEstimate of(String job) {
        return jobs.get(job);
    }

    /** The estimates in job order. */
    public List<StartEstimate> estimates() {
        return List.copyOf(jobs.values());
    }

    /** How many of the pending jobs have no estimated start. */
    public int withoutEstimate() {
        return (int) jobs.values().stream().filter(e -> !e.isKnown()).count();
    }
}
