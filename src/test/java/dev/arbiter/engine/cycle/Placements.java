package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.model.Placement.NodeAffinity;
import dev.arbiter.model.Placement.NodeRequirement;
import dev.arbiter.model.Placement.NodeSelectorTerm;
import dev.arbiter.model.Placement.PodAffinity;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.model.Placement.WeightedNodeTerm;
import dev.arbiter.model.Placement.WeightedPodAffinityTerm;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Tiny builders for placement constraints, shared by the constraint tables. */
final class Placements {
    static final String GPU = "nvidia.com/gpu";
    static final String HOST = "kubernetes.io/hostname";

    private Placements() {}

    static NodeRequirement expr(String key, String op, String... values) {
        return new NodeRequirement(key, op, List.of(values));
    }

    static NodeRequirement field(String op, String... names) {
        return new NodeRequirement("metadata.name", op, List.of(names));
    }

    static NodeSelectorTerm term(NodeRequirement... expressions) {
        return NodeSelectorTerm.of(expressions);
    }

    /** Required node affinity: the terms ORed. */
    static Placement requireNodes(NodeSelectorTerm... terms) {
        return Placement.NONE.withNodeAffinity(new NodeAffinity(List.of(terms), List.of()));
    }

    static Placement preferNodes(int weight, NodeSelectorTerm term) {
        return Placement.NONE.withNodeAffinity(new NodeAffinity(null, List.of(new WeightedNodeTerm(weight, term))));
    }

    static LabelSelector labels(String... keyValues) {
        java.util.LinkedHashMap<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) m.put(keyValues[i], keyValues[i + 1]);
        return LabelSelector.of(m);
    }

    static LabelSelector expression(String key, String op, String... values) {
        return new LabelSelector(Map.of(), List.of(new LabelSelector.Requirement(key, op, List.of(values))));
    }

    static PodAffinityTerm podTerm(LabelSelector selector, String topologyKey) {
        return PodAffinityTerm.of(selector, topologyKey);
    }

    static Placement affinity(PodAffinityTerm... required) {
        return Placement.NONE.withPodAffinity(new PodAffinity(List.of(required), List.of()));
    }

    static Placement antiAffinity(PodAffinityTerm... required) {
        return Placement.NONE.withPodAntiAffinity(new PodAffinity(List.of(required), List.of()));
    }

    static Placement preferAffinity(int weight, PodAffinityTerm term) {
        return Placement.NONE.withPodAffinity(new PodAffinity(List.of(), List.of(new WeightedPodAffinityTerm(weight, term))));
    }

    static Placement preferAntiAffinity(int weight, PodAffinityTerm term) {
        return Placement.NONE.withPodAntiAffinity(new PodAffinity(List.of(), List.of(new WeightedPodAffinityTerm(weight, term))));
    }

    static SpreadConstraint spread(int maxSkew, String key, LabelSelector selector) {
        return new SpreadConstraint(maxSkew, key, true, selector, 1, true, false);
    }

    static Placement spreading(SpreadConstraint... constraints) {
        return Placement.NONE.withSpread(List.of(constraints));
    }

    static Placement ports(HostPort... ports) {
        return Placement.NONE.withHostPorts(List.of(ports));
    }

    static HostPort port(int port) {
        return new HostPort("TCP", "", port);
    }

    /** The nodes the cycle bound pods to. */
    static Set<String> nodesUsed(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (Binding b : r.bindings()) out.add(b.node());
        return out;
    }

    /** The node each bound pod went to, by pod key. */
    static Map<String, String> placements(CycleResult r) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (Binding b : r.bindings()) out.put(b.pod(), b.node());
        return out;
    }
}
