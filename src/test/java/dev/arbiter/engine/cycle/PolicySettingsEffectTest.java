package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.RuleBook;

import static dev.arbiter.engine.cycle.Shipped.bound;
import static dev.arbiter.engine.cycle.Shipped.evicted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.scenario.ClusterBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What used to be policy hidden in Java is a setting now, with the old behaviour as the default: each test shows a
 * decision the default makes and the one the setting changes it to. The settings reach the engine the way a platform
 * engineer writes them, as a pack over the shipped policy with its own {@code policy.yaml}.
 */
class PolicySettingsEffectTest {
    private static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;

    private int packs;

    /** A scheduler for the shipped policy overlaid with {@code policyYaml} and the given rule files (name, text...). */
    private Scheduler with(String policyYaml, String... files) throws IOException {
        Path pack = Files.createDirectories(dir.resolve("pack-" + ++packs));
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("policy.yaml"), policyYaml);
        for (int i = 0; i < files.length; i += 2) Files.writeString(pack.resolve(files[i]), files[i + 1]);
        return new Scheduler(RuleBook.load(pack), SchedulerConfig.simulatorDefault());
    }

    /**
     * Queue a holds three of four nodes, one with a low-priority pod, and has a pending high-priority job (it may
     * preempt); queue b, below its half, wants a node back (it may reclaim).
     */
    private static ClusterSnapshot preemptAndReclaimCompete() {
        return ClusterBuilder.cluster().nodes(4, GPU, 8)
                .priorityClass("low", 10).priorityClass("mid", 100, true).priorityClass("high", 1000)
                .queue("a").end().queue("b").end()
                .job("a/low").queue("a").priorityClass("low").pods(1, GPU, 8).running("node-1").startedAt(0).end()
                .job("a/mid").queue("a").priorityClass("mid").pods(2, GPU, 8).minMember(1).running("node-2", "node-3")
                .startedAt(0).end()
                .job("b/run").queue("b").pods(1, GPU, 8).running("node-4").startedAt(0).end()
                .job("a/high").queue("a").priorityClass("high").pods(1, GPU, 8).end()
                .job("b/want").queue("b").pods(1, GPU, 8).end()
                .snapshot(1000);
    }

    @Test
    void theEvictionActionsRunInTheOrderTheSettingsList() throws IOException {
        String oneEviction = "churn:\n  maxEvictionsPerCycle: 1\n";
        CycleResult preemptFirst = with(oneEviction).schedule(preemptAndReclaimCompete(), 1);
        assertEquals(List.of("preempt for a/high"), actions(preemptFirst), "the default: preempt, then reclaim");
        CycleResult reclaimFirst = with(oneEviction + "cycle:\n  evictions: [reclaim, preempt]\n").schedule(preemptAndReclaimCompete(), 1);
        assertEquals(List.of("reclaim for b/want"), actions(reclaimFirst));
        CycleResult none = with("cycle:\n  evictions: []\n").schedule(preemptAndReclaimCompete(), 1);
        assertEquals(List.of(), actions(none));
        CycleResult both = with("").schedule(preemptAndReclaimCompete(), 1);
        assertEquals(Set.of("preempt for a/high", "reclaim for b/want"), Set.copyOf(actions(both)));
    }

    private static List<String> actions(CycleResult r) {
        return r.evictions().stream().map(e -> e.action() + " for " + e.forPodGroup()).toList();
    }

    /**
     * With the cycle's eviction budget nearly spent, a job whose every plan needs more victims than are left waits,
     * and its reason says so; a larger budget lets it reclaim.
     */
    @Test
    void aJobThatNeedsMoreVictimsThanTheBudgetLeavesWaitsWithTheBudgetAsItsReason() throws IOException {
        CycleResult two = with("churn:\n  maxEvictionsPerCycle: 2\n").schedule(aReclaimsFromSingleAndPairedPods(), 1);
        assertEquals(Set.of("b/n1-0"), evicted(two), "the first job takes the single pod, within budget");
        List<String> reasons = two.podGroups().stream().filter(g -> g.queue().equals("a"))
                .map(PodGroupStatus::reason).toList();
        assertTrue(reasons.stream().anyMatch(r -> r.startsWith("waiting for 1 evicted pod(s) to leave")), "" + reasons);
        assertTrue(reasons.stream().anyMatch(r -> r.contains("eviction budget of 2 pods per cycle would be exceeded")
                && r.contains("no node makes room for a/2-0 with 1 more")), "" + reasons);
        CycleResult three = with("churn:\n  maxEvictionsPerCycle: 3\n").schedule(aReclaimsFromSingleAndPairedPods(), 1);
        assertEquals(3, three.evictions().size(), "" + evicted(three));
    }

    /**
     * Jobs alike that the budget refuses in the same state get the same refusal (worked out once), each naming its own
     * pod.
     */
    @Test
    void jobsAlikeThatTheBudgetRefusesEachNameTheirOwnPod() throws IOException {
        CycleResult r = with("churn:\n  maxEvictionsPerCycle: 2\n").schedule(aReclaimsFromSingleAndPairedPods(3), 1);
        assertEquals(Set.of("b/n1-0"), evicted(r));
        for (String job : List.of("a/2", "a/3")) {
            assertEquals(new Refusal.BudgetExceeded(2, 1, 0, job + "-0", 1), Shipped.attempted(Shipped.why(r, job), "reclaim"));
            // The whole reason: what allocation, preemption and reclaim each found, in that order.
            assertEquals("gang of 1 needs 1 tasks, 0 placeable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu;"
                    + " preempt: nothing runs in queue \"a\"; reclaim: eviction budget of 2 pods per cycle would be"
                    + " exceeded (1 already, 0 for this job, and no node makes room for " + job + "-0 with 1 more)",
                    Shipped.group(r.podGroups(), job).reason(), job);
        }
    }

    /** b holds four nodes: node-1 with one 8-GPU pod, the others with two 4-GPU pods each; a wants two 8-GPU pods. */
    private static ClusterSnapshot aReclaimsFromSingleAndPairedPods() {
        return aReclaimsFromSingleAndPairedPods(2);
    }

    /** The same, with {@code waiting} such jobs in queue a: a/1, a/2, ... in that order of arrival. */
    private static ClusterSnapshot aReclaimsFromSingleAndPairedPods(int waiting) {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("a").end().queue("b").end()
                .job("b/n1").queue("b").pods(1, GPU, 8).running("node-1").startedAt(0).end()
                .job("b/n2").queue("b").pods(2, GPU, 4).running("node-2", "node-2").startedAt(0).end()
                .job("b/n3").queue("b").pods(2, GPU, 4).running("node-3", "node-3").startedAt(0).end()
                .job("b/n4").queue("b").pods(2, GPU, 4).running("node-4", "node-4").startedAt(0).end();
        for (int i = 1; i <= waiting; i++) c = c.job("a/" + i).queue("a").pods(1, GPU, 8).arrival(i - 1).end();
        return c.snapshot(1000);
    }

    /** Two sibling queues under a parent that can admit two 8-GPU jobs; each sibling has two waiting. */
    private static ClusterSnapshot twoQueuesShareAnAdmissionBudget() {
        return ClusterBuilder.cluster().nodes(4, GPU, 8)
                .queue("org").capability(GPU, 16).end()
                .queue("a").parent("org").end().queue("b").parent("org").end()
                .job("a/1").queue("a").pods(1, GPU, 8).arrival(0).end()
                .job("a/2").queue("a").pods(1, GPU, 8).arrival(0).end()
                .job("b/1").queue("b").pods(1, GPU, 8).arrival(0).end()
                .job("b/2").queue("b").pods(1, GPU, 8).arrival(0).end()
                .snapshot();
    }

    @Test
    void admissionInterleavesQueuesOrGoesQueueByQueue() throws IOException {
        CycleResult interleaved = with("").schedule(twoQueuesShareAnAdmissionBudget(), 1);
        assertEquals(Set.of("a/1-0", "b/1-0"), bound(interleaved), "the default: one job per queue in turn");
        assertEquals("Pending", Shipped.group(interleaved.podGroups(), "a/2").phase());
        CycleResult byQueue = with("cycle:\n  admission: queue by queue\n").schedule(twoQueuesShareAnAdmissionBudget(), 1);
        // Queue a admits both its jobs; it starts one (its deserved half of org), and b's jobs stay Pending.
        assertEquals("Inqueue", Shipped.group(byQueue.podGroups(), "a/2").phase(), "queue a admits all it can first");
        assertEquals("Pending", Shipped.group(byQueue.podGroups(), "b/1").phase());
        assertEquals(Set.of("a/1-0"), bound(byQueue));
    }

    /**
     * The cycle after a preemption: queue a's high-priority job holds the room its victim left on node-1, but a
     * already holds its deserved share on node-2 (queue b has work waiting too).
     */
    private static ClusterSnapshot nominatedInAnOverusedQueue() {
        ClusterSnapshot s = ClusterBuilder.cluster().nodes(2, GPU, 8)
                .priorityClass("mid", 100).priorityClass("high", 1000)
                .queue("a").end().queue("b").end()
                .job("a/other").queue("a").priorityClass("mid").pods(1, GPU, 8).running("node-2").end()
                .job("a/high").queue("a").priorityClass("high").pods(1, GPU, 8).phase("Inqueue").end()
                .job("b/patient").queue("b").preemptionPolicy("Never").pods(1, GPU, 8).end()
                .snapshot();
        return new ClusterSnapshot(s.nodes(), s.pods(), s.podGroups(), s.queues(), s.priorityClasses(), 0,
                Map.of("a/high-0", "node-1"));
    }

    @Test
    void nominatedJobsGoFirstUnlessTheSettingsSayTheyWaitTheirTurn() throws IOException {
        assertEquals(Set.of("a/high-0"), bound(with("").schedule(nominatedInAnOverusedQueue(), 1)));
        CycleResult waits = with("cycle:\n  nominatedFirst: false\n").schedule(nominatedInAnOverusedQueue(), 1);
        assertEquals(Set.of(), bound(waits), "a is overused, and node-1 stays held for a/high");
        assertEquals("a", Shipped.part(Shipped.why(waits, "a/high"), Refusal.Overused.class).queue());
    }

    /** Three equal queues on six nodes: b and c hold three each (c is served last), a wants one back. */
    /** {@link #lenders}, and a wants one pod and two more that no node suits: a deserves 16, b and c 16 each. */
    private static ClusterSnapshot twoLenders() {
        return lenders().job("a/want").queue("a").pods(1, GPU, 8).end()
                .job("a/nowhere").queue("a").pods(2, GPU, 8).nodeSelector("pool", "none").end().snapshot(1000);
    }

    /** Three equal queues on six nodes: b and c hold three each (c is served last). */
    private static ClusterBuilder lenders() {
        ClusterBuilder c = ClusterBuilder.cluster().nodes(6, GPU, 8)
                .queue("a").end().queue("b").priority(5).end().queue("c").end();
        for (int i = 1; i <= 3; i++) c.job("b/j" + i).queue("b").pods(1, GPU, 8).running("node-" + i).startedAt(0).end();
        for (int i = 4; i <= 6; i++) c.job("c/j" + i).queue("c").pods(1, GPU, 8).running("node-" + i).startedAt(0).end();
        return c;
    }

    /**
     * reclaim.drl with the shipped rule's conditions, whose grants from c let the reclaiming queue grow up to
     * {@code fromC} (a Java expression), and from the other queues up to its deserved share.
     */
    private static String reclaimFromCUpTo(String ruleName, String fromC) {
        return """
                package arbiter.policy;
                import dev.arbiter.facts.QueueFact;
                import dev.arbiter.facts.QueueShare;
                import dev.arbiter.facts.ReclaimGrant;
                import dev.arbiter.model.Resources;
                rule "%s"
                ruleflow-group "policy"
                when
                    $q : QueueFact( open == true )
                    $qs : QueueShare( queue == $q.name, overused == false )
                    $v : QueueFact( name != $q.name, reclaimable == true )
                    $vs : QueueShare( queue == $v.name, aboveDeserved == true )
                then
                    insertLogical( new ReclaimGrant( $q.getName(), $v.getName(),
                            $v.getName().equals("c") ? %s : $qs.getDeserved(),
                            $vs.getDeserved().max( $v.getGuarantee() ), drools.getRule().getName() ) );
                end
                """.formatted(ruleName, fromC);
    }

    @Test
    void eachReclaimGrantsCeilingCountsForItsOwnVictimQueue() throws IOException {
        List<Eviction> shipped = Shipped.scheduler().schedule(twoLenders(), 1).evictions();
        assertEquals(1, shipped.size());
        assertTrue(shipped.get(0).pod().startsWith("c/"), "the queue served last gives: " + shipped);
        // A pack whose grant from c lets a grow not at all: c gives nothing to a, so b does.
        String reclaim = reclaimFromCUpTo("reclaim: from c only up to nothing, from the others up to the deserved share",
                "Resources.NONE");
        List<Eviction> perGrant = with("", "reclaim.drl", reclaim).schedule(twoLenders(), 1).evictions();
        assertEquals(1, perGrant.size());
        assertTrue(perGrant.get(0).pod().startsWith("b/"), "c's grant does not let a grow: " + perGrant);
    }

    @Test
    void jobsOfOneQueueReclaimFromTheQueuesTheirOwnNeedIsGrantedFrom() throws IOException {
        // b and c run three pods each (c is served last, so it gives first); a wants a gang of two, then one pod.
        ClusterSnapshot s = lenders().job("a/big").queue("a").arrival(0).pods(2, GPU, 8).end()
                .job("a/small").queue("a").arrival(1).pods(1, GPU, 8).end().snapshot(1000);
        // c's grant lets a grow by one pod, b's up to a's deserved share: the gang may reclaim only from b (which
        // gives back one pod at most, too few), the single pod from both, so from c.
        String reclaim = reclaimFromCUpTo("reclaim: from c up to one pod, from the others up to the deserved share",
                "Resources.of(\"nvidia.com/gpu\", 8)");
        List<Eviction> evicted = with("", "reclaim.drl", reclaim).schedule(s, 1).evictions();
        assertEquals(1, evicted.size(), evicted.toString());
        assertTrue(evicted.get(0).pod().startsWith("c/"), "a/small may reclaim from c as well: " + evicted);
    }

    @Test
    void ignoredResourcesLeaveADimensionOutOfQueueCapabilities() throws IOException {
        ClusterSnapshot s = ClusterBuilder.cluster().nodes(1, GPU, 8, "cpu", 64)
                .queue("a").capability("cpu", 8).end()
                .job("a/big").queue("a").pods(1, GPU, 1, "cpu", 16).end()
                .snapshot();
        assertEquals(Set.of(), bound(with("").schedule(s, 1)), "16 cpu passes a's capability of 8");
        assertEquals(Set.of("a/big-0"), bound(with("shares:\n  ignoredResources: [pods, cpu]\n").schedule(s, 1)),
                "cpu no longer counts for queues");
    }

    /** node-1 is fuller in GPUs, node-2 in cpu; the pod asks for both. */
    private static ClusterSnapshot twoWaysFull() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8, "cpu", 64)
                .job("x/gpus").pods(1, GPU, 6, "cpu", 8).running("node-1").end()
                .job("x/cpus").pods(1, GPU, 1, "cpu", 56).running("node-2").end()
                .job("x/new").pods(1, GPU, 1, "cpu", 4).end()
                .snapshot();
    }

    @Test
    void binpackWeightsChooseWhichResourceFillsFirst() throws IOException {
        CycleResult gpuFirst = with("scoring:\n  weights: {nvidia.com/gpu: 10, cpu: 1}\n").schedule(twoWaysFull(), 1);
        assertEquals("node-1", gpuFirst.bindings().get(0).node());
        CycleResult cpuFirst = with("scoring:\n  weights: {nvidia.com/gpu: 1, cpu: 10}\n").schedule(twoWaysFull(), 1);
        assertEquals("node-2", cpuFirst.bindings().get(0).node());
    }

    /** A gang of two (minMember 2) of low priority fills the cluster; a high-priority pod of the same queue waits. */
    private static ClusterSnapshot aGangInTheWay() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .queue("a").end()
                .job("a/gang").queue("a").priorityClass("low").pods(2, GPU, 8).minMember(2).running("node-1", "node-2")
                .startedAt(0).end()
                .job("a/high").queue("a").priorityClass("high").pods(1, GPU, 8).end()
                .snapshot(1000);
    }

    @Test
    void aVictimThatWouldBreakItsGangBringsTheGangOrIsSpared() throws IOException {
        assertEquals(Set.of("a/gang-0", "a/gang-1"), evicted(Shipped.scheduler().schedule(aGangInTheWay(), 1)),
                "the default: never leave a broken gang holding GPUs");
        CycleResult spared = with("victims:\n  breakingGang: spare\n").schedule(aGangInTheWay(), 1);
        assertEquals(Set.of(), evicted(spared), "as Volcano's gang plugin: a gang's needed members are no victims");
    }
}
