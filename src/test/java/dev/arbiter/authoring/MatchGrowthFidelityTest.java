package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.Shipped;
import dev.arbiter.model.ClusterSnapshot;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code validate}'s growth check builds the cycle's facts itself (the engine has no hook to lend it a listener), so
 * it must keep building them as the engine does. This compares the two on the sample clusters: the rules that fire
 * on each queue and pod must be the same, and on each PodGroup the engine's (which also credits the priority and
 * gang rules that decided for it) must include the check's. When the engine's fact vocabulary changes, this fails
 * until {@code MatchGrowth.Cluster.facts} follows.
 */
class MatchGrowthFidelityTest {
    @ParameterizedTest(name = "{0} pods on {1} nodes: the same rules fire on the same subjects as in the engine")
    @CsvSource({"32, 4", "64, 8"})
    void theCheckSeesWhatTheEngineSees(int pods, int nodes) {
        ClusterSnapshot sample = MatchGrowth.sampleCluster(pods, nodes);
        CycleResult engine = Shipped.cycle(sample);
        Map<String, Set<String>> check = MatchGrowth.countMatches(Shipped.RULES, sample).firedOn();
        Map<String, Set<String>> expected = new TreeMap<>();
        Map<String, Set<String>> actual = new TreeMap<>();
        engine.rulesFired().forEach((subject, rules) -> {
            if (!subject.startsWith("PodGroup ")) expected.put(subject, new TreeSet<>(rules));
        });
        check.forEach((subject, rules) -> {
            if (!subject.startsWith("PodGroup ")) actual.put(subject, rules);
        });
        assertEquals(expected, actual);
        check.forEach((subject, rules) -> {
            if (!subject.startsWith("PodGroup ")) return;
            assertTrue(engine.rulesFiredOn("PodGroup", subject.substring("PodGroup ".length())).containsAll(rules),
                    subject + ": check " + rules + ", engine " + engine.rulesFired().get(subject));
        });
        assertTrue(actual.keySet().stream().anyMatch(s -> s.startsWith("Pod ")) && actual.keySet().stream().anyMatch(s -> s.startsWith("Queue ")),
                "the comparison covers pods and queues: " + actual.keySet());
    }
}
