package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Placements.GPU;
import static dev.arbiter.engine.cycle.Placements.expr;
import static dev.arbiter.engine.cycle.Placements.placements;
import static dev.arbiter.engine.cycle.Placements.preferNodes;
import static dev.arbiter.engine.cycle.Placements.term;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code PreferNoSchedule} taints score as kube-scheduler's TaintToleration plugin scores them: they keep no pod out,
 * and a node with fewer of them that the pod does not tolerate is preferred. The cases are those of kube-scheduler's
 * {@code TestTaintTolerationScore} (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go), the
 * preferred node put last in node order so that packing alone would pick another; and one case of the weighted sum
 * with NodeAffinity (weights 3 and 2, kube-scheduler's defaults). A job of three whole-node pods places its pods one
 * after another, each on the best node left, so the order of its placements is the nodes' ranking.
 */
class TaintPreferenceTest {
    private static final String PREFER = "PreferNoSchedule";

    /** Three 8-GPU nodes; the job's pods go best node first. */
    private static ClusterBuilder nodes() {
        return ClusterBuilder.cluster().nodes(3, GPU, 8);
    }

    /** The nodes of the job's pods p-0, p-1, ...: the ranking. */
    private static List<String> ranking(CycleResult r, int pods) {
        java.util.Map<String, String> at = placements(r);
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < pods; i++) out.add(at.get("ns/p-" + i));
        return out;
    }

    @Test
    void aNodeWhoseTaintThePodToleratesIsPreferredOverOneItDoesNot() {
        // "node with taints it can tolerate get higher score": foo=bar tolerated, foo=blah not.
        CycleResult r = Shipped.cycle(nodes().taint("node-1", "foo", "blah", PREFER).taint("node-2", "foo", "bar", PREFER)
                .taint("node-3", "foo", "blah", PREFER)
                .job("ns/p").pods(1, GPU, 8).tolerate("foo", "bar", PREFER).end().snapshot());
        assertEquals(List.of("node-2"), ranking(r, 1));
    }

    @Test
    void fewerIntolerableTaintsRankHigher() {
        // "the more intolerable taints a node has, the lower score it gets": 2, 1 and 0 intolerable taints.
        CycleResult r = Shipped.cycle(nodes()
                .taint("node-1", "cpu-type", "arm64", PREFER).taint("node-1", "disk-type", "ssd", PREFER)
                .taint("node-2", "cpu-type", "arm64", PREFER)
                .job("ns/p").pods(3, GPU, 8).tolerate("foo", "bar", PREFER).end().snapshot());
        assertEquals(List.of("node-3", "node-2", "node-1"), ranking(r, 3));
    }

    @Test
    void aNoScheduleTolerationDoesNotCoverAPreferNoScheduleTaint() {
        // "only taints and tolerations that have effect PreferNoSchedule are checked by prioritize function": node-1
        // carries both taints as PreferNoSchedule, which the NoSchedule tolerations do not tolerate; node-2's
        // NoSchedule taint is tolerated (and only filters).
        CycleResult r = Shipped.cycle(nodes()
                .taint("node-1", "cpu-type", "arm64", PREFER).taint("node-1", "disk-type", "ssd", PREFER)
                .taint("node-2", "cpu-type", "arm64", "NoSchedule")
                .job("ns/p").pods(3, GPU, 8).tolerate("cpu-type", "arm64", "NoSchedule")
                .tolerate("disk-type", "ssd", "NoSchedule").end().snapshot());
        assertEquals(List.of("node-2", "node-3", "node-1"), ranking(r, 3), "node-2 and node-3 tie; the earlier goes first");
    }

    @Test
    void aPreferNoScheduleTaintNeverKeepsAPodOut() {
        // "Default behaviour No taints and tolerations": with every node tainted alike, the taints tie and packing
        // decides; a full untainted node leaves the tainted ones to the pod.
        CycleResult same = Shipped.cycle(nodes().taint("node-1", "spot", "true", PREFER).taint("node-2", "spot", "true", PREFER)
                .taint("node-3", "spot", "true", PREFER).job("ns/p").pods(3, GPU, 8).end().snapshot());
        assertEquals(List.of("node-1", "node-2", "node-3"), ranking(same, 3));
        CycleResult full = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8).taint("node-1", "spot", "true", PREFER)
                .job("ns/busy").pods(1, GPU, 8).running("node-2").end()
                .job("ns/p").pods(1, GPU, 8).end().snapshot());
        assertEquals(List.of("node-1"), ranking(full, 1), "the only node with room, tainted or not");
    }

    @Test
    void aPodThatToleratesEveryTaintIsIndifferentToThem() {
        CycleResult r = Shipped.cycle(nodes().taint("node-1", "spot", "true", PREFER)
                .job("ns/p").pods(1, GPU, 8).tolerate("spot", "true", PREFER).end().snapshot());
        assertEquals(List.of("node-1"), ranking(r, 1), "packing's choice, the earlier of equal nodes");
    }

    @Test
    void taintsOutweighPreferredNodeAffinityAsTheDefaultWeightsSay() {
        // node-1 matches the pod's preferred term (weight 10) but has two intolerable taints: NodeAffinity 2 x 100,
        // TaintToleration 3 x 0 = 200. node-2 matches nothing and is clean: 0 + 3 x 100 = 300. node-3 matches and has
        // one: 200 + 3 x 50 = 350.
        CycleResult r = Shipped.cycle(nodes().labels("node-1", "gpu", "h100").labels("node-3", "gpu", "h100")
                .taint("node-1", "spot", "true", PREFER).taint("node-1", "preemptible", "true", PREFER)
                .taint("node-3", "spot", "true", PREFER)
                .job("ns/p").pods(3, GPU, 8).placement(preferNodes(10, term(expr("gpu", "In", "h100")))).end()
                .snapshot());
        assertEquals(List.of("node-3", "node-2", "node-1"), ranking(r, 3));
    }
}
