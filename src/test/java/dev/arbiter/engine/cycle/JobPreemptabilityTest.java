package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.scenario.ClusterBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether a job may be a victim, as its PodGroup says it ({@code volcano.sh/preemptable}, read where Volcano 1.15's
 * gang-preempt and gang-reclaim read it) and as a priority level says it ({@code victims.nonPreemptibleFrom}, KAI's
 * non-preemptible priorities). The job's word wins over its pods' markers and over the level; without it, a pod's
 * marker spares that pod, and the level spares the whole job.
 */
class JobPreemptabilityTest {
    private static final String GPU = "nvidia.com/gpu";

    /** ns/old (priority 10) holds both nodes of queue q; ns/new (priority 1000) wants one. */
    private static ClusterBuilder preemption(java.util.function.UnaryOperator<ClusterBuilder.JobBuilder> old) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("q").reclaimable(false).end();
        return old.apply(c.job("ns/old").queue("q").priorityClass("low").pods(2, GPU, 8).minMember(1)
                        .running("node-1", "node-2")).end()
                .job("ns/new").queue("q").priorityClass("high").pods(1, GPU, 8).end();
    }

    @Test
    void aPodGroupMarkedNotPreemptableKeepsEveryPodOfItFromPreemption() {
        CycleResult r = Shipped.cycle(preemption(j -> j.podGroupPreemptable(false)).snapshot());
        assertEquals(Set.of(), evicted(r));
        Refusal.AllProtected all = (Refusal.AllProtected) Shipped.attempted(Shipped.why(r, "ns/new"), "preempt");
        assertEquals("victims: a job whose PodGroup is marked volcano.sh/preemptable false is never evicted",
                all.by().get(0).rule());
        assertEquals(2, all.by().get(0).count());
    }

    @Test
    void withoutAMarkerTheSameJobIsPreempted() {
        assertEquals(1, evicted(Shipped.cycle(preemption(j -> j).snapshot())).size());
    }

    @Test
    void aPodGroupMarkedPreemptableWinsOverItsPodsMarkers() {
        // Each pod says "false"; the PodGroup says "true": the job's word wins.
        assertEquals(Set.of(), evicted(Shipped.cycle(preemption(j -> j.notPreemptable()).snapshot())),
                "the pods' markers alone spare them");
        assertEquals(1, evicted(Shipped.cycle(preemption(j -> j.notPreemptable().podGroupPreemptable(true)).snapshot()))
                .size());
    }

    @Test
    void aPodGroupMarkedNotPreemptableIsNotReclaimedEither() {
        // b borrowed the whole cluster; a deserves half and wants it back.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, GPU, 8).queue("a").end().queue("b").end()
                .job("b/run").queue("b").pods(2, GPU, 8).minMember(1).running("node-1", "node-2").startedAt(0)
                .podGroupPreemptable(false).end()
                .job("a/want").queue("a").pods(1, GPU, 8).end();
        CycleResult r = Shipped.cycle(c.snapshot(1000));
        assertEquals(Set.of(), evicted(r));
        assertTrue(Shipped.attempted(Shipped.why(r, "a/want"), "reclaim") instanceof Refusal.AllProtected,
                Shipped.why(r, "a/want").toString());
    }

    @Test
    void aJobAtTheNonPreemptiblePriorityIsNeverAVictimUnlessItsPodGroupSaysSo(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(dir.resolve("policy.yaml"), "victims:\n  nonPreemptibleFrom: 10\n");
        RuleBook level = RuleBook.load(dir);
        // ns/old's priority 10 is at the level: a higher-priority job finds it spared.
        CycleResult r = new Scheduler(level, SchedulerConfig.simulatorDefault()).schedule(preemption(j -> j).snapshot(), 1);
        assertEquals(Set.of(), evicted(r));
        Refusal.AllProtected all = (Refusal.AllProtected) Shipped.attempted(Shipped.why(r, "ns/new"), "preempt");
        assertEquals("victims: a job at or above the non-preemptible priority is never evicted", all.by().get(0).rule());
        // Its PodGroup says it is preemptable: the job's word wins over the level.
        CycleResult said = new Scheduler(level, SchedulerConfig.simulatorDefault())
                .schedule(preemption(j -> j.podGroupPreemptable(true)).snapshot(), 1);
        assertEquals(1, evicted(said).size());
    }

    @Test
    void theLevelIsOffByDefault() {
        assertEquals(null, Shipped.RULES.settings().victims().nonPreemptibleFrom());
    }
}
