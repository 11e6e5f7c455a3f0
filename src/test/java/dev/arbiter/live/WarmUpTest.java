package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The warm-up ({@link WarmUp}) runs the engine beside the real scheduler: it must leave no trace in what the real
 * scheduler decides, record nothing, write nothing, and stop when told.
 */
class WarmUpTest extends LiveClusterTest {
    private static final SchedulerConfig CONFIG = new SchedulerConfig(java.util.Set.copyOf(SchedulerConfig.DEFAULT_NAMES), null);
    /** A small plan, for tests: the cluster the warm-up schedules is not what is tested here. */
    private static final WarmUp.Plan SMALL = new WarmUp.Plan(SynthSpec.fleet(20, 100, 3, 3)
            .withConstraints(SynthSpec.Constraints.MIX), 1000, Duration.ofMinutes(2));

    @Test
    void aRealSchedulerDecidesTheSameWhileAWarmUpRunsBesideIt() throws InterruptedException {
        List<String> alone = story();
        AtomicBoolean realDone = new AtomicBoolean();
        WarmUp w = WarmUp.start(LiveFixture.RULES, CONFIG, true, SMALL, realDone::get);
        List<String> beside;
        try {
            LiveFixture.await("a warm-up cycle", () -> w.cycles() >= 1);
            int before = w.cycles();
            beside = story();
            realDone.set(true);
            assertTrue(w.awaitEnd(LiveFixture.WAIT), "the warm-up stops once told it is done");
            assertTrue(w.cycles() > before || before >= 1, "the warm-up ran while the real cycles did");
        } finally {
            w.stop();
        }
        assertEquals(alone, beside);
    }

    @Test
    void stopsBeforeItsFirstCycleWhenTheRealSchedulerIsAlreadyDone() throws InterruptedException {
        WarmUp w = WarmUp.start(LiveFixture.RULES, CONFIG, false, SMALL, () -> true);
        assertTrue(w.awaitEnd(LiveFixture.WAIT));
        assertEquals(0, w.cycles());
    }

    @Test
    void stopsAtItsPlanAndWhenAsked() throws InterruptedException {
        WarmUp two = WarmUp.start(LiveFixture.RULES, CONFIG, false, new WarmUp.Plan(SMALL.cluster(), 2, Duration.ofMinutes(2)), () -> false);
        assertTrue(two.awaitEnd(LiveFixture.WAIT));
        assertEquals(2, two.cycles());

        // Asked to stop while it decides whether to start its first cycle (its second look at `done` waits for the
        // request): that cycle runs, and no other. (Stopping right after start, without that wait, raced with the
        // warm-up's own thread on a busy machine: two small cycles could finish before the request was made.)
        java.util.concurrent.CountDownLatch requested = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();
        WarmUp asked = WarmUp.start(LiveFixture.RULES, CONFIG, false, SMALL, () -> {
            if (looks.getAndIncrement() == 1) {
                try {
                    requested.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return false;
        });
        LiveFixture.await("the warm-up's look before its first cycle", () -> looks.get() >= 2);
        asked.stop();
        requested.countDown();
        assertTrue(asked.awaitEnd(LiveFixture.WAIT));
        assertEquals(1, asked.cycles(), "the cycle under way when asked finishes, and no other");
    }

    @Test
    void aLiveSchedulerWarmsUpWhileItsInformersListAndRecordsNothingOfIt() throws InterruptedException {
        fx.create(ClusterGenerator.generate(SynthSpec.fleet(20, 60, 2, 9)));
        LiveScheduler off = fx.manualScheduler(LiveFixture.RULES, LiveFixture.config("cold").withWarmUp(false));
        assertNull(off.warmUp(), "--no-warm-up starts none");

        LiveScheduler warm = fx.manualScheduler(LiveFixture.RULES, LiveFixture.config("warm").withWarmUp(true));
        WarmUp w = warm.warmUp();
        assertNotNull(w, "--warm-up starts one");
        assertTrue(w.awaitEnd(LiveFixture.WAIT), "the warm-up ends once the informers have listed");
        List<String> meters = meters(warm.metrics().registry());
        assertEquals(meters(off.metrics().registry()), meters, "the warm-up recorded nothing");
        assertEquals(0, fx.allEvents().size(), "nor wrote an event");

        // And the first real cycle decides what the engine alone decides on the same cluster.
        CycleResult alone = new Scheduler(LiveFixture.RULES, CONFIG).withoutTrace()
                .schedule(warm.cache().snapshot(Instant.now().getEpochSecond(), Map.of()), 1);
        SchedulingLoop.Outcome first = warm.loop().runOnce();
        assertTrue(first.result().bindings().size() > 0, "the cluster has pending pods that fit");
        assertEquals(alone.bindings(), first.result().bindings());
        assertEquals(alone.evictions(), first.result().evictions());
    }

    /** Three cycles of a small cluster, each applied before the next, as a keeping live scheduler runs them. */
    private static List<String> story() {
        ClusterWorld world = new ClusterWorld(ClusterGenerator.generate(SynthSpec.small(20, 120, 3, 5, 0.6))).recreatingEvicted();
        Scheduler real = new Scheduler(LiveFixture.RULES, CONFIG).withoutTrace().keepingSession();
        List<String> out = new ArrayList<>();
        for (int cycle = 1; cycle <= 3; cycle++) {
            CycleResult r = real.schedule(world.snapshot(), cycle);
            out.add(decisions(r));
            world.apply(r);
        }
        real.dropSession();
        return out;
    }

    /** Everything a cycle decides, without its timings. */
    private static String decisions(CycleResult r) {
        return r.bindings() + "\n" + r.evictions() + "\n" + r.podGroups() + "\n" + r.queues() + "\n" + r.nominations()
                + "\n" + r.wakeAt();
    }

    /** Each meter's name, tags and measurements (values of gauges and counters; timers' counts). */
    private static List<String> meters(MeterRegistry registry) {
        List<String> out = new ArrayList<>();
        for (Meter m : registry.getMeters()) {
            StringBuilder b = new StringBuilder(m.getId().getName()).append(m.getId().getTags().stream()
                    .filter(t -> !t.getKey().equals("identity")).toList());
            m.measure().forEach(ms -> b.append(' ').append(ms.getStatistic()).append('=')
                    .append(ms.getStatistic().name().contains("TIME") || ms.getStatistic().name().equals("MAX") ? "t" : ms.getValue()));
            out.add(b.toString());
        }
        out.sort(null);
        return out;
    }
}
