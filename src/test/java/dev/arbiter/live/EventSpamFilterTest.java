package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.livebench.StandInApiServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The per-object event limit, as client-go's {@code EventSourceObjectSpamFilter} (burst 25, one more every 5 minutes,
 * keyed by object and type). Translated from client-go's {@code tools/record/events_cache_test.go}
 * {@code TestEventSpamFilter} (the same object with another reason shares the budget; with another key it does not)
 * and {@code util/flowcontrol} token bucket semantics, on a clock the test sets.
 */
class EventSpamFilterTest {
    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    @Test
    void aFullBucketLetsTheBurstThroughAndThenOneEveryFiveMinutes() {
        TokenBucket b = new TokenBucket(25, 1.0 / 300, 0);
        for (int i = 0; i < 25; i++) assertTrue(b.tryTake(0), "event " + (i + 1) + " of the burst");
        assertFalse(b.tryTake(0), "the 26th at once is spam");
        assertFalse(b.tryTake(4 * MINUTE), "4 minutes later there is not yet a token");
        assertTrue(b.tryTake(5 * MINUTE), "5 minutes later one more passes");
        assertFalse(b.tryTake(5 * MINUTE), "and only one");
    }

    @Test
    void aQuietObjectRefillsToItsBurstAndNoFurther() {
        TokenBucket b = new TokenBucket(25, 1.0 / 300, 0);
        for (int i = 0; i < 25; i++) b.tryTake(0);
        long later = 24 * 60 * MINUTE;
        int passed = 0;
        while (b.tryTake(later)) passed++;
        assertEquals(25, passed, "a day later the burst is back, not 288 tokens");
    }

    @Test
    void aBurstOfOneWaitsOneIntervalBetweenEvents() {
        TokenBucket b = new TokenBucket(1, 1.0, 0);
        assertTrue(b.tryTake(0));
        assertEquals(1_000_000_000L, b.nanosUntilToken(0), "the sender sleeps exactly until the next token");
        assertEquals(500_000_000L, b.nanosUntilToken(500_000_000L));
        assertTrue(b.tryTake(1_000_000_000L));
    }

    @Test
    void aClockThatGoesBackGivesNoTokens() {
        TokenBucket b = new TokenBucket(1, 1.0, 10 * MINUTE);
        assertTrue(b.tryTake(10 * MINUTE));
        assertFalse(b.tryTake(MINUTE), "an earlier reading refills nothing");
        assertFalse(b.tryTake(10 * MINUTE + 1), "nor does it move the bucket's time back");
    }

    /**
     * TestEventSpamFilter: with the default key an event of another reason on the same object is spam once the burst is
     * spent; client-go's default key holds the type, so a Warning on that object still has its own budget.
     */
    @Test
    void theRecorderLimitsEachObjectAndTypeAndCountsWhatItRefuses() {
        try (StandInApiServer api = StandInApiServer.start(Duration.ZERO);
             KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(api.kubeconfig())).build()) {
            Metrics metrics = new Metrics(new SimpleMeterRegistry());
            try (EventRecorder events = new EventRecorder(new ApiCalls(client, Duration.ofSeconds(5)), metrics, "arbiter",
                    "replica-1", EventRecorder.Limits.standard())) {
                EventRecorder.Involved pod = EventRecorder.Involved.pod("team/flaps", "uid-1");
                for (int i = 0; i < EventRecorder.PER_OBJECT_BURST; i++) {
                    assertTrue(events.record(pod, "Normal", i % 2 == 0 ? "Scheduled" : "Preempted", "event " + i), "event " + i);
                }
                assertFalse(events.record(pod, "Normal", "FailedScheduling", "another reason"), "another reason shares the budget");
                assertTrue(events.record(pod, "Warning", "FailedScheduling", "a warning"), "a Warning has its own budget");
                assertTrue(events.record(EventRecorder.Involved.pod("team/other", "uid-2"), "Normal", "Scheduled", "x"),
                        "another object has its own budget");
                assertEquals(1, metrics.events("throttled"));
            }
        }
    }
}
