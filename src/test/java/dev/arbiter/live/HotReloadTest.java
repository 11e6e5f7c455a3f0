package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.rules.RuleBook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload in a live scheduler: a good edit of the rules folder takes effect from the next cycle; a broken edit
 * keeps the running rules, is counted and reported as an Event, and scheduling goes on.
 */
class HotReloadTest extends LiveClusterTest {
    @TempDir
    Path rules;

    @BeforeEach
    void copyRulesWithoutGang() throws IOException {
        try (Stream<Path> shipped = Files.list(Path.of("rules"))) {
            for (Path p : shipped.filter(f -> f.toString().endsWith(".drl")).toList()) {
                if (!p.getFileName().toString().equals("gang.drl")) Files.copy(p, rules.resolve(p.getFileName()));
            }
        }
    }

    @Test
    void aGoodEditTakesEffectNextCycleAndABrokenOneKeepsTheRunningRules() throws IOException {
        // Without gang.drl no rule states a gang requirement: nothing starts.
        fx.create(node("node-1", 8));
        fx.create(pod("team", "first", "arbiter", 4, null));
        LiveScheduler s = fx.manualScheduler(RuleBook.load(rules));
        s.watchRules(rules, Duration.ofMillis(100), null);
        String before = s.loop().rulesGeneration();
        assertTrue(s.loop().keepsRulesSession(), "run keeps one rules session by default");
        assertEquals(0, s.loop().runOnce().report().bound(), "no gang rule, no start");

        // A good edit: the gang rule comes back. The next cycle uses it.
        Files.copy(Path.of("rules/gang.drl"), rules.resolve("gang.drl"));
        await("new rules swapped in", () -> !s.loop().rulesGeneration().equals(before));
        SchedulingLoop.Outcome next = s.loop().runOnce();
        assertEquals(1, next.report().bound());
        assertNotEquals(before, next.result().rulesGeneration(), "decisions carry the new generation");
        assertTrue(s.loop().keepsRulesSession(), "a reload starts a new kept session on the new rules");
        String good = next.result().rulesGeneration();

        // A broken edit: reported, counted, and the running rules keep scheduling.
        Files.writeString(rules.resolve("broken.drl"), "package arbiter.policy;\nrule \"broken\"\nwhen\n  Nope( x > )\nthen\nend\n");
        await("failure counted", () -> s.metrics().rulesReloadFailures() == 1.0);
        await("RulesRejected event", () -> fx.allEvents().stream().anyMatch(e -> e.getReason().equals("RulesRejected")
                && e.getMessage().contains("broken.drl:4")));
        fx.create(pod("team", "second", "arbiter", 4, null));
        await("second pod in cache", () -> s.cache().holdsPod("team/second"));
        SchedulingLoop.Outcome after = s.loop().runOnce();
        assertEquals(1, after.report().bound(), "scheduling continues");
        assertEquals(good, after.result().rulesGeneration(), "the running rules stay");
        assertTrue(s.isReady(), "readiness is unaffected");
        fx.quiesce(s);
        s.close();
        assertFalse(s.isReady(), "a closed scheduler is not ready, though its caches had synced");
    }

    @Test
    void withFreshRulesSessionsEveryCycleOpensItsOwn() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "first", "arbiter", 4, null));
        LiveScheduler s = fx.manualScheduler(LiveFixture.RULES, LiveFixture.config("fresh").withKeptRulesSession(false));
        assertFalse(s.loop().keepsRulesSession());
        assertEquals(1, s.loop().runOnce().report().bound(), "a fresh session decides as the kept one would");
    }
}
