package dev.arbiter.specs;

import dev.arbiter.forecast.Forecast;
import dev.arbiter.forecast.StartEstimate;
import dev.arbiter.forecast.StartWords;
import dev.arbiter.model.Runtimes;
import io.cucumber.java.en.Then;

/**
 * Start-time estimate steps (docs/estimates.md): once the story has settled, each pending job's estimated start,
 * forecast with the real engine from the last cycle, each running job ending at its runtime estimate. "About" allows a
 * minute either way (the story's own cycles take seconds).
 */
public final class EstimateSteps {
    static final long ABOUT_SECONDS = 60;

    private static StartEstimate estimate(String name) {
        Outcome o = ScenarioWorld.current().outcome();
        Outcome.Found w = o.workload(name);
        if (w.podGroups().size() != 1) {
            throw new AssertionError("\"" + name + "\" should be one job to have one estimated start; it has " + w.podGroups());
        }
        Forecast f = ScenarioWorld.current().forecast();
        StartEstimate e = f.of(w.podGroups().get(0));
        if (e == null) throw new AssertionError("\"" + name + "\" is not pending, so it has no estimated start\n" + o.describe(w));
        return e;
    }

    private static String shown(StartEstimate e) {
        return StartWords.line(e, ScenarioWorld.current().forecast(), StartWords.Clock.SIMULATED);
    }

    @Then("{string} is estimated to start in about {word}")
    public void startsInAbout(String name, String duration) {
        long expected = Runtimes.seconds(duration);
        if (expected < 0) throw new IllegalArgumentException("\"" + duration + "\" is not a duration such as 45m, 2h or 1h30m");
        StartEstimate e = estimate(name);
        long in = e.secondsAfter(ScenarioWorld.current().forecast().now());
        if (!e.isKnown() || Math.abs(in - expected) > ABOUT_SECONDS) {
            throw new AssertionError("\"" + name + "\" should be estimated to start in about " + duration + "; its estimated"
                    + " start: " + shown(e));
        }
    }

    @Then("{string} has no estimated start because it waits on {string}")
    public void noneWaitingOn(String name, String other) {
        StartEstimate e = estimate(name);
        Outcome.Found w = ScenarioWorld.current().outcome().workload(other);
        if (e.none() != StartEstimate.None.WAITS_ON_UNKNOWN_END || !w.podGroups().contains(e.waitsOn())) {
            throw new AssertionError("\"" + name + "\" should have no estimated start, waiting on \"" + other + "\" ("
                    + w.podGroups() + "), which has no runtime estimate; its estimated start: " + shown(e));
        }
    }

    @Then("{string} has no estimated start")
    public void none(String name) {
        StartEstimate e = estimate(name);
        if (e.isKnown()) throw new AssertionError("\"" + name + "\" should have no estimated start; it has: " + shown(e));
    }
}
