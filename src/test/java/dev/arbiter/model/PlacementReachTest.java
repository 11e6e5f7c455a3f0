package dev.arbiter.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Placement#indifferentTo}: which pods coming back, where, can break a held pod's fit. */
class PlacementReachTest {
    private static NodeSpec node(String name, String zone) {
        return new NodeSpec(name, Map.of("kubernetes.io/hostname", name, "zone", zone), List.of(), false,
                Resources.of("cpu", 8), 0);
    }

    private static PodSpec pod(String app) {
        return new PodSpec("ns", "p-" + app, "volcano", "a", "Running", null, null, null, Resources.of("cpu", 1), Map.of(),
                List.of(), Map.of("app", app), Map.of(), 0, 0, false);
    }

    private static Placement antiAffinityBy(String key) {
        Placement.PodAffinity anti = new Placement.PodAffinity(
                List.of(new Placement.PodAffinityTerm(LabelSelector.of(Map.of("app", "x")), List.of(), null, key)), List.of());
        return new Placement(Placement.NodeAffinity.NONE, Placement.PodAffinity.NONE, anti, List.of(), List.of(),
                List.of(), List.of());
    }

    @Test
    void anAntiAffinityTermReachesThePodsItSelectsInItsTopologyDomainOnly() {
        NodeSpec a = node("a", "z1"), b = node("b", "z1"), c = node("c", "z2");
        PodSpec x = pod("x"), y = pod("y");
        assertTrue(antiAffinityBy("kubernetes.io/hostname").indifferentTo(a, b, x), "another node");
        assertFalse(antiAffinityBy("kubernetes.io/hostname").indifferentTo(a, a, x), "its own node");
        assertTrue(antiAffinityBy("kubernetes.io/hostname").indifferentTo(a, a, y), "a pod it does not select");
        assertFalse(antiAffinityBy("zone").indifferentTo(a, b, x), "the same zone");
        assertTrue(antiAffinityBy("zone").indifferentTo(a, c, x));
        assertFalse(antiAffinityBy("rack").indifferentTo(a, c, x), "a key its node lacks: assume it reaches");
        assertTrue(Placement.NONE.indifferentTo(a, a, x), "no rules");
    }
}
