package dev.arbiter.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Placement#indifferentTo}: which nodes a held pod's rules about other pods reach. */
class PlacementReachTest {
    private static NodeSpec node(String name, String zone) {
        return new NodeSpec(name, Map.of("kubernetes.io/hostname", name, "zone", zone), List.of(), false,
                Resources.of("cpu", 8), 0);
    }

    private static Placement antiAffinityBy(String key) {
        Placement.PodAffinity anti = new Placement.PodAffinity(
                List.of(new Placement.PodAffinityTerm(LabelSelector.of(Map.of("app", "x")), List.of(), null, key)), List.of());
        return new Placement(Placement.NodeAffinity.NONE, Placement.PodAffinity.NONE, anti, List.of(), List.of(),
                List.of(), List.of());
    }

    @Test
    void aTermReachesTheNodesOfItsTopologyDomainOnly() {
        NodeSpec a = node("a", "z1"), b = node("b", "z1"), c = node("c", "z2");
        assertTrue(antiAffinityBy("kubernetes.io/hostname").indifferentTo(a, b));
        assertFalse(antiAffinityBy("kubernetes.io/hostname").indifferentTo(a, a), "its own node");
        assertFalse(antiAffinityBy("zone").indifferentTo(a, b), "the same zone");
        assertTrue(antiAffinityBy("zone").indifferentTo(a, c));
        assertFalse(antiAffinityBy("rack").indifferentTo(a, c), "a key its node lacks: assume it reaches");
        assertTrue(Placement.NONE.indifferentTo(a, a), "no rules");
    }
}
