package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.live.ShadowDifferences.Difference;
import dev.arbiter.live.ShadowDifferences.Kind;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The comparison behind {@code run --shadow-rules}: what two policies decided differently on one snapshot. */
class ShadowDifferencesTest {
    static final RuleBook CAPACITY = RuleBook.load(Path.of("deploy/policies/capacity"));
    static final String GANG = "gang: a job starts only when minMember of its tasks can run together";

    /**
     * Two queues of equal weight that say they deserve 6 and 2 of 8 CPUs: the shipped policy (proportion) gives each
     * 4, the capacity pack what they say, so two of b's pods the active policy binds are pending under the candidate
     * and two of a's are bound instead.
     */
    static ClusterBuilder twoQueues() {
        return ClusterBuilder.cluster().nodes(1, "cpu", 8)
                .queue("a").weight(1).deserved("cpu", 6).end().queue("b").weight(1).deserved("cpu", 2).end()
                .job("ta/w").queue("a").pods(6, "cpu", 1).minMember(1).end()
                .job("tb/w").queue("b").pods(6, "cpu", 1).minMember(1).end();
    }

    @Test
    void theCapacityPackBindsOtherPodsAndGivesOtherSharesThanTheShippedPolicy() {
        ClusterSnapshot s = twoQueues().snapshot();
        CycleResult active = new Scheduler(LiveFixture.RULES, SchedulerConfig.simulatorDefault()).schedule(s, 1);
        CycleResult shadow = new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(s, 1);
        ShadowDifferences d = ShadowDifferences.compare(active, shadow, s);
        assertEquals(List.of(
                new Difference(Kind.BINDING, "ta/w-4", "pending", "node-1", null, GANG),
                new Difference(Kind.BINDING, "ta/w-5", "pending", "node-1", null, GANG),
                new Difference(Kind.BINDING, "tb/w-2", "node-1", "pending", GANG, null),
                new Difference(Kind.BINDING, "tb/w-3", "node-1", "pending", GANG, null),
                new Difference(Kind.SHARE, "a", "{cpu: 4}", "{cpu: 6}", null, null),
                new Difference(Kind.SHARE, "b", "{cpu: 4}", "{cpu: 2}", null, null)), d.differences());
        assertEquals(Map.of(Kind.BINDING, 4, Kind.SHARE, 2), d.counts());
        assertEquals(Map.of("active: " + GANG, 2, "shadow: " + GANG, 2), d.rules());
    }

    @Test
    void aPolicyComparedWithItselfDiffersInNothing() {
        ClusterSnapshot s = twoQueues().snapshot();
        CycleResult once = new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(s, 1);
        CycleResult again = new Scheduler(CAPACITY, SchedulerConfig.simulatorDefault()).schedule(s, 1);
        assertTrue(ShadowDifferences.compare(once, again, s).isEmpty());
    }

    @Test
    void eachKindOfDecisionIsComparedAndNamesTheRulesOfBothSides() {
        CycleResult active = result(
                List.of(new Binding("ns/p1", "node-1", "start A"), new Binding("ns/p2", "node-1", "start A"),
                        new Binding("ns/same", "node-3", "start A")),
                List.of(new Eviction("ns/v1", "node-1", "reclaim", "ns/g", "reclaim A", "r"),
                        new Eviction("ns/v2", "node-1", "preempt", "ns/g", "preempt A", "r"),
                        new Eviction("ns/kept", "node-2", "reclaim", "ns/g", "reclaim A", "r")),
                List.of(status("ns/g", "Inqueue", "wait A"), status("ns/h", "Running", null)),
                List.of(queue("q", 4)));
        CycleResult shadow = result(
                List.of(new Binding("ns/p1", "node-2", "start B"), new Binding("ns/same", "node-3", "start B")),
                List.of(new Eviction("ns/v1", "node-1", "preempt", "ns/g", "preempt B", "r"),
                        new Eviction("ns/kept", "node-2", "reclaim", "ns/g", "reclaim B", "r"),
                        new Eviction("ns/v3", "node-2", "reclaim", "ns/h", "reclaim B", "r")),
                List.of(status("ns/g", "Running", null), status("ns/h", "Running", null)),
                List.of(queue("q", 4)));
        ShadowDifferences d = ShadowDifferences.compare(active, shadow, pod -> pod.equals("ns/p2") ? "ns/g" : null);
        assertEquals(List.of(
                new Difference(Kind.BINDING, "ns/p1", "node-1", "node-2", "start A", "start B"),
                new Difference(Kind.BINDING, "ns/p2", "node-1", "pending", "start A", null),
                new Difference(Kind.EVICTION, "ns/v1", "evicted (reclaim for ns/g)", "evicted (preempt for ns/g)", "reclaim A", "preempt B"),
                new Difference(Kind.EVICTION, "ns/v2", "evicted (preempt for ns/g)", "stays", "preempt A", null),
                new Difference(Kind.EVICTION, "ns/v3", "stays", "evicted (reclaim for ns/h)", null, "reclaim B"),
                new Difference(Kind.PODGROUP_PHASE, "ns/g", "Inqueue", "Running", "wait A", null)), d.differences());
        assertEquals(Map.of("active: start A", 2, "active: reclaim A", 1, "active: preempt A", 1, "active: wait A", 1,
                "shadow: start B", 1, "shadow: preempt B", 1, "shadow: reclaim B", 1), d.rules());
        assertEquals(List.of("active: start A"), d.rules().keySet().stream().limit(1).toList(), "most differences first");
    }

    @Test
    void aPodLeftPendingNamesTheRuleBehindItsJobsStatusOnThatSide() {
        CycleResult active = result(List.of(), List.of(), List.of(status("ns/g", "Inqueue", "queue over its share")), List.of());
        CycleResult shadow = result(List.of(new Binding("ns/p", "node-1", "start B")), List.of(),
                List.of(status("ns/g", "Inqueue", null)), List.of());
        assertEquals(List.of(new Difference(Kind.BINDING, "ns/p", "pending", "node-1", "queue over its share", "start B")),
                ShadowDifferences.compare(active, shadow, pod -> "ns/g").differences());
    }

    @Test
    void aQueueWhoseDeservedShareDiffersIsAShareDifference() {
        CycleResult active = result(List.of(), List.of(), List.of(), List.of(queue("q", 4), queue("r", 2)));
        CycleResult shadow = result(List.of(), List.of(), List.of(), List.of(queue("q", 6), queue("r", 2)));
        assertEquals(List.of(new Difference(Kind.SHARE, "q", "{cpu: 4}", "{cpu: 6}", null, null)),
                ShadowDifferences.compare(active, shadow).differences());
    }

    private static CycleResult result(List<Binding> b, List<Eviction> e, List<PodGroupStatus> g, List<QueueStatus> q) {
        return new CycleResult(1, "gen", b, e, g, q, Map.of());
    }

    private static PodGroupStatus status(String id, String phase, String rule) {
        return new PodGroupStatus(id, "q", phase, 1, 0, 1, rule == null ? null : "reason", rule);
    }

    private static QueueStatus queue(String name, int cpus) {
        return new QueueStatus(name, "root", 1, "Open", Resources.of("cpu", cpus), Resources.NONE, 0, 0, 0);
    }
}
