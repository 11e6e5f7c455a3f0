package dev.arbiter.manifest;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Notices about the state the manifests start in that an API server would accept but that is probably not what was
 * meant: a pod bound to a node no manifest defines (it holds nothing anywhere), and a node whose bound pods already
 * request more than it has (the simulator leaves such a node as it is and places nothing more there). A pod that
 * Succeeded or Failed holds nothing, as on a cluster.
 */
final class StartingState {
    private StartingState() {}

    /** {@code firstSeenAt}: "Kind id" → "file:line", for where a pod was read (absent for expanded pods). */
    static List<String> notices(List<NodeSpec> nodes, List<PodSpec> pods, Map<String, String> firstSeenAt) {
        Map<String, NodeSpec> byName = new LinkedHashMap<>();
        for (NodeSpec n : nodes) byName.put(n.name(), n);
        List<String> out = new ArrayList<>();
        Map<String, Resources> used = new TreeMap<>();
        for (PodSpec p : pods) {
            if (!p.isBound() || p.finished()) continue;
            if (!byName.containsKey(p.nodeName())) {
                String at = firstSeenAt.get("Pod " + p.key());
                out.add((at == null ? "" : at + ": ") + "Pod " + p.key() + ": spec.nodeName: node \"" + p.nodeName()
                        + "\" is not in the manifests; the pod is bound there and holds nothing on any node that is");
                continue;
            }
            used.merge(p.nodeName(), p.requests(), Resources::add);
        }
        for (Map.Entry<String, Resources> e : used.entrySet()) {
            NodeSpec n = byName.get(e.getKey());
            Resources over = e.getValue().shortfall(n.allocatable());
            if (over.isEmpty()) continue;
            String at = firstSeenAt.get("Node " + n.name());
            out.add((at == null ? "" : at + ": ") + "Node " + n.name() + ": its bound pods already request more than it has ("
                    + describe(e.getValue(), n.allocatable(), over) + "); the simulator leaves it over capacity and places"
                    + " nothing more there");
        }
        return out;
    }

    /** e.g. {@code cpu 12 of 8, nvidia.com/gpu 16 of 8}. */
    private static String describe(Resources requested, Resources allocatable, Resources over) {
        List<String> parts = new ArrayList<>();
        for (String dim : over.asMilliMap().keySet()) {
            parts.add(dim + " " + Quantity.human(dim, requested.milli(dim)) + " of " + Quantity.human(dim, allocatable.milli(dim)));
        }
        return String.join(", ", parts);
    }
}
