package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.rules.RuleBook;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failing rule cycle never stalls scheduling behind healthy probes (defect 2 of issue 14): the loop survives any
 * Throwable, falls back to the last rules that worked after a few failed cycles, and a cycle that never finishes
 * turns /healthz unhealthy so that Kubernetes restarts the scheduler.
 */
class CycleFailureTest extends LiveClusterTest {
    private static final String THROWS = """
            package arbiter.policy;

            rule "boom: this rule fails every cycle"
            ruleflow-group "policy"
            when
            then
                throw new IllegalStateException("boom");
            end
            """;
    /** Fails on this cluster only (its pod "before"), so the reload check, on the reference cluster, lets it in. */
    private static final String THROWS_HERE = """
            package arbiter.policy;

            import dev.arbiter.facts.JobFact;

            rule "boom: this rule fails every cycle on this cluster"
            ruleflow-group "policy"
            when
                JobFact( id == "team/podgroup-before" )
            then
                throw new IllegalStateException("boom");
            end
            """;
    private static final String OVERFLOWS = """
            package arbiter.policy;

            function int deeper(int n) { return deeper(n + 1) + 1; }

            rule "overflow: this rule's condition recurses until the stack overflows"
            ruleflow-group "policy"
            when
                eval( deeper(0) > 0 )
            then
            end
            """;
    private static final String BLOCKS = """
            package arbiter.policy;

            rule "gate: this rule does not finish until the test says so"
            ruleflow-group "policy"
            when
            then
                dev.arbiter.live.Gate.pass();
            end
            """;

    @TempDir
    Path rules;

    @BeforeEach
    void copyShippedRules() throws IOException {
        try (Stream<Path> shipped = Files.list(Path.of("rules"))) {
            for (Path p : shipped.filter(f -> f.toString().endsWith(".drl")).toList()) Files.copy(p, rules.resolve(p.getFileName()));
        }
    }

    @AfterEach
    void openTheGate() {
        Gate.open();
    }

    private LiveScheduler running(LiveConfig config) {
        // The gate rule calls this test's Gate, which no policy may call unless the site trusts it.
        System.setProperty("arbiter.rules.trustedClasses", Gate.class.getName());
        RuleBook book;
        try {
            book = RuleBook.load(rules);
        } finally {
            System.clearProperty("arbiter.rules.trustedClasses");
        }
        LiveScheduler s = fx.adopt(new LiveScheduler(server.createClient(), book, config, new SimpleMeterRegistry()));
        s.start();
        await("synced", s::isReady);
        return s;
    }

    @Test
    void aRuleThatThrowsEveryCycleIsReplacedByTheLastGoodRules() throws IOException {
        fx.create(node("node-1", 8));
        LiveScheduler s = running(LiveFixture.config("fallback").withPeriod(Duration.ofMillis(100)));
        s.watchRules(rules, Duration.ofMillis(50), null);
        String good = s.loop().rulesGeneration();
        fx.create(pod("team", "before", "arbiter", 1, null));
        await("bound with the good rules", () -> fx.nodeOf("team/before") != null);

        // A rule that throws everywhere is refused by the reload check: the running rules stay.
        Files.writeString(rules.resolve("boom.drl"), THROWS);
        await("the throwing rules are refused", () -> s.metrics().rulesReloadFailures() == 1.0);
        assertEquals(good, s.loop().rulesGeneration());

        // One that throws only on this cluster passes the check, and fails every cycle here.
        Files.writeString(rules.resolve("boom.drl"), THROWS_HERE);
        await("the broken rules are swapped in", () -> !s.loop().rulesGeneration().equals(good));
        fx.create(pod("team", "after", "arbiter", 1, null));

        await("bound again, by the last good rules", () -> fx.nodeOf("team/after") != null, Duration.ofSeconds(20));
        assertEquals(good, s.loop().rulesGeneration(), "the loop fell back to the rules that worked");
        assertTrue(s.loop().isRunning());
        assertEquals(1.0, s.metrics().rulesFallbacks()); // NEW-API
        await("RulesFallback event", () -> fx.allEvents().stream().anyMatch(e -> "RulesFallback".equals(e.getReason())
                && e.getMessage().contains(good)));
    }

    @Test
    void aStackOverflowInARuleDoesNotEndTheLoop() throws IOException {
        Files.writeString(rules.resolve("overflow.drl"), OVERFLOWS);
        fx.create(node("node-1", 8));
        fx.create(pod("team", "p", "arbiter", 1, null));
        LiveScheduler s = running(LiveFixture.config("overflow").withPeriod(Duration.ofMillis(100)));
        s.watchRules(rules, Duration.ofMillis(50), null);
        await("cycles fail", () -> s.metrics().cycleFailures() >= 2); // NEW-API
        double failed = s.metrics().cycleFailures(); // NEW-API
        await("and the timer keeps starting cycles", () -> s.metrics().cycleFailures() >= failed + 5); // NEW-API

        Files.delete(rules.resolve("overflow.drl"));

        await("the loop is still alive and binds with the repaired rules", () -> fx.nodeOf("team/p") != null,
                Duration.ofSeconds(20));
        assertTrue(s.isHealthy());
    }

    @Test
    void aCycleThatNeverFinishesTurnsHealthzUnhealthy() throws Exception {
        Files.writeString(rules.resolve("gate.drl"), BLOCKS);
        fx.create(node("node-1", 8));
        Gate.close();
        LiveScheduler s = running(LiveFixture.config("wedged").withPeriod(Duration.ofMillis(100))
                .withCycleDeadline(Duration.ofMillis(500)));
        assertTrue(Gate.awaitEntered(10), "a cycle is stuck in the rule");

        await("unhealthy once no cycle finished within the deadline", () -> !s.isHealthy());
        assertTrue(s.isReady(), "still ready: the informers are fine");

        Gate.open();
        await("healthy again once cycles finish", s::isHealthy);
        assertFalse(!s.loop().isRunning());
    }
}
