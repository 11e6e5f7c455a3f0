package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import static dev.arbiter.engine.cycle.Placements.GPU;
import static dev.arbiter.engine.cycle.Placements.HOST;
import static dev.arbiter.engine.cycle.Placements.affinity;
import static dev.arbiter.engine.cycle.Placements.antiAffinity;
import static dev.arbiter.engine.cycle.Placements.expression;
import static dev.arbiter.engine.cycle.Placements.labels;
import static dev.arbiter.engine.cycle.Placements.nodesUsed;
import static dev.arbiter.engine.cycle.Placements.podTerm;
import static dev.arbiter.engine.cycle.Placements.preferAffinity;
import static dev.arbiter.engine.cycle.Placements.preferAntiAffinity;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pod affinity and anti-affinity with kube-scheduler's semantics. The cluster: node-1 and node-2 in zone a, node-3 and
 * node-4 in zone b, 8 GPUs and 32 cpu each; {@code web} (labels app=web, tier=front) runs on node-2 and {@code batch}
 * (no app label) on node-3, each on one cpu. Four pods of 8 GPUs each with the rule under test (and no labels of their
 * own) go one to a node: the nodes used are exactly the nodes the rule admits.
 */
class PodAffinityTest {
    private static ClusterBuilder cluster(String webNamespace) {
        return ClusterBuilder.cluster().nodes(4, GPU, 8, "cpu", 32)
                .label("node-1", "zone", "a").label("node-2", "zone", "a").label("node-3", "zone", "b").label("node-4", "zone", "b")
                .barePods(webNamespace + "/web").label("app", "web").label("tier", "front").pods(1, "cpu", 1).running("node-2").end()
                .barePods("ns/batch").pods(1, "cpu", 1).running("node-3").end();
    }

    private static CycleResult fourWholeNodePods(String webNamespace, Placement p) {
        return Shipped.cycle(cluster(webNamespace).barePods("ns/p").placement(p).pods(4, GPU, 8).end().snapshot());
    }

    private static final Set<String> ALL = Set.of("node-1", "node-2", "node-3", "node-4");

    static PodAffinityTerm inNamespaces(LabelSelector s, String key, List<String> namespaces, LabelSelector nsSelector) {
        return new PodAffinityTerm(s, namespaces, nsSelector, key);
    }

    static Stream<Arguments> requiredAffinity() {
        return Stream.of(
                Arguments.of("per hostname it admits the node running a matching pod", "ns",
                        affinity(podTerm(labels("app", "web"), HOST)), Set.of("node-2")),
                Arguments.of("per zone it admits every node of that zone", "ns", affinity(podTerm(labels("app", "web"), "zone")),
                        Set.of("node-1", "node-2")),
                Arguments.of("a selector no running pod matches admits no node", "ns", affinity(podTerm(labels("app", "db"), HOST)),
                        Set.of()),
                Arguments.of("a node without the topology key never passes", "ns", affinity(podTerm(labels("app", "web"), "rack")),
                        Set.of()),
                Arguments.of("pods of other namespaces do not count by default", "web-ns",
                        affinity(podTerm(labels("app", "web"), HOST)), Set.of()),
                Arguments.of("namespaces lists the other namespace", "web-ns",
                        affinity(inNamespaces(labels("app", "web"), HOST, List.of("web-ns"), null)), Set.of("node-2")),
                Arguments.of("an empty namespaceSelector covers every namespace", "web-ns",
                        affinity(inNamespaces(labels("app", "web"), HOST, List.of(), LabelSelector.EVERYTHING)), Set.of("node-2")),
                Arguments.of("a namespaceSelector on the name label covers that namespace", "web-ns",
                        affinity(inNamespaces(labels("app", "web"), HOST, List.of(),
                                labels("kubernetes.io/metadata.name", "web-ns"))), Set.of("node-2")),
                Arguments.of("a namespaceSelector matching another namespace does not", "web-ns",
                        affinity(inNamespaces(labels("app", "web"), HOST, List.of(),
                                labels("kubernetes.io/metadata.name", "other"))), Set.of()),
                Arguments.of("In matches any listed value", "ns", affinity(podTerm(expression("app", "In", "api", "web"), HOST)),
                        Set.of("node-2")),
                Arguments.of("NotIn also matches pods without the label", "ns",
                        affinity(podTerm(expression("app", "NotIn", "web"), HOST)), Set.of("node-3")),
                Arguments.of("Exists matches pods with the label", "ns", affinity(podTerm(expression("app", "Exists"), HOST)),
                        Set.of("node-2")),
                Arguments.of("DoesNotExist matches pods without the label", "ns",
                        affinity(podTerm(expression("app", "DoesNotExist"), HOST)), Set.of("node-3")),
                Arguments.of("every term must hold, by the same pods", "ns", affinity(podTerm(labels("app", "web"), "zone"),
                        podTerm(labels("tier", "front"), HOST)), Set.of("node-2")),
                Arguments.of("terms no single pod matches together admit nothing", "ns",
                        affinity(podTerm(labels("app", "web"), "zone"), podTerm(expression("app", "DoesNotExist"), "zone")),
                        Set.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requiredAffinity")
    void requiredPodAffinity(String name, String webNamespace, Placement p, Set<String> admitted) {
        CycleResult r = fourWholeNodePods(webNamespace, p);
        assertEquals(admitted, nodesUsed(r));
        Refusal.NoNodeFits noFit = Shipped.part(Shipped.why(r, "ns/podgroup-p-3"), Refusal.NoNodeFits.class);
        assertEquals(4 - admitted.size(), noFit.failedFilters().get("node(s) didn't match pod affinity rules"), noFit.toString());
    }

    static Stream<Arguments> requiredAntiAffinity() {
        return Stream.of(
                Arguments.of("per hostname it refuses the node running a matching pod", "ns",
                        antiAffinity(podTerm(labels("app", "web"), HOST)), Set.of("node-1", "node-3", "node-4")),
                Arguments.of("per zone it refuses the whole zone", "ns", antiAffinity(podTerm(labels("app", "web"), "zone")),
                        Set.of("node-3", "node-4")),
                Arguments.of("a selector no running pod matches refuses nothing", "ns",
                        antiAffinity(podTerm(labels("app", "db"), "zone")), ALL),
                Arguments.of("a node without the topology key passes", "ns", antiAffinity(podTerm(labels("app", "web"), "rack")), ALL),
                Arguments.of("pods of other namespaces do not count by default", "web-ns",
                        antiAffinity(podTerm(labels("app", "web"), "zone")), ALL),
                Arguments.of("namespaces lists the other namespace", "web-ns",
                        antiAffinity(inNamespaces(labels("app", "web"), "zone", List.of("web-ns"), null)), Set.of("node-3", "node-4")),
                Arguments.of("NotIn also matches pods without the label (the pods themselves, too)", "ns",
                        antiAffinity(podTerm(expression("app", "NotIn", "web"), HOST)), Set.of("node-1", "node-2", "node-4")),
                Arguments.of("Exists refuses the zones of every pod with the label", "ns",
                        antiAffinity(podTerm(expression("app", "Exists"), "zone")), Set.of("node-3", "node-4")),
                Arguments.of("each term refuses on its own", "ns", antiAffinity(podTerm(labels("app", "web"), HOST),
                        podTerm(expression("app", "DoesNotExist"), HOST)), Set.of("node-1", "node-4")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requiredAntiAffinity")
    void requiredPodAntiAffinity(String name, String webNamespace, Placement p, Set<String> admitted) {
        CycleResult r = fourWholeNodePods(webNamespace, p);
        assertEquals(admitted, nodesUsed(r));
        if (admitted.size() < 4) {
            Refusal.NoNodeFits noFit = Shipped.part(Shipped.why(r, "ns/podgroup-p-3"), Refusal.NoNodeFits.class);
            assertEquals(4 - admitted.size(), noFit.failedFilters().get("node(s) didn't match pod anti-affinity rules"),
                    noFit.toString());
        }
    }

    /**
     * The fitter counts other pods for a rule only once a pod with such a rule is asked about: pods placed and evicted
     * before then must count as they stand. {@code web} runs on node-1; {@code web2} (pending) is placed on node-2, then
     * {@code web} is evicted, and only then is a pod refusing app=web per hostname placed: node-1 is free of web pods.
     */
    @Test
    void podsPlacedAndEvictedBeforeAnyRuleIsAskedAboutCountAsTheyStand() {
        WorkingCluster state = WorkingCluster.index(ClusterBuilder.cluster().nodes(2, "cpu", 4)
                .barePods("ns/web").label("app", "web").pods(1, "cpu", 1).running("node-1").end()
                .barePods("ns/web2").label("app", "web").pods(1, "cpu", 1).end()
                .barePods("ns/p").placement(antiAffinity(podTerm(labels("app", "web"), HOST))).pods(1, "cpu", 1).end()
                .snapshot(), SchedulerConfig.simulatorDefault().schedulerNames(), Set.of("pods"));
        NodeFitter fitter = new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of());
        Map<String, Task> tasks = new java.util.HashMap<>();
        for (Task t : state.tasks) tasks.put(t.id(), t);
        NodeState node1 = state.nodesByName.get("node-1"), node2 = state.nodesByName.get("node-2");
        fitter.podAdded(tasks.get("ns/web2-0").pod, node2);
        assertEquals(null, fitter.best(tasks.get("ns/p-0").pod), "web on node-1 and web2 on node-2");

        NodeFitter again = new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of());
        again.podAdded(tasks.get("ns/web2-0").pod, node2);
        again.podRemoved(tasks.get("ns/web-0").pod, node1);
        assertEquals(node1, again.best(tasks.get("ns/p-0").pod), "web was evicted from node-1");
        // Its eviction undone, web is on node-1 again.
        NodeFitter undone = new NodeFitter(state, NodeFitter.Scoring.BINPACK, Map.of());
        undone.podRemoved(tasks.get("ns/web-0").pod, node1);
        undone.podAdded(tasks.get("ns/web-0").pod, node1);
        undone.podAdded(tasks.get("ns/web2-0").pod, node2);
        assertEquals(null, undone.best(tasks.get("ns/p-0").pod), "web is back on node-1");
    }

    @Test
    void anExistingPodsAntiAffinityKeepsOutThePodsItMatches() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .barePods("ns/loner").placement(antiAffinity(podTerm(labels("app", "front"), HOST))).pods(1, GPU, 1).running("node-1").end()
                .barePods("ns/theirs").schedulerName("default-scheduler").pods(1, GPU, 4).running("node-2").end()
                .barePods("ns/front").label("app", "front").pods(2, GPU, 4).end()
                .barePods("ns/back").label("app", "back").pods(1, GPU, 4).end().snapshot());
        assertEquals("node-2", Placements.placements(r).get("ns/front-0"));
        assertEquals("node-1", Placements.placements(r).get("ns/back-0"), "the term matches app=front only");
        assertTrue(Shipped.group(r.podGroups(), "ns/podgroup-front-1").reason()
                .contains("1 node(s) didn't satisfy existing pods anti-affinity rules"), Shipped.group(r.podGroups(), "ns/podgroup-front-1").reason());
    }

    @Test
    void theFirstOfASetWithAffinityToItselfStartsAnywhereAndTheRestJoinIt() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/cache").label("app", "cache").placement(affinity(podTerm(labels("app", "cache"), HOST))).pods(2, GPU, 4).end()
                .snapshot());
        assertEquals(Set.of("node-1"), nodesUsed(r));
        assertEquals(2, r.bindings().size());
    }

    @Test
    void aGangWithAntiAffinityOnHostnameSpreadsOnePodPerNode() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .job("ns/infer").label("app", "infer").placement(antiAffinity(podTerm(labels("app", "infer"), HOST)))
                .pods(4, GPU, 1).end().snapshot());
        assertEquals(4, r.bindings().size());
        assertEquals(4, nodesUsed(r).size(), "one pod per node");
    }

    @Test
    void aGangWithAntiAffinityOnHostnameLargerThanTheClusterDoesNotStart() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8)
                .job("ns/infer").label("app", "infer").placement(antiAffinity(podTerm(labels("app", "infer"), HOST)))
                .pods(5, GPU, 1).end().snapshot());
        assertTrue(r.bindings().isEmpty());
        assertEquals(new Refusal.Because(new Refusal.GangShort(5, 4), new Refusal.NoNodeFits(4,
                java.util.Map.of("node(s) didn't match pod anti-affinity rules", 4))),
                Shipped.part(Shipped.why(r, "ns/infer"), Refusal.Because.class));
    }

    static Stream<Arguments> preferred() {
        return Stream.of(
                Arguments.of("without a preference, binpack takes the first node", Placement.NONE, "node-1"),
                Arguments.of("preferred affinity draws the pod to the matching pod's node",
                        preferAffinity(10, podTerm(labels("app", "web"), HOST)), "node-2"),
                Arguments.of("preferred affinity per zone draws it into the zone", preferAffinity(10, podTerm(labels("app", "batch"),
                        "zone")), "node-3"),
                Arguments.of("preferred anti-affinity steers it out of the zone",
                        preferAntiAffinity(10, podTerm(labels("app", "web"), "zone")), "node-3"),
                Arguments.of("a preference no pod matches changes nothing", preferAffinity(10, podTerm(labels("app", "db"), HOST)),
                        "node-1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("preferred")
    void preferredPodAffinity(String name, Placement p, String chosen) {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(4, GPU, 8, "cpu", 32)
                .label("node-1", "zone", "a").label("node-2", "zone", "a").label("node-3", "zone", "b").label("node-4", "zone", "b")
                .barePods("ns/web").label("app", "web").pods(1, "cpu", 1).running("node-2").end()
                .barePods("ns/batch").label("app", "batch").pods(1, "cpu", 1).running("node-4").end()
                .barePods("ns/p").placement(p).pods(1, GPU, 1).end().snapshot());
        assertEquals(chosen, Placements.placements(r).get("ns/p-0"));
    }

    @Test
    void podsPlacedEarlierInTheCycleCount() {
        // Two separate one-pod jobs: the second's anti-affinity sees where the first went this very cycle.
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .barePods("ns/a").label("app", "x").placement(antiAffinity(podTerm(labels("app", "x"), HOST))).pods(2, GPU, 1).end()
                .snapshot());
        assertEquals(new HashSet<>(List.of("node-1", "node-2")), nodesUsed(r));
        assertEquals(Map.of("ns/a-0", "node-1", "ns/a-1", "node-2"), Placements.placements(r));
    }
}
