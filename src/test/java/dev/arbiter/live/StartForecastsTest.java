package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.forecast.Forecast;
import dev.arbiter.model.ClusterSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The loop's side of live estimates: an offer returns at once, whatever the forecast does; one forecast at a time, at
 * most one per interval; a forecast that fails leaves the last one.
 */
class StartForecastsTest {
    private static final ClusterSnapshot EMPTY = new ClusterSnapshot(List.of(), List.of(), List.of(), List.of(), List.of());

    @Test
    void anOfferNeverWaitsForAForecastAndOneRunsAtATime() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1), release = new CountDownLatch(1), done = new CountDownLatch(2);
        AtomicInteger made = new AtomicInteger();
        Forecast first = new Forecast(1, 60, Map.of()), second = new Forecast(2, 60, Map.of());
        AtomicLong clock = new AtomicLong();
        Metrics metrics = new Metrics(new SimpleMeterRegistry());
        try (StartForecasts f = new StartForecasts(Duration.ofSeconds(60), (s, rules) -> {
            int n = made.incrementAndGet();
            if (n == 1) {
                entered.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            done.countDown();
            return n == 1 ? first : second;
        }, metrics, clock::get)) {
            assertTrue(f.offer(EMPTY, null), "the first offer starts a forecast");
            assertTrue(entered.await(60, TimeUnit.SECONDS));
            clock.addAndGet(Duration.ofSeconds(10).toNanos());
            assertFalse(f.offer(EMPTY, null), "within the interval: passed over");
            clock.addAndGet(Duration.ofSeconds(60).toNanos());
            assertFalse(f.offer(EMPTY, null), "past the interval, but the last still runs: passed over, at once");
            assertEquals(1.0, metrics.registry().get("arbiter.start.forecasts").tag("outcome", "skipped").counter().count());
            assertNull(f.latest());
            release.countDown();
            awaitIdle(f);
            assertSame(first, f.latest());
            assertTrue(f.offer(EMPTY, null), "free again, and the interval has passed");
            assertTrue(done.await(60, TimeUnit.SECONDS));
            awaitIdle(f);
            assertSame(second, f.latest());
            assertEquals(2, made.get());
        }
    }

    @Test
    void aFailedForecastLeavesTheLastOne() {
        AtomicLong clock = new AtomicLong();
        AtomicInteger calls = new AtomicInteger();
        Forecast good = new Forecast(1, 60, Map.of());
        Metrics metrics = new Metrics(new SimpleMeterRegistry());
        try (StartForecasts f = new StartForecasts(Duration.ofMillis(1), (s, rules) -> {
            if (calls.incrementAndGet() == 2) throw new IllegalStateException("a rule failed");
            return good;
        }, metrics, clock::get)) {
            assertTrue(f.offer(EMPTY, null));
            awaitIdle(f);
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            assertTrue(f.offer(EMPTY, null));
            awaitIdle(f);
            assertEquals(2, calls.get());
            assertSame(good, f.latest());
            assertEquals(1.0, metrics.registry().get("arbiter.start.forecasts").tag("outcome", "failed").counter().count());
        }
    }

    private static void awaitIdle(StartForecasts f) {
        LiveFixture.await("forecast finished", () -> !f.isRunning());
    }
}
