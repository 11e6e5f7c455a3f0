package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.decision.Eviction;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code Protected} fact states when it ends ({@code until}), and the engine wakes for that, not for the minimum
 * runtime of the settings: under a pack whose churn rule protects running pods for 5 minutes while the shipped
 * setting still says 60 s, a waiting reclaimer's cycle wakes at start + 300 s, nothing is decided differently before
 * then (an answering scheduler serves no stale answer across it), and the victims are evictable from then on.
 */
class ProtectionExpiryTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final long START = 1000;
    private static final long FIVE_MINUTES = 300;
    private static final String FIVE_MINUTE_RULE = """
            package arbiter.policy;

            import dev.arbiter.facts.Clock;
            import dev.arbiter.facts.Protected;
            import dev.arbiter.facts.TaskFact;
            import dev.arbiter.policy.ProtectionScope;

            rule "churn: a pod that has run less than five minutes is not reclaimed"
            ruleflow-group "policy"
            when
                Clock( $now : now )
                $t : TaskFact( startKnown, startedAt > $now - 300 )
            then
                insertLogical( new Protected( $t.getId(), "has run less than five minutes", ProtectionScope.RECLAIM,
                        $t.getStartedAt() + 300, drools.getRule().getName() ) );
            end
            """;

    @TempDir
    static Path dir;
    private static RuleBook fiveMinutes;

    /** A pack over the shipped policy whose churn.drl protects for 5 minutes, whatever churn.minRuntime says. */
    @BeforeAll
    static void pack() throws IOException {
        Path p = Files.createDirectories(dir.resolve("five-minutes"));
        Files.writeString(p.resolve(RuleBook.PACK_FILE), "extends: shipped\n");
        Files.writeString(p.resolve("churn.drl"), FIVE_MINUTE_RULE);
        fiveMinutes = RuleBook.load(p);
        assertEquals(60, fiveMinutes.settings().churn().minRuntimeSeconds(), "the setting says 60 s");
    }

    /** b's two pods fill both nodes, started at {@link #START}; a wants one node (half the cluster is a's due). */
    private static ClusterBuilder cluster() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/one").queue("b").pods(1, GPU, 8).running("node-1").startedAt(START).end()
                .job("b/two").queue("b").pods(1, GPU, 8).running("node-2").startedAt(START).end()
                .job("a/new").queue("a").pods(1, GPU, 8).end();
    }

    private static ClusterSnapshot at(long now) {
        return cluster().snapshot(now);
    }

    private static Scheduler scheduler(RuleBook rules) {
        return new Scheduler(rules, SchedulerConfig.simulatorDefault());
    }

    @Test
    void theShippedPolicyWakesWhenItsMinimumRuntimeEnds() {
        CycleResult r = scheduler(Shipped.RULES).schedule(at(START + 10), 1);
        assertEquals(Set.of(), evicted(r));
        assertEquals(START + 60, r.wakeAt());
    }

    @Test
    void aPackThatProtectsForFiveMinutesWakesAtFiveMinutesNotAtTheSetting() {
        Scheduler s = scheduler(fiveMinutes);
        for (long now : new long[] {START + 10, START + 59, START + 60, START + 70, START + 299}) {
            CycleResult r = s.schedule(at(now), 1);
            assertEquals(Set.of(), evicted(r), "at start+" + (now - START) + ": b's pods are protected");
            assertEquals(START + FIVE_MINUTES, r.wakeAt(), "at start+" + (now - START));
        }
        CycleResult later = s.schedule(at(START + 70), 1);
        assertEquals(230, Shipped.part(Shipped.why(later, "a/new"), Refusal.AllProtected.class).firstEndsIn());
        String reason = Shipped.group(later.podGroups(), "a/new").reason();
        assertTrue(reason.endsWith("; the first minimum runtime ends in 230s"), reason);
    }

    @Test
    void theVictimsAreEvictableFromTheMomentTheProtectionEnds() {
        Scheduler s = scheduler(fiveMinutes);
        CycleResult r = s.schedule(at(START + FIVE_MINUTES), 1);
        assertEquals(1, r.evictions().size(), r.evictions().toString());
        assertTrue(r.evictions().get(0).pod().startsWith("b/"), r.evictions().toString());
        assertEquals("a/new", r.evictions().get(0).forPodGroup());
    }

    @Test
    void anAnsweringSchedulerServesNoStaleAnswerAcrossTheEndOfTheProtection() {
        Scheduler s = scheduler(fiveMinutes).withoutTrace().answeringUnchanged();
        int cycle = 1;
        for (long now : new long[] {START + 10, START + 70, START + 280, START + 290, START + 299}) {
            CycleResult r = s.schedule(at(now), cycle++);
            assertEquals(Set.of(), evicted(r), "at start+" + (now - START));
            assertTrue(r.bindings().isEmpty(), "at start+" + (now - START));
            assertFalse(r.phaseMillis().containsKey("unchanged"),
                    "at start+" + (now - START) + ": a protection ends at start+300, so the cycle decides");
        }
        CycleResult after = s.schedule(at(START + FIVE_MINUTES + 1), cycle);
        assertFalse(after.phaseMillis().containsKey("unchanged"), "1 s after the protection ended: decided, not answered");
        assertEquals(1, after.evictions().size(), "a/new reclaims one of b's pods: " + after.evictions());
    }

    @Test
    void aSimulationFollowsThePacksWakeUpToTheReclaim() {
        // Simulated cycles of 10 s; b's pods started at 0, so the protection ends in cycle 30 (second 300).
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/one").queue("b").pods(1, GPU, 8).running("node-1").startedAt(0).end()
                .job("b/two").queue("b").pods(1, GPU, 8).running("node-2").startedAt(0).end()
                .job("a/new").queue("a").pods(1, GPU, 8).end();
        SimulationResult r = new Simulator(scheduler(fiveMinutes)).run(c.manifests(), 100, 10);
        List<CycleResult> evicting = r.cycles().stream().filter(cr -> !cr.evictions().isEmpty()).toList();
        assertEquals(1, evicting.size(), "one reclaim");
        assertEquals(30, evicting.get(0).cycle(), "at second 300, not before and not never");
        List<Eviction> evictions = evicting.get(0).evictions();
        assertEquals("a/new", evictions.get(0).forPodGroup());
        assertEquals("Running", r.pods().stream().filter(o -> o.pod().equals("a/new-0")).findFirst().orElseThrow().phase());
    }
}
