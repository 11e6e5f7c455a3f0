package dev.arbiter.forecast;

import dev.arbiter.json.JsonWriter;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Start-time estimates at the end of a simulation ({@code simulate}, {@code explain}): the forecast from the run's last
 * snapshot, for the jobs still pending when the run ended, and how the reports show it.
 */
public final class EndOfRun {
    private EndOfRun() {}

    /**
     * The estimated starts of the jobs pending at the end of {@code run}, forecast from the last snapshot {@code tap}
     * saw; null when there is nothing to forecast from, or no runtime estimate anywhere (a pod's annotation or a policy
     * default: then every job would have none, and the reports stay as they were).
     */
    public static Forecast forecast(Manifests m, SimulationResult run, SnapshotTap tap, Forecaster forecaster,
                                    dev.arbiter.policy.PolicySettings.Runtime runtime) {
        if (tap.last() == null || !Forecaster.anyEstimate(runtime, m.pods())) return null;
        Map<String, String> jobOf = new HashMap<>();
        for (PodSpec p : m.pods()) jobOf.put(p.key(), p.jobId());
        Set<String> started = new HashSet<>();
        for (PodOutcome o : run.pods()) {
            if (!o.phase().equals("Pending") && !o.phase().equals("Evicted")) started.add(jobOf.get(o.pod()));
        }
        Forecast f = forecaster.forecast(tap.last());
        Map<String, StartEstimate> pending = new LinkedHashMap<>(f.jobs());
        pending.keySet().removeAll(started);
        return new Forecast(f.now(), f.horizonSeconds(), pending);
    }

    /** PodGroup to its estimated start in a table's few words ({@link StartWords#brief}). */
    public static Map<String, String> cells(Forecast f) {
        Map<String, String> out = new LinkedHashMap<>();
        for (StartEstimate e : f.estimates()) out.put(e.job(), StartWords.brief(e, f.now()));
        return out;
    }

    /**
     * {@code "estimates":{"now","horizonSeconds","jobs":[{"podGroup","queue","at","in","none","waitsOn","text"}]}}:
     * {@code now} is the time the forecast was made (the run's last cycle), {@code at} the estimated start on the same
     * clock and {@code in} the seconds until it (both null when there is none; {@code none} then says why:
     * {@code waitsOnUnknownEnd}, {@code beyondHorizon} or {@code never}).
     */
    public static void json(JsonWriter w, Forecast f, StartWords.Clock clock) {
        w.nextLine(1).name("estimates").startObject().field("now", f.now()).field("horizonSeconds", f.horizonSeconds())
                .name("jobs").startArray();
        for (StartEstimate e : f.estimates()) {
            w.nextLine(2).startObject().field("podGroup", e.job()).field("queue", e.queue());
            if (e.isKnown()) w.field("at", e.at()).field("in", e.secondsAfter(f.now()));
            else w.name("at").nullValue().name("in").nullValue();
            w.field("none", StartWords.code(e)).field("waitsOn", e.waitsOn()).field("text", StartWords.line(e, f, clock))
                    .endObject();
        }
        w.endArray().endObject();
    }
}
