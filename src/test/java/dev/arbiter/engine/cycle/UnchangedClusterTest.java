package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A scheduler answering unchanged clusters ({@link Scheduler#answeringUnchanged}, the live one) repeats its last
 * answer only where deciding again would give the same: over generated clusters where cycles alternate between
 * changes and quiet spells of a few seconds, every one of its results equals a fresh scheduler's on the same snapshot.
 */
class UnchangedClusterTest {
    private static final SchedulerConfig CONFIG = SchedulerConfig.simulatorDefault();

    @Test
    void everyAnswerIsWhatDecidingAgainWouldGive() {
        int answered = 0;
        int cycles = 0;
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(4 + rnd.nextInt(12), rnd.nextInt(120), 1 + rnd.nextInt(4),
                    seed, rnd.nextInt(90) / 100.0));
            ClusterWorld world = new ClusterWorld(generator.manifests()).withNominations();
            Scheduler fresh = new Scheduler(Shipped.RULES, CONFIG);
            Scheduler answering = fresh.withoutTrace().keepingSession().answeringUnchanged();
            ClusterSnapshot snap = world.snapshot();
            for (int cycle = 1; cycle <= 16; cycle++) {
                CycleResult expected = fresh.schedule(snap, cycle);
                CycleResult actual = answering.schedule(snap, cycle);
                KeptSessionTest.assertSameDecisions(expected, actual, "seed " + seed + ", cycle " + cycle);
                cycles++;
                if (actual.phaseMillis().containsKey("unchanged")) answered++;
                if (rnd.nextInt(3) == 0) {
                    // A quiet spell: the same cluster a few seconds later.
                    snap = at(snap, snap.now() + 1 + rnd.nextInt(20));
                } else {
                    world.apply(expected);
                    if (rnd.nextBoolean()) world.churn(0.1, rnd, generator);
                    snap = world.snapshot();
                }
            }
            answering.dropSession();
        }
        assertTrue(answered > 20, answered + " of " + cycles + " cycles answered without deciding");
    }

    @Test
    void aQuietClusterIsAnsweredUntilItChangesOrHalfAMinutePasses() {
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(6, 40, 2, 3, 0.3));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        Scheduler answering = new Scheduler(Shipped.RULES, CONFIG).withoutTrace().answeringUnchanged();
        CycleResult r = null;
        for (int cycle = 1; cycle <= 10 && (r == null || !quiet(r)); cycle++) {
            r = answering.schedule(world.snapshot(), cycle);
            world.apply(r);
        }
        assertTrue(quiet(r), "the cluster settles: " + r.bindings() + " " + r.evictions());
        ClusterSnapshot settled = world.snapshot();
        long t = settled.now() + Scheduler.UNCHANGED_AT_MOST_SECONDS + 1;
        CycleResult decided = answering.schedule(at(settled, t), 20);
        assertFalse(decided.phaseMillis().containsKey("unchanged"), "half a minute after the last decision, it decides");
        CycleResult again = answering.schedule(at(settled, t + 5), 21);
        assertTrue(again.phaseMillis().containsKey("unchanged"), "5 s later, nothing changed: " + again.phaseMillis());
        assertEquals(decided.podGroups(), again.podGroups());
        assertEquals(decided.queues(), again.queues());
        assertEquals(21, again.cycle());
        assertFalse(answering.schedule(at(settled, t + Scheduler.UNCHANGED_AT_MOST_SECONDS + 1), 22)
                .phaseMillis().containsKey("unchanged"), "past the bound, it decides again");
        world.churn(0.2, new Random(3), generator);
        ClusterSnapshot changed = at(world.snapshot(), t + Scheduler.UNCHANGED_AT_MOST_SECONDS + 2);
        assertFalse(answering.schedule(changed, 23).phaseMillis().containsKey("unchanged"), "a change decides");
        assertFalse(answering.withRules(Shipped.RULES).schedule(at(changed, changed.now() + 1), 24).phaseMillis()
                .containsKey("unchanged"), "new rules decide");
    }

    private static boolean quiet(CycleResult r) {
        return r.bindings().isEmpty() && r.evictions().isEmpty() && r.wakeAt() < 0;
    }

    private static ClusterSnapshot at(ClusterSnapshot s, long now) {
        return new ClusterSnapshot(s.nodes(), s.pods(), s.podGroups(), s.queues(), s.priorityClasses(), now, s.nominations(),
                s.namespaceLabels(), s.hyperNodes());
    }
}
