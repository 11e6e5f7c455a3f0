package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.sim.SimulationResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Explain: the rules, the queue numbers of the deciding cycle, gang progress and the closest node's shortfall. */
class ExplainTest {
    private static final String GPU = "mars-tech.com/gpu";
    private static final String RECLAIM = "reclaim: a queue below its deserved share takes back from reclaimable queues above theirs";
    private static final Manifests SEED = ManifestLoader.load(List.of(Path.of("deploy/examples/seed")));
    private static final SimulationResult SEED_RUN = Shipped.simulate(SEED);
    /** The cycle in which tenant A arrives and reclaims (61: a simulated minute after tenant B started). */
    private static final int RECLAIM_CYCLE = SEED_RUN.cycles().stream().filter(c -> !c.evictions().isEmpty())
            .findFirst().orElseThrow().cycle();

    private static Explanation explain(Manifests m, SimulationResult r, String subject) {
        return Explainer.explain(m, r.cycles(), r.podGroups(), subject, SchedulerConfig.simulatorDefault().schedulerNames());
    }

    private static Explanation.Share share(Explanation e, String queue, String resource) {
        return e.shares().stream().filter(s -> s.queue().equals(queue) && s.resource().equals(resource)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + queue + " " + resource + " in " + e.shares()));
    }

    @Test
    void tenantAsGangWasStartedByReclaimingTheSixteenGpusTenantBHeldAboveItsShare() {
        Explanation e = explain(SEED, SEED_RUN, "a01/qwen2-72b-unified-pg");
        assertEquals("PodGroup a01/qwen2-72b-unified-pg", e.subject());
        assertTrue(e.outcome().startsWith("Running: 2 of 2 running"), e.outcome());
        assertEquals(RECLAIM_CYCLE, e.cycle(), "the numbers of the reclaiming cycle");
        assertEquals(2, e.steps().stream().filter(s -> s.action().equals("reclaim") && s.rule().equals(RECLAIM)).count(), e.steps().toString());
        Explanation.Share b = share(e, "tenantb", GPU);
        assertEquals(32_000, b.allocatedBefore());
        assertEquals(16_000, b.deserved());
        assertEquals(16_000, b.allocatedAfter());
        Explanation.Share a = share(e, "tenanta", GPU);
        assertEquals(0, a.allocatedBefore());
        assertEquals(16_000, a.deserved());
        assertEquals(new Explanation.Gang(2, 2, 2, 2), e.gang());

        String text = ExplanationText.render(e);
        assertTrue(text.contains(RECLAIM), text);
        // ALLOCATED, then BOUND and HELD (the cycle held room for tenant A's nominated pods), then DESERVED.
        assertTrue(text.matches("(?s).*tenantb\\s+mars-tech.com/gpu\\s+32 -> 16\\s+16\\s+0\\s+16\\n.*"), text);
        assertTrue(text.contains("after reclaim evicted 2 pod(s) in cycle " + RECLAIM_CYCLE), text);
    }

    @Test
    void capacityHeldForTheNominatedGangIsShownApartFromWhatIsBound() {
        Explanation e = explain(SEED, SEED_RUN, "a01/qwen2-72b-unified-pg");
        Explanation.Share a = share(e, "tenanta", GPU);
        assertEquals(16_000, a.allocatedAfter(), "the queue's allocation counts the room made for its gang");
        assertEquals(16_000, a.held());
        assertEquals(0, a.bound(), "none of its pods is bound in the reclaim cycle");
        assertEquals(0, share(e, "tenantb", GPU).held());
        assertEquals(16_000, share(e, "tenantb", GPU).bound());
        String text = ExplanationText.render(e);
        assertTrue(text.contains("QUEUE     RESOURCE            ALLOCATED        BOUND   HELD    DESERVED"), text);
        assertTrue(text.matches("(?s).*tenanta\\s+mars-tech.com/gpu\\s+0 -> 16\\s+0\\s+16\\s+16\\n.*"), text);
        assertTrue(text.contains("HELD: capacity the cycle's evictions freed, kept for the pods it nominated until they bind;"), text);
    }

    @Test
    void withoutHeldCapacityTheTableKeepsItsFourColumns() {
        Explanation e = explain(SEED, SEED_RUN, "b01/tenantb-heavy-training-master-0");
        String text = ExplanationText.render(e);
        assertTrue(!e.shares().isEmpty() && e.shares().stream().allMatch(s -> s.held() == 0), e.shares().toString());
        assertTrue(text.contains("QUEUE     RESOURCE            ALLOCATED    DESERVED"), text);
        assertTrue(!text.contains("HELD"), text);
    }

    @Test
    void anEvictedWorkerNamesTheReclaimRuleAndTheQueueItWasTakenFor() {
        Explanation e = explain(SEED, SEED_RUN, "b01/tenantb-heavy-training-worker-2");
        assertEquals("Evicted from node-4 in cycle " + RECLAIM_CYCLE, e.outcome());
        assertEquals(RECLAIM, e.rule());
        assertTrue(e.reason().contains("reclaim by a01/qwen2-72b-unified-pg"), e.reason());
        assertEquals(32_000, share(e, "tenantb", GPU).allocatedBefore());
        assertEquals(16_000, share(e, "tenanta", GPU).deserved());
        assertTrue(ExplanationText.oneLine(e).endsWith("[rule: " + RECLAIM + "]"), ExplanationText.oneLine(e));
    }

    @Test
    void aBoundPodSaysWhereAndWhen() {
        Explanation e = explain(SEED, SEED_RUN, "b01/tenantb-heavy-training-master-0");
        assertTrue(e.outcome().startsWith("Running on node-"), e.outcome());
        assertTrue(e.reason().startsWith("bound to node-") && e.reason().contains("in cycle 1"), e.reason());
        assertTrue(e.reason().endsWith("had mars-tech.com/gpu 8, cpu 96, memory 768Gi free, 4 of 4 nodes had room for it"), e.reason());
        assertTrue(e.closest().isEmpty());
        assertTrue(e.rulesFired().get("PodGroup b01/tenantb-heavy-training").contains(e.rule()),
                "the rule that bound it fired on its PodGroup: " + e.rulesFired());
        assertTrue(e.rulesFired().containsKey("Queue tenantb"), e.rulesFired().toString());
        // The rules fired are those of the cycle explained (cycle 1), not of every cycle: reclaim from tenantb happened
        // only in cycle 61.
        assertEquals(1, e.cycle());
        assertFalse(e.rulesFired().get("Queue tenantb").contains(RECLAIM), e.rulesFired().toString());
        assertTrue(SEED_RUN.cycles().stream().anyMatch(c -> c.rulesFiredOn("Queue", "tenantb").contains(RECLAIM)),
                "it fired in another cycle");
    }

    @Test
    void aPendingGangShowsItsProgressAndTheClosestNodesShortfall() {
        // Four 8-GPU nodes: node-1 and node-2 half used, node-3 full, node-4 idle; a gang of four 8-GPU pods fits the
        // cluster's total but only one of its pods fits anywhere: 1 of 4 placeable.
        Manifests m = ClusterBuilder.cluster()
                .nodes(4, "nvidia.com/gpu", 8, "cpu", 32)
                .priorityClass("normal", 100, true)
                .job("ops/busy").pods(4, "nvidia.com/gpu", 4, "cpu", 4).running("node-1", "node-2", "node-3", "node-3").end()
                .job("ml/train").pods(4, "nvidia.com/gpu", 8, "cpu", 4).minMember(4).end()
                .manifests();
        SimulationResult r = Shipped.simulate(m);
        Explanation e = explain(m, r, "ml/train");
        assertEquals(new Explanation.Gang(4, 4, 0, 1), e.gang());
        assertEquals(4, e.closest().size());
        Explanation.NodeGap gap = e.closest().get(0);
        assertEquals("node-4", gap.node(), "the idle node has room for one pod on its own");
        assertTrue(gap.shortfall().isEmpty());
        assertTrue(e.reason().endsWith("; closest node node-4 has room for ml/train-0"), e.reason());
        assertTrue(ExplanationText.render(e).contains("gang:     1 placeable (min 4), "), ExplanationText.render(e));

        // Once node-4 is half used too, the closest node is the first of the half-used ones, short of 4 GPUs.
        Manifests full = ClusterBuilder.cluster()
                .nodes(4, "nvidia.com/gpu", 8, "cpu", 32)
                .priorityClass("normal", 100, true)
                .job("ops/busy").pods(5, "nvidia.com/gpu", 4, "cpu", 4).running("node-1", "node-2", "node-3", "node-3", "node-4").end()
                .job("ml/train").pods(4, "nvidia.com/gpu", 8, "cpu", 4).minMember(4).end()
                .manifests();
        Explanation f = explain(full, Shipped.simulate(full), "ml/train-0");
        assertEquals("Pending", f.outcome());
        assertEquals(new Explanation.Gang(4, 4, 0, 0), f.gang());
        assertEquals("node-1", f.closest().get(0).node());
        assertEquals(Resources.of("nvidia.com/gpu", 4), f.closest().get(0).shortfall());
        assertTrue(f.reason().endsWith("closest node node-1 lacks nvidia.com/gpu 4"), f.reason());
    }

    @Test
    void liveModeGetsTheOneLineReasonFromOneCycle() {
        // Live mode has one snapshot and one cycle result; the line goes into the PodGroup condition and the events.
        dev.arbiter.model.ClusterSnapshot snapshot = ClusterBuilder.cluster()
                .nodes(2, "nvidia.com/gpu", 8)
                .priorityClass("normal", 100, true)
                .job("ops/busy").pods(1, "nvidia.com/gpu", 4).running("node-1").end()
                .job("ml/train").pods(3, "nvidia.com/gpu", 8).minMember(3).end()
                .snapshot();
        dev.arbiter.decision.CycleResult result = Shipped.cycle(snapshot);
        Explainer.Run run = Explainer.of(snapshot, List.of(result), result.podGroups(),
                SchedulerConfig.simulatorDefault().schedulerNames());
        String line = run.oneLine("ml/train");
        dev.arbiter.decision.PodGroupStatus status = Shipped.group(result.podGroups(), "ml/train");
        assertTrue(line.startsWith(status.reason() + "; closest node node-2 has room for ml/train-0"), line);
        assertTrue(line.endsWith(" [rule: " + status.rule() + "]"), line);
        assertEquals(new Explanation.Gang(3, 3, 0, 1), run.explain("ml/train").gang());
    }

    @Test
    void aPendingPodIgnoresNodesItCannotUse() {
        Manifests m = ClusterBuilder.cluster()
                .nodes(2, "nvidia.com/gpu", 8)
                .taint("node-1", "dedicated", "infra", "NoSchedule")
                .priorityClass("normal", 100, true)
                .job("ml/big").pods(1, "nvidia.com/gpu", 16).end()
                .manifests();
        Explanation e = explain(m, Shipped.simulate(m), "ml/big-0");
        assertEquals("node-2", e.closest().get(0).node());
        assertEquals(Resources.of("nvidia.com/gpu", 8), e.closest().get(0).shortfall());
    }

    @Test
    void aPendingPodIgnoresNodesItsNodeAffinityRefusesAndSaysWhyInKubeSchedulersWords() {
        dev.arbiter.model.Placement h100Only = dev.arbiter.model.Placement.NONE.withNodeAffinity(
                new dev.arbiter.model.Placement.NodeAffinity(List.of(dev.arbiter.model.Placement.NodeSelectorTerm.of(
                        new dev.arbiter.model.Placement.NodeRequirement("gpu", "In", List.of("h100")))), List.of()));
        Manifests m = ClusterBuilder.cluster()
                .nodes(3, "nvidia.com/gpu", 8).label("node-1", "gpu", "a100").label("node-2", "gpu", "a100")
                .label("node-3", "gpu", "h100")
                .priorityClass("normal", 100, true)
                .job("ml/busy").pods(1, "nvidia.com/gpu", 8).running("node-3").end()
                .job("ml/big").placement(h100Only).pods(1, "nvidia.com/gpu", 8).end()
                .manifests();
        Explanation e = explain(m, Shipped.simulate(m), "ml/big");
        assertEquals("node-3", e.closest().get(0).node(), "the A100 nodes have room but the pod may not use them");
        assertTrue(e.reason().startsWith("gang of 1 needs 1 tasks, 0 placeable: 0/3 nodes are available: 1 Insufficient"
                + " nvidia.com/gpu, 2 node(s) didn't match Pod's node affinity/selector"), e.reason());
    }

    @Test
    void aPodWithoutPodGroupIsExplainedAsItsImplicitGang() {
        Manifests m = ClusterBuilder.cluster().nodes(1, "cpu", 8).priorityClass("normal", 100, true)
                .barePods("web/api").pods(1, "cpu", 2).end().manifests();
        SimulationResult r = Shipped.simulate(m);
        Explanation byGang = explain(m, r, "web/podgroup-api-0");
        assertEquals("PodGroup web/podgroup-api-0", byGang.subject());
        assertEquals(new Explanation.Gang(1, 1, 1, 1), byGang.gang());
        assertEquals("web/podgroup-api-0", explain(m, r, "web/api-0").podGroup());
        Explainer.checkSubject(m, "web/podgroup-api-0");
        assertThrows(Explainer.UnknownSubjectException.class, () -> Explainer.checkSubject(m, "web/podgroup-nope"));
    }

    @Test
    void aPodOfAnotherSchedulerIsSaidToBeNotOurs() {
        Manifests m = ClusterBuilder.cluster().nodes(1, "cpu", 8).priorityClass("normal", 100, true)
                .barePods("web/api").schedulerName("default-scheduler").pods(1, "cpu", 2).end().manifests();
        Explanation e = explain(m, Shipped.simulate(m), "web/api-0");
        assertEquals("Pending", e.outcome());
        assertEquals("not scheduled by Arbiter: spec.schedulerName is \"default-scheduler\"", e.reason());
    }

    @Test
    void anUnknownSubjectIsRejected() {
        assertThrows(Explainer.UnknownSubjectException.class, () -> explain(SEED, SEED_RUN, "a01/nope"));
    }

    @Test
    void theCommandExplainsTheSeedReclaimAndRejectsBadSubjects() {
        CliRunner r = CliRunner.run("explain", "a01/qwen2-72b-unified-pg", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains(RECLAIM), r.out());
        assertTrue(r.out().contains("32 -> 16"), r.out());

        CliRunner unknown = CliRunner.run("explain", "a01/nope", "deploy/examples/seed");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("no pod or PodGroup a01/nope"), unknown.err());
        assertEquals(2, CliRunner.run("explain", "no-namespace", "deploy/examples/seed").exit());
        assertEquals(2, CliRunner.run("explain", "a01/x").exit(), "needs PATHs or --kubeconfig");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theJsonOutputCarriesTheSameNumbers() {
        Explanation e = explain(SEED, SEED_RUN, "b01/tenantb-heavy-training-worker-2");
        Map<String, Object> json = new org.yaml.snakeyaml.Yaml().load(ExplanationText.json(e));
        assertEquals(RECLAIM, json.get("rule"));
        assertEquals(RECLAIM_CYCLE, json.get("cycle"));
        List<Map<String, Object>> shares = (List<Map<String, Object>>) json.get("shares");
        assertTrue(shares.contains(Map.of("queue", "tenantb", "resource", GPU, "deserved", "16", "allocatedBefore", "32",
                "allocatedAfter", "16", "held", "0")), shares.toString());
        assertTrue(shares.contains(Map.of("queue", "tenanta", "resource", GPU, "deserved", "16", "allocatedBefore", "0",
                "allocatedAfter", "16", "held", "16")), shares.toString());
        assertEquals(Map.of("minMember", 1, "members", 4, "running", 2, "placeable", 2), json.get("gang"));
        assertTrue(((Map<String, Object>) json.get("rulesFired")).containsKey("Queue tenantb"), json.toString());
    }

    @Test
    void aRunningGangWithoutDecisionsHasNoRule() {
        Manifests m = ClusterBuilder.cluster().nodes(1, "cpu", 8).priorityClass("normal", 100, true)
                .job("a/running").pods(1, "cpu", 1).running("node-1").end().manifests();
        Explanation e = explain(m, Shipped.simulate(m), "a/running");
        assertNull(e.rule());
        assertEquals("running since before the first cycle", e.reason());
    }

    @Test
    void aGangKeptInOneRackIsExplainedWithItsDomain() {
        Manifests m = ClusterBuilder.cluster().nodes(4, "nvidia.com/gpu", 8)
                .hyperNode("rack-1", 1, "node-1", "node-2").hyperNode("rack-2", 1, "node-3", "node-4")
                .job("ops/busy").pods(1, "nvidia.com/gpu", 8).running("node-1").end()
                .job("ml/train").pods(2, "nvidia.com/gpu", 8)
                .networkTopology(dev.arbiter.model.NetworkTopology.tiers(true, 1)).end()
                .manifests();
        SimulationResult r = Shipped.simulate(m);
        Explanation e = explain(m, r, "ml/train");
        assertEquals("rack-2", e.domain());
        assertTrue(ExplanationText.render(e).contains("domain:   rack-2"), ExplanationText.render(e));
        assertNull(explain(m, r, "ops/busy").domain());
    }

    /** Issue 38: pods of team-a naming PodGroup train, which exists only in team-b, were "not yet seen by a cycle". */
    @Test
    void aPodWhosePodGroupIsInAnotherNamespaceIsExplainedByThatFirst(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException {
        String pod = """
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: team-a
                  annotations: {scheduling.k8s.io/group-name: train}
                spec:
                  schedulerName: arbiter
                  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
                """;
        Path f = java.nio.file.Files.writeString(dir.resolve("m.yaml"), """
                apiVersion: v1
                kind: Node
                metadata: {name: n1}
                status: {allocatable: {cpu: "8", pods: "110"}}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-b}
                spec: {minMember: 2}
                """ + pod.formatted("p1") + pod.formatted("p2"));
        Manifests m = ManifestLoader.load(List.of(f));
        Explanation e = explain(m, Shipped.simulate(m), "team-a/p1");
        assertEquals("Pending", e.outcome());
        assertEquals("PodGroup team-a/train does not exist: a PodGroup train exists only in namespace team-b, and a PodGroup"
                + " gathers the pods of its own namespace alone, so they stay pending", e.reason());
        CliRunner r = CliRunner.run("explain", "team-a/p1", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("notice: " + f + ":16: Pods team-a/p1, team-a/p2: metadata.annotations["
                + "scheduling.k8s.io/group-name]: PodGroup team-a/train does not exist: a PodGroup train exists only in"
                + " namespace team-b"), r.out());
        assertTrue(r.out().contains("why:      PodGroup team-a/train does not exist: "), r.out());
        CliRunner json = CliRunner.run("explain", "--output", "json", "team-a/p1", f.toString());
        assertTrue(json.out().contains("\"notices\":["), json.out());
    }

    /** Issue 38: a queue typo named the missing queue but offered no "did you mean". */
    @Test
    void aQueueTypoIsExplainedWithTheQueueMeant(@org.junit.jupiter.api.io.TempDir Path dir) throws java.io.IOException {
        Path f = java.nio.file.Files.writeString(dir.resolve("m.yaml"), """
                apiVersion: v1
                kind: Node
                metadata: {name: n1}
                status: {allocatable: {cpu: "8", pods: "110"}}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: research}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMember: 1, queue: reserch}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p1
                  namespace: team-a
                  annotations: {scheduling.k8s.io/group-name: train}
                spec:
                  schedulerName: arbiter
                  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
                """);
        Manifests m = ManifestLoader.load(List.of(f));
        SimulationResult run = Shipped.simulate(m);
        assertTrue(explain(m, run, "team-a/p1").reason().startsWith("queue \"reserch\" does not exist (did you mean research?)"),
                explain(m, run, "team-a/p1").reason());
        assertTrue(explain(m, run, "team-a/train").reason().startsWith("queue \"reserch\" does not exist (did you mean research?)"),
                explain(m, run, "team-a/train").reason());
    }

    /** Issue 38: a pod naming a PodGroup that no namespace has was "not yet seen by a cycle". */
    @Test
    void aPodWhosePodGroupExistsNowhereIsExplainedByThatFirstWithTheGroupMeant(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException {
        Path f = java.nio.file.Files.writeString(dir.resolve("m.yaml"), """
                apiVersion: v1
                kind: Node
                metadata: {name: n1}
                status: {allocatable: {cpu: "8", pods: "110"}}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMember: 1}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p1
                  namespace: team-a
                  annotations: {scheduling.k8s.io/group-name: trian}
                spec:
                  schedulerName: arbiter
                  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
                """);
        Manifests m = ManifestLoader.load(List.of(f));
        Explanation e = explain(m, Shipped.simulate(m), "team-a/p1");
        assertEquals("Pending", e.outcome());
        assertEquals("PodGroup \"trian\" does not exist (did you mean train?); it stays pending", e.reason());
        CliRunner r = CliRunner.run("explain", "-n", "team-a", "p1", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("notice: " + f + ":16: Pod team-a/p1: metadata.annotations[scheduling.k8s.io/group-name]:"
                + " PodGroup \"trian\" does not exist (did you mean train?); it stays pending\n"), r.out());
        assertTrue(r.out().contains("why:      PodGroup \"trian\" does not exist (did you mean train?); it stays pending"),
                r.out());
    }
}
