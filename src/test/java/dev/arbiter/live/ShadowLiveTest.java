package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --shadow-rules} on the mock API server: the candidate decides on each cycle's snapshot, what it decides
 * differently is counted and served, and nothing it decides is written; a candidate that throws or loops leaves the
 * active cycle's bindings as they are without a shadow.
 */
@EnableKubernetesMockClient(crud = true)
class ShadowLiveTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    /** What the active (shipped) policy binds on the scenario, decided without any shadow. */
    static Map<String, String> withoutShadow() {
        return placed(new Scheduler(LiveFixture.RULES, SchedulerConfig.simulatorDefault())
                .schedule(ShadowDifferencesTest.twoQueues().queue("shadow-trigger").end().snapshot(), 1));
    }

    static Map<String, String> placed(CycleResult r) {
        Map<String, String> out = new TreeMap<>();
        for (Binding b : r.bindings()) out.put(b.pod(), b.node());
        return out;
    }

    @Test
    void theCapacityPackAsShadowIsCountedAndServedAndNothingItDecidesIsActedOn() {
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(ShadowDifferencesTest.twoQueues().queue("shadow-trigger").end().manifests());
            LiveScheduler s = fx.manualScheduler();
            ShadowPolicy shadow = s.shadow("deploy/policies/capacity", ShadowDifferencesTest.CAPACITY);

            SchedulingLoop.Outcome o = s.loop().runOnce();
            o.report();
            await("the shadow has decided", () -> s.metrics().shadowCycles("ok") == 1);

            assertEquals(withoutShadow(), placed(o.result()));
            assertEquals(8, o.result().bindings().size());
            await("the active policy's bindings are written", () -> "node-1".equals(fx.nodeOf("tb/w-3")));
            assertNull(fx.nodeOf("ta/w-4"), "the shadow binds ta/w-4; nothing writes it");
            assertNull(fx.nodeOf("ta/w-5"));
            assertEquals(1, fx.bindCalls("tb/w-3"));
            assertEquals(0, fx.bindCalls("ta/w-4"));

            assertEquals(4, s.metrics().shadowDifferenceCount("binding"));
            assertEquals(2, s.metrics().shadowDifferenceCount("share"));
            assertEquals(0, s.metrics().shadowDifferenceCount("eviction"));
            String json = shadow.json();
            assertTrue(json.contains("\"differences\": {\"binding\": 4, \"eviction\": 0, \"podgroup_phase\": 0, \"share\": 2}"), json);
            assertTrue(json.contains("{\"kind\": \"binding\", \"subject\": \"ta/w-4\", \"active\": \"pending\", \"shadow\": \"node-1\""), json);
            assertTrue(json.contains("\"shadow: " + ShadowDifferencesTest.GANG + "\": 2"), json);
            assertTrue(json.contains("{\"kind\": \"share\", \"subject\": \"a\", \"active\": \"{cpu: 4}\", \"shadow\": \"{cpu: 6}\""), json);
        }
    }

    @Test
    void aShadowWhoseRuleThrowsLeavesTheActiveCycleAsItIsWithoutShadow() throws IOException {
        RuleBook throwing = pack("throws", "throw new IllegalStateException(\"boom\");");
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(ShadowDifferencesTest.twoQueues().queue("shadow-trigger").end().manifests());
            LiveScheduler s = fx.manualScheduler();
            ShadowPolicy shadow = s.shadow("throws", throwing);

            SchedulingLoop.Outcome o = s.loop().runOnce();
            await("the shadow has failed", () -> s.metrics().shadowCycles("failed") == 1);
            assertEquals(withoutShadow(), placed(o.result()));
            assertEquals(8, o.report().bound(), "every binding of the active cycle is written");
            assertEquals(0, s.metrics().cycleFailures(), "the active cycle did not fail");
            assertTrue(s.isHealthy());
            String json = shadow.json();
            assertTrue(json.contains("\"result\": \"failed\""), json);
            assertTrue(json.contains("rule \\\"shadow throws\\\" failed"), json);
        }
    }

    @Test
    void aShadowWhoseRuleLoopsIsSkippedWhileItRunsAndLeavesTheActiveCyclesAsTheyAreWithoutShadow() throws IOException {
        RuleBook looping = pack("loops", "while (true) { }");
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(ShadowDifferencesTest.twoQueues().queue("shadow-trigger").end().manifests());
            LiveScheduler s = fx.manualScheduler();
            ShadowPolicy shadow = s.shadow("loops", looping);

            SchedulingLoop.Outcome first = s.loop().runOnce();
            await("the shadow runs", shadow::running);
            assertEquals(withoutShadow(), placed(first.result()));
            assertEquals(8, first.report().bound());
            // The next cycle, while the shadow still loops: skipped, and the active cycle runs as ever.
            SchedulingLoop.Outcome second = s.loop().runOnce();
            assertEquals(2, second.cycle());
            assertEquals(1, s.metrics().shadowCycles("skipped"));
            assertEquals(0, s.metrics().cycleFailures());
            // The shadow's own limits (deadline 1 s) stop it; where the JVM cannot stop it, it is stuck for itself.
            await("the looping rule is stopped, or said stuck", () -> s.metrics().shadowCycles("failed") == 1 || shadow.stuck() != null,
                    Duration.ofSeconds(20));
            assertTrue(s.isHealthy(), "the active policy's health is not the shadow's business");
            if (shadow.stuck() == null) {
                assertTrue(shadow.json().contains("did not return within the deadline of 1000 ms"), shadow.json());
            }
        }
    }

    /** A pack over the shipped rules whose one rule runs {@code consequence} when a queue named shadow-trigger exists. */
    private RuleBook pack(String name, String consequence) throws IOException {
        Path pack = Files.createDirectories(dir.resolve(name));
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("policy.yaml"), "limits:\n  deadline: 1s\n");
        Files.writeString(pack.resolve(name + ".drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.QueueFact;
                rule "shadow %s"
                ruleflow-group "policy"
                when
                    QueueFact( name == "shadow-trigger" )
                then
                    %s
                end
                """.formatted(name, consequence));
        return RuleBook.load(pack);
    }
}
