package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The live scheduler's configuration, without the rule trace: the same decisions, only no per-subject trace. */
class UntracedSchedulerTest {
    @Test
    void withoutTheTraceTheDecisionsAreTheSameAndNoRulesAreListedPerSubject() {
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(12, 150, 3, 11, 0.8));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        Scheduler traced = new Scheduler(Shipped.RULES, SchedulerConfig.simulatorDefault());
        Scheduler untraced = traced.withoutTrace();
        Scheduler untracedKept = traced.keepingSession().withoutTrace();
        Random rnd = new Random(11);
        for (int cycle = 1; cycle <= 6; cycle++) {
            ClusterSnapshot snap = world.snapshot();
            CycleResult expected = traced.schedule(snap, cycle);
            CycleResult actual = untraced.schedule(snap, cycle);
            KeptSessionTest.assertSameDecisions(expected, actual, "cycle " + cycle);
            KeptSessionTest.assertSameDecisions(expected, untracedKept.schedule(snap, cycle), "kept, cycle " + cycle);
            assertFalse(expected.rulesFired().isEmpty(), "the traced scheduler lists the rules per subject");
            assertTrue(actual.rulesFired().isEmpty(), "the untraced one does not: " + actual.rulesFired().keySet());
            world.apply(expected);
            world.churn(0.1, rnd, generator);
        }
        untracedKept.dropSession();
        assertTrue(untraced.withRules(Shipped.RULES).schedule(world.snapshot(), 7).rulesFired().isEmpty(),
                "a reload keeps the scheduler untraced");
    }
}
