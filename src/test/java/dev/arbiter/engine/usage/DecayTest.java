package dev.arbiter.engine.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.QueueUsage;
import dev.arbiter.model.Resources;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decay arithmetic, translated from Kueue's admission fair sharing tests:
 * {@code pkg/controller/core/localqueue_controller_test.go} {@code TestLocalQueueReconcile} (the "local queue decaying
 * usage ..." cases: a stored usage, its time, what runs now, the half-life; the want is the status Kueue writes) and
 * {@code pkg/util/admissionfairsharing/admission_fair_sharing_test.go} ({@code TestCalculateDecayedConsumed*},
 * {@code TestCalculateUsageWithNonPositiveWeight}). Amounts are Arbiter's: milli-units, bytes for memory.
 */
class DecayTest {
    private static final long NOW = 1_000_000;
    private static final double FIVE_MINUTES = 300;

    private static QueueUsage stored(long secondsAgo, Object... nameAmount) {
        return new QueueUsage(Resources.of(nameAmount).asMilliMap().entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> (double) e.getValue())), NOW - secondsAgo);
    }

    @Test
    void localQueueDecayingUsageDecaysIfThereIsNoRunningWorkloads() {
        // 8 cpu five minutes ago, half-life 5m, nothing runs: half of it is left.
        QueueUsage u = Decay.decayed(stored(300, "cpu", 8), Resources.NONE, NOW, FIVE_MINUTES);
        assertEquals(4000, u.amount("cpu"), 1e-6);
        assertEquals(NOW, u.at());
    }

    @Test
    void localQueueDecayingUsageSumsThePreviousStateAndRunningWorkloads() {
        // 8 cpu five minutes ago, 4 cpu running now, half-life 5m: 8 × 0.5 + 4 × 0.5 = 6.
        QueueUsage u = Decay.decayed(stored(300, "cpu", 8), Resources.of("cpu", 4), NOW, FIVE_MINUTES);
        assertEquals(6000, u.amount("cpu"), 1e-6);
    }

    @Test
    void localQueueDecayingUsageSumsTheUsageFromDifferentFlavorsAndResources() {
        // cpu 8 → 6 and GPU 16 → 10 with 4 of each running (Kueue sums flavors; Arbiter has none: one vector).
        QueueUsage u = Decay.decayed(stored(300, "cpu", 8, "nvidia.com/gpu", 16), Resources.of("cpu", 4, "nvidia.com/gpu", 4),
                NOW, FIVE_MINUTES);
        assertEquals(6000, u.amount("cpu"), 1e-6);
        assertEquals(10000, u.amount("nvidia.com/gpu"), 1e-6);
    }

    @Test
    void localQueueDecayingUsageSumsThePreviousStateAndRunningWorkloadsHalfTimeTwiceLargerThanSampling() {
        // Half-life 10m, five minutes elapsed: 8 × 0.5^0.5 + 4 × (1 − 0.5^0.5) = 6.828427124 (Kueue's "6828427124n").
        QueueUsage u = Decay.decayed(stored(300, "cpu", 8), Resources.of("cpu", 4), NOW, 600);
        assertEquals(6828.427124, u.amount("cpu"), 1e-6);
    }

    @Test
    void localQueueDecayingUsageSumsThePreviousStateAndRunningGpuWorkloadsHalfTimeTwiceLargerThanSampling() {
        QueueUsage u = Decay.decayed(stored(300, "nvidia.com/gpu", 8), Resources.of("nvidia.com/gpu", 4), NOW, 600);
        assertEquals(6828.427124, u.amount("nvidia.com/gpu"), 1e-6);
    }

    @Test
    void localQueueDecayingUsageWithLongHalfTime() {
        // Half-life 24h, five minutes elapsed, nothing runs: 8 × 0.5^(5/1440) = 7.980769063 (Kueue's "7980769063n").
        QueueUsage u = Decay.decayed(stored(300, "cpu", 8), Resources.NONE, NOW, 24 * 3600);
        assertEquals(7980.769063, u.amount("cpu"), 1e-6);
    }

    @Test
    void clampsAFutureLastUpdate() {
        // A sample stamped later than now (a clock set back) is not decayed, and keeps its time: no negative elapsed.
        QueueUsage future = new QueueUsage(Map.of("cpu", 8000.0), NOW + 60);
        QueueUsage u = Decay.decayed(future, Resources.of("cpu", 100), NOW, FIVE_MINUTES);
        assertEquals(8000, u.amount("cpu"), 1e-9);
        assertEquals(NOW + 60, u.at());
    }

    @Test
    void calculateDecayedConsumedConvergesToUsage() {
        // 2 cpu held, sampled every 5 minutes with a week's half-life: 1 − 0.5^n of the way after n half-lives, within
        // a milli-unit, and never past what is held.
        double halfLife = 168 * 3600;
        QueueUsage u = QueueUsage.none(0);
        Resources held = Resources.of("cpu", 2);
        double[] want = {1000, 1500, 1750};
        long t = 0;
        for (int halfLives = 1; halfLives <= 3; halfLives++) {
            for (int i = 0; i < 2016; i++) u = Decay.decayed(u, held, t += 300, halfLife);
            assertEquals(want[halfLives - 1], u.amount("cpu"), 1, "after " + halfLives + " half-lives");
            assertTrue(u.amount("cpu") <= 2000, "never past what is held");
        }
    }

    @Test
    void calculateDecayedConsumedAccumulatesSubMilli() {
        // Each sample adds under a milli-unit with a week's half-life; it must still accumulate.
        double halfLife = 168 * 3600;
        QueueUsage u = QueueUsage.none(0);
        Resources held = Resources.of("cpu", 2, "nvidia.com/gpu", 1);
        double cpu = 0, gpu = 0;
        for (int sample = 1; sample <= 3; sample++) {
            u = Decay.decayed(u, held, sample * 300L, halfLife);
            assertTrue(u.amount("cpu") > cpu && u.amount("nvidia.com/gpu") > gpu, "sample " + sample + " grew");
            if (sample == 1) assertTrue(u.amount("nvidia.com/gpu") < 1, "under a milli-unit: " + u.amount("nvidia.com/gpu"));
            cpu = u.amount("cpu");
            gpu = u.amount("nvidia.com/gpu");
        }
    }

    @Test
    void calculateDecayedConsumedKeepsLargeQuantitiesPositive() {
        for (String size : new String[] {"16Gi", "1Ti", "64Ti"}) {
            QueueUsage u = Decay.decayed(QueueUsage.none(0), Resources.of("memory", size), 300, 168 * 3600);
            assertTrue(u.amount("memory") > 0, size);
        }
    }

    @Test
    void calculateUsageWithNonPositiveWeightRanksLast() {
        Resources total = Resources.of("cpu", 8);
        assertEquals(Double.POSITIVE_INFINITY, Decay.rank(Map.of(), total, 0), "zero weight, idle queue (no usage)");
        assertEquals(Double.POSITIVE_INFINITY, Decay.rank(Map.of("cpu", 4000.0), total, 0), "zero weight, active queue");
        assertEquals(Double.POSITIVE_INFINITY, Decay.rank(Map.of("cpu", 4000.0), total, -1), "negative weight");
    }

    @Test
    void theRankIsTheDominantShareOfTheClusterOverTheWeight() {
        Resources total = Resources.of("cpu", 64, "nvidia.com/gpu", 8);
        // 16 of 64 cpus (1/4) and 4 of 8 GPUs (1/2): the GPUs dominate; weight 2 halves it.
        assertEquals(0.25, Decay.rank(Map.of("cpu", 16000.0, "nvidia.com/gpu", 4000.0), total, 2), 1e-12);
        assertEquals(1.0, Decay.rank(Map.of("example.com/fpga", 1000.0), total, 1), "a resource the cluster has none of");
    }

    @Test
    void theAnnotationReadsBackWhatWasWritten() {
        QueueUsage u = new QueueUsage(Map.of("cpu", 12500.25, "memory", 68719476736.0, "nvidia.com/gpu", 15980.0), 1_764_880_000);
        assertEquals("2025-12-04T20:26:40Z cpu=12.50025 memory=68719476736 nvidia.com/gpu=15.98", u.annotationValue());
        assertEquals(u, QueueUsage.parse(u.annotationValue()));
        assertEquals(QueueUsage.none(0), QueueUsage.parse("1970-01-01T00:00:00Z"));
    }

    @Test
    void aBadAnnotationSaysWhatIsWrongInOneLine() {
        assertEquals("must start with the time it was sampled (e.g. 2026-12-04T20:46:00Z), got \"yesterday\"",
                assertThrows(IllegalArgumentException.class, () -> QueueUsage.parse("yesterday cpu=1")).getMessage());
        assertEquals("cpu: \"lots\" is not a number",
                assertThrows(IllegalArgumentException.class, () -> QueueUsage.parse("2026-12-04T20:46:00Z cpu=lots")).getMessage());
        assertEquals("cpu: must be a finite amount of at least 0, got -1.0",
                assertThrows(IllegalArgumentException.class, () -> QueueUsage.parse("2026-12-04T20:46:00Z cpu=-1")).getMessage());
        assertEquals("\"cpu\" is not resource=amount",
                assertThrows(IllegalArgumentException.class, () -> QueueUsage.parse("2026-12-04T20:46:00Z cpu")).getMessage());
    }
}
