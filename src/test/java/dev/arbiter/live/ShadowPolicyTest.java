package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.scenario.ClusterBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@link ShadowPolicy} keeps for {@code /shadow}: running totals, repeated cycles folded, long lists cut. */
class ShadowPolicyTest {
    private static ShadowPolicy shadow(Metrics metrics) {
        return new ShadowPolicy("capacity", ShadowDifferencesTest.CAPACITY, SchedulerConfig.simulatorDefault(), false, metrics,
                Duration.ofHours(1));
    }

    @Test
    void cyclesWithTheSameDifferencesAreOneEntryAndEveryOneIsCounted() {
        ClusterSnapshot s = ShadowDifferencesTest.twoQueues().snapshot();
        CycleResult active = new Scheduler(LiveFixture.RULES, SchedulerConfig.simulatorDefault()).schedule(s, 1);
        Metrics metrics = new Metrics(new SimpleMeterRegistry());
        try (ShadowPolicy shadow = shadow(metrics)) {
            shadow.evaluateNow(1, s, active);
            ShadowPolicy.Evaluation second = shadow.evaluateNow(2, s, active);
            assertEquals(6, second.total());
            String json = shadow.json();
            assertTrue(json.contains("\"cycles\": {\"ok\": 2, \"failed\": 0, \"skipped\": 0, \"overrun\": 0}"), json);
            assertTrue(json.contains("\"differences\": {\"binding\": 8, \"eviction\": 0, \"podgroup_phase\": 0, \"share\": 4}"), json);
            assertTrue(json.contains("\"cycles\": [{\"cycle\": 2, \"firstCycle\": 1, \"repeats\": 2,"), json);
            assertEquals(8, metrics.shadowDifferenceCount("binding"));
            assertEquals(2, metrics.shadowCycles("ok"));
        }
    }

    @Test
    void aCycleListsAtMostFiftyDifferencesAndCountsThemAll() {
        ClusterSnapshot s = ClusterBuilder.cluster().nodes(4, "cpu", 50)
                .queue("a").weight(1).deserved("cpu", 150).end().queue("b").weight(1).deserved("cpu", 50).end()
                .job("ta/w").queue("a").pods(150, "cpu", 1).minMember(1).end()
                .job("tb/w").queue("b").pods(150, "cpu", 1).minMember(1).end().snapshot();
        CycleResult active = new Scheduler(LiveFixture.RULES, SchedulerConfig.simulatorDefault()).schedule(s, 1);
        try (ShadowPolicy shadow = shadow(new Metrics(new SimpleMeterRegistry()))) {
            ShadowPolicy.Evaluation e = shadow.evaluateNow(1, s, active);
            // At most 110 pods a node: a's and b's 150 pods each are bound on several nodes, 100 and 100 by the
            // active policy, 150 and 50 by the candidate.
            assertTrue(e.counts().get(ShadowDifferences.Kind.BINDING) >= 100, e.counts().toString());
            assertEquals(e.total(), e.counts().values().stream().mapToInt(Integer::intValue).sum());
            assertEquals(ShadowPolicy.LISTED_PER_CYCLE, e.differences().differences().size());
            assertTrue(shadow.json().contains("\"unlisted\": " + (e.total() - ShadowPolicy.LISTED_PER_CYCLE) + "}"), shadow.json());
        }
    }
}
