package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.NodeState;

import dev.arbiter.model.Resources;
import java.util.BitSet;
import java.util.List;

/**
 * Which of a request's dimensions each eligible node of a static class lacks. Kept across cycles with the statics
 * (the pod shapes that fit nowhere are mostly the same from cycle to cycle), and brought up to date, when next
 * asked, on the nodes whose free capacity changed since ({@link NodeState#changes}): counting every eligible node
 * afresh for every such shape, every cycle, was a tenth of a steady cycle at 10k nodes.
 */
final class Shortfalls {
    /** A mask has a bit per dimension of the request. */
    static final int MOST_DIMENSIONS = 31;
    private final Resources req;
    /** The eligible nodes' indexes, ascending. */
    private final int[] nodes;
    /** Per eligible node: its change count when its mask was worked out, and the mask (bit d: lacks dimension d). */
    private final int[] seen, mask;
    /** Per dimension of the request: how many eligible nodes lack it. */
    final int[] lacking;

    Shortfalls(Resources req, BitSet eligible, List<NodeState> all) {
        this.req = req;
        this.nodes = eligible.stream().toArray();
        this.seen = new int[nodes.length];
        this.mask = new int[nodes.length];
        this.lacking = new int[req.size()];
        for (int k = 0; k < nodes.length; k++) {
            NodeState n = all.get(nodes[k]);
            seen[k] = n.changes();
            count(mask[k] = maskOf(n), 1);
        }
    }

    /** Works the masks out again on the nodes that changed since they were last worked out. */
    Shortfalls refresh(List<NodeState> all) {
        for (int k = 0; k < nodes.length; k++) {
            NodeState n = all.get(nodes[k]);
            if (n.changes() == seen[k]) continue;
            seen[k] = n.changes();
            int m = maskOf(n);
            if (m == mask[k]) continue;
            count(mask[k], -1);
            count(mask[k] = m, 1);
        }
        return this;
    }

    private int maskOf(NodeState n) {
        int m = 0;
        Resources free = n.free();
        for (int d = 0; d < req.size(); d++) {
            long want = req.milliAt(d);
            if (want > 0 && want > free.milli(req.name(d))) m |= 1 << d;
        }
        return m;
    }

    private void count(int m, int by) {
        for (; m != 0; m &= m - 1) lacking[Integer.numberOfTrailingZeros(m)] += by;
    }

    /** The eligible nodes that lack nothing, ascending. */
    int[] withRoom() {
        int rooms = 0;
        for (int m : mask) if (m == 0) rooms++;
        int[] out = new int[rooms];
        rooms = 0;
        for (int k = 0; k < nodes.length; k++) if (mask[k] == 0) out[rooms++] = nodes[k];
        return out;
    }
}
