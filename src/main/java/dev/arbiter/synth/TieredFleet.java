package dev.arbiter.synth;

import dev.arbiter.model.HyperNodeSpec;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fleet in network tiers: blocks of racks of nodes, in node order (node {@code i} is in rack {@code i / rackSize},
 * racks {@code r} in block {@code r / blockSize}). The tiers are stated either as node labels ({@value #BLOCK} and
 * {@value #RACK}, for the policy's {@code topology.levels}) or as Volcano HyperNodes (racks of tier 1 naming their
 * nodes, blocks of tier 2 naming their racks), or both.
 */
public final class TieredFleet {
    public static final String BLOCK = "topology.arbiter.dev/block";
    public static final String RACK = "topology.arbiter.dev/rack";

    /** How the tiers are stated. */
    public enum Source { LABELS, HYPERNODES, BOTH }

    private TieredFleet() {}

    /** {@code m} with its nodes in tiers of {@code rackSize} nodes per rack and {@code blockSize} racks per block. */
    public static Manifests tiered(Manifests m, int rackSize, int blockSize, Source source) {
        if (rackSize < 1 || blockSize < 1) throw new IllegalArgumentException("rack and block sizes must be at least 1");
        List<NodeSpec> nodes = new ArrayList<>();
        Map<String, List<String>> racks = new LinkedHashMap<>();
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        for (int i = 0; i < m.nodes().size(); i++) {
            NodeSpec n = m.nodes().get(i);
            String rack = rackName(i / rackSize, blockSize);
            String block = blockName(i / rackSize / blockSize);
            racks.computeIfAbsent(rack, k -> new ArrayList<>()).add(n.name());
            List<String> inBlock = blocks.computeIfAbsent(block, k -> new ArrayList<>());
            if (!inBlock.contains(rack)) inBlock.add(rack);
            if (source == Source.HYPERNODES) {
                nodes.add(n);
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>(n.labels());
            labels.put(BLOCK, block);
            labels.put(RACK, rack);
            nodes.add(new NodeSpec(n.name(), labels, n.taints(), n.unschedulable(), n.allocatable(), n.arrivalCycle()));
        }
        List<HyperNodeSpec> hyperNodes = new ArrayList<>(m.hyperNodes());
        if (source != Source.LABELS) {
            racks.forEach((name, members) -> hyperNodes.add(new HyperNodeSpec(name, 1, exact(HyperNodeSpec.MemberType.NODE, members))));
            blocks.forEach((name, members) -> hyperNodes.add(new HyperNodeSpec(name, 2, exact(HyperNodeSpec.MemberType.HYPER_NODE, members))));
        }
        return new Manifests(nodes, m.pods(), m.podGroups(), m.queues(), m.priorityClasses(), m.notices(),
                m.namespaceLabels(), hyperNodes);
    }

    /** e.g. {@code b02-r05}: the sixth rack of the third block (rack names are unique across blocks). */
    public static String rackName(int rack, int blockSize) {
        return String.format("%s-r%02d", blockName(rack / blockSize), rack % blockSize);
    }

    public static String blockName(int block) {
        return String.format("b%02d", block);
    }

    private static List<HyperNodeSpec.Member> exact(HyperNodeSpec.MemberType type, List<String> names) {
        List<HyperNodeSpec.Member> out = new ArrayList<>();
        for (String n : names) out.add(new HyperNodeSpec.Member(type, n, null, null));
        return out;
    }
}
