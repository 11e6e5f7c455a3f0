package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.forecast.Forecast;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Runtimes;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Live start-time estimates: a forecast off the scheduling thread, the pending PodGroup's {@code
 * arbiter.dev/estimated-start} written by the actuator and removed when the job starts, and the per-queue metrics.
 */
class EstimatedStartLiveTest extends LiveClusterTest {
    private static PodSpec estimated(PodSpec p, String estimate) {
        Map<String, String> a = new HashMap<>(p.annotations());
        if (estimate != null) a.put(Runtimes.ESTIMATE, estimate);
        return p.withAnnotations(a);
    }

    private String annotation(String key) {
        Map<String, String> a = fx.podGroup(key).getMetadata().getAnnotations();
        return a == null ? null : a.get(Forecast.ANNOTATION);
    }

    @Test
    void aPendingJobShowsWhenItStartsUntilItStarts() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        fx.create(podGroup("team-a", "first", "research", 1));
        fx.create(estimated(pod("team-a", "first-0", "arbiter", 8, "first"), "1h"));
        fx.create(podGroup("team-a", "second", "research", 1));
        fx.create(estimated(pod("team-a", "second-0", "arbiter", 8, "second"), "30m"));
        LiveScheduler s = fx.manualScheduler();
        s.estimateStarts(Duration.ofMillis(1), 7 * 24 * 3600);
        await("in cache", () -> s.cache().snapshot().pods().size() == 2 && s.cache().hasPodGroup("team-a/second"));

        long before = Instant.now().getEpochSecond();
        s.loop().runOnce(); // binds first; its snapshot goes to the forecast's thread
        assertEquals("node-1", awaitNode("team-a/first-0"));
        await("a forecast", () -> s.startForecasts().latest() != null && !s.startForecasts().isRunning());
        Forecast f = s.startForecasts().latest();
        assertEquals(f.now() + 3600, f.of("team-a/second").at(), "first ends after its hour; second starts then");
        assertNull(annotation("team-a/first"), "not written before the forecast is there");

        s.loop().runOnce();
        await("second annotated", () -> annotation("team-a/second") != null);
        long at = Instant.parse(annotation("team-a/second")).getEpochSecond();
        assertTrue(at >= before + 3600 && at <= Instant.now().getEpochSecond() + 3600 + 60, annotation("team-a/second"));
        assertEquals(0, at % 60, "to the minute");
        assertNull(annotation("team-a/first"), "a running job has none");
        double max = s.metrics().registry().get("arbiter.job.estimated.start.seconds").tags("queue", "research", "stat", "max")
                .gauge().value();
        assertTrue(max > 3500 && max <= 3600, "seconds until second starts: " + max);
        assertEquals(0.0, s.metrics().registry().get("arbiter.jobs.without.estimated.start").tags("queue", "research")
                .gauge().value());

        // first ends (its pod is gone): second starts, and its estimate goes.
        client.pods().inNamespace("team-a").withName("first-0").delete();
        await("first gone", () -> s.cache().snapshot().pods().size() == 1);
        s.loop().runOnce();
        assertEquals("node-1", awaitNode("team-a/second-0"));
        await("the estimate removed once it started", () -> annotation("team-a/second") == null);
    }

    @Test
    void offByDefaultNothingIsForecastOrWritten() {
        fx.create(node("node-1", 8));
        fx.create(podGroup("team-a", "first", "default", 1));
        fx.create(estimated(pod("team-a", "first-0", "arbiter", 8, "first"), "1h"));
        fx.create(podGroup("team-a", "second", "default", 1));
        fx.create(estimated(pod("team-a", "second-0", "arbiter", 8, "second"), "30m"));
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().snapshot().pods().size() == 2);
        s.loop().runOnce().report();
        s.loop().runOnce().report();
        assertNull(s.startForecasts());
        assertNull(annotation("team-a/second"));
        assertTrue(s.metrics().registry().find("arbiter.job.estimated.start.seconds").gauges().isEmpty());
    }

    @Test
    void aBadEstimateIsALikelyMistake() {
        fx.create(node("node-1", 8));
        fx.create(estimated(pod("team-a", "lone", "arbiter", 1, null), "2hours"));
        LiveScheduler s = fx.manualScheduler();
        s.actuator().useClock(() -> 0L);
        await("in cache", () -> s.cache().snapshot().pods().size() == 1);
        s.loop().runOnce();
        await("said on the pod", () -> fx.events("team-a/lone").contains("LikelyMistake: Pod team-a/lone: "
                + "metadata.annotations[arbiter.dev/runtime-estimate]: \"2hours\" is not a duration such as 45m, 2h, 1h30m"
                + " or 1d (at most 366d), ignored (the job has no runtime estimate of its own)"));
    }

    private String awaitNode(String pod) {
        await(pod + " bound", () -> fx.nodeOf(pod) != null);
        return fx.nodeOf(pod);
    }
}
