package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.NodeState;

import dev.arbiter.model.Placement.NodeRequirement;
import dev.arbiter.model.Placement.NodeSelectorTerm;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Nodes by label, as bit sets over node indexes: for each label key the nodes that carry it, and for each (key, value)
 * the nodes with that value. A node selector term becomes unions and intersections of these sets, so the nodes a
 * node-affinity class admits cost a few set operations per requirement instead of a pass over every node per term.
 *
 * <p>Example: {@code gpu In [h100, h200]} is {@code byValue[gpu][h100] | byValue[gpu][h200]}; {@code gpu NotIn [a100]}
 * is every node but {@code byValue[gpu][a100]} (a node without the label passes NotIn); {@code gpu DoesNotExist} is every
 * node but {@code withKey[gpu]}. Sets handed out are copies: callers may change them.
 */
final class LabelIndex {
    private final List<NodeState> nodes;
    private final BitSet all;
    /** Per label key, the nodes with each value; a key is indexed when first asked about. */
    private final Map<String, Map<String, BitSet>> byValue = new HashMap<>();
    /** Per label key, the nodes that carry it; likewise. */
    private final Map<String, BitSet> withKey = new HashMap<>();
    private final Map<String, Integer> byName = new HashMap<>();

    LabelIndex(List<NodeState> nodes) {
        this.nodes = nodes;
        this.all = new BitSet(nodes.size());
        all.set(0, nodes.size());
        for (NodeState n : nodes) byName.put(n.name(), n.index);
    }

    /**
     * The nodes with each value of {@code key}. Worked out on first use: a cycle asks about a few keys, and indexing
     * every label of every node (a set per hostname, for one) each cycle would cost more than the passes it saves.
     */
    private Map<String, BitSet> valuesOf(String key) {
        Map<String, BitSet> values = byValue.get(key);
        if (values == null) {
            values = new HashMap<>();
            for (NodeState n : nodes) {
                String v = n.spec.labels().get(key);
                // Sized for the first node with the value (often the only one, like a hostname); grows if it must.
                if (v != null) values.computeIfAbsent(v, x -> new BitSet(n.index + 1)).set(n.index);
            }
            byValue.put(key, values);
        }
        return values;
    }

    private BitSet nodesWithKey(String key) {
        BitSet with = withKey.get(key);
        if (with == null) {
            with = new BitSet(nodes.size());
            for (NodeState n : nodes) if (n.spec.labels().containsKey(key)) with.set(n.index);
            withKey.put(key, with);
        }
        return with;
    }

    /** Every node. */
    BitSet all() {
        return (BitSet) all.clone();
    }

    /** The nodes that carry label {@code key}. */
    BitSet withKey(String key) {
        return (BitSet) nodesWithKey(key).clone();
    }

    /** The nodes whose labels include every entry of {@code selector} (a nodeSelector). */
    BitSet matchingLabels(Map<String, String> selector) {
        BitSet out = all();
        for (Map.Entry<String, String> e : selector.entrySet()) out.and(valueSet(e.getKey(), e.getValue()));
        return out;
    }

    /** The nodes matching any of the terms (node affinity's required terms are ORed). */
    BitSet matchingAny(List<NodeSelectorTerm> terms) {
        BitSet out = new BitSet();
        for (NodeSelectorTerm t : terms) out.or(matching(t));
        return out;
    }

    /** The nodes matching every requirement of the term; an empty term matches none. */
    BitSet matching(NodeSelectorTerm term) {
        if (term.matchExpressions().isEmpty() && term.matchFields().isEmpty()) return new BitSet();
        BitSet out = all();
        for (NodeRequirement r : term.matchExpressions()) out.and(matchingLabel(r));
        for (NodeRequirement r : term.matchFields()) out.and(matchingName(r));
        return out;
    }

    private BitSet matchingLabel(NodeRequirement r) {
        switch (r.operator()) {
            case "In": {
                BitSet b = new BitSet();
                for (String v : r.values()) b.or(valueSet(r.key(), v));
                return b;
            }
            case "NotIn": {
                BitSet b = all();
                for (String v : r.values()) b.andNot(valueSet(r.key(), v));
                return b;
            }
            case "Exists":
                return withKey(r.key());
            case "DoesNotExist": {
                BitSet b = all();
                b.andNot(withKey(r.key()));
                return b;
            }
            case "Gt":
            case "Lt": {
                BitSet b = new BitSet();
                Long bound = r.values().isEmpty() ? null : NodeRequirement.integer(r.values().get(0));
                if (bound == null) return b;
                for (Map.Entry<String, BitSet> e : valuesOf(r.key()).entrySet()) {
                    Long v = NodeRequirement.integer(e.getKey());
                    if (v != null && (r.operator().equals("Gt") ? v > bound : v < bound)) b.or(e.getValue());
                }
                return b;
            }
            default:
                return new BitSet();
        }
    }

    /** {@code matchFields} on {@code metadata.name}: In or NotIn node names. */
    private BitSet matchingName(NodeRequirement r) {
        BitSet named = new BitSet();
        if (r.key().equals("metadata.name")) {
            for (String v : r.values()) {
                Integer i = byName.get(v);
                if (i != null) named.set(i);
            }
        }
        return switch (r.operator()) {
            case "In" -> r.key().equals("metadata.name") ? named : new BitSet();
            case "NotIn" -> {
                BitSet b = all();
                if (r.key().equals("metadata.name")) b.andNot(named);
                yield b;
            }
            default -> new BitSet();
        };
    }

    private BitSet valueSet(String key, String value) {
        BitSet b = valuesOf(key).get(value);
        return b == null ? new BitSet() : b;
    }

    int size() {
        return nodes.size();
    }
}
