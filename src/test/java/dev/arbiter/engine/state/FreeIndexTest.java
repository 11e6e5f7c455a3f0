package dev.arbiter.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.UseType;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The node fitter's packing order: the index moves a node among its buckets of equally free nodes as its free
 * capacity changes, and must always walk the nodes exactly as sorting them afresh would.
 */
class FreeIndexTest {
    private static final String GPU = "nvidia.com/gpu";

    /** A take or give of {@code gpus} GPUs and {@code cpus} cores on the node at {@code node} (modulo the count). */
    public record Step(@IntRange(min = 0, max = 400) int node, @IntRange(min = 0, max = 8) int gpus,
                @IntRange(min = 0, max = 16) int cpus, boolean take) {}

    @Property(tries = 300)
    void walksTheNodesAsASortWould(@ForAll @IntRange(min = 1, max = 300) int count,
                                   @ForAll @Size(max = 120) List<@IntRange(min = 0, max = 3) Integer> ranks,
                                   @ForAll boolean ranked, @ForAll boolean mostFirst,
                                   @ForAll @Size(max = 300) List<@UseType Step> steps,
                                   @ForAll @IntRange(min = 0, max = 9) int need) {
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            nodes.add(new NodeState(new NodeSpec("n" + i, Map.of(), List.of(), false,
                    Resources.of(GPU, i % 9, "cpu", 8 + i % 5), 0), i));
        }
        int[] rank = null;
        if (ranked) {
            rank = new int[count];
            for (int i = 0; i < count; i++) rank[i] = i < ranks.size() ? ranks.get(i) : 0;
        }
        // Every other node, in a scrambled order: the index files the nodes it is given, in its own order.
        List<NodeState> members = new ArrayList<>();
        for (int i = count - 1; i >= 0; i -= 2) members.add(nodes.get(i));
        FreeIndex byGpu = new FreeIndex(GPU, mostFirst, members, rank, count);
        FreeIndex byCpu = new FreeIndex("cpu", mostFirst, members, rank, count);
        for (NodeState n : members) {
            n.indexedIn(byGpu);
            n.indexedInKept(byCpu);
        }
        check(byGpu, members, rank, mostFirst, need);
        check(byCpu, members, rank, mostFirst, need);
        for (Step s : steps) {
            NodeState n = nodes.get(s.node() % count);
            Resources r = Resources.of(GPU, s.gpus(), "cpu", s.cpus());
            if (s.take()) n.take(r);
            else n.give(r);
            check(byGpu, members, rank, mostFirst, need);
            check(byCpu, members, rank, mostFirst, need);
        }
    }

    private static void check(FreeIndex index, List<NodeState> members, int[] rank, boolean mostFirst, int need) {
        Comparator<NodeState> byFree = Comparator.comparingLong(n -> n.free().milli(index.dim));
        if (mostFirst) byFree = byFree.reversed();
        if (rank != null) byFree = byFree.thenComparingInt(n -> rank[n.index]);
        List<NodeState> expected = new ArrayList<>(members);
        expected.sort(byFree.thenComparingInt(n -> n.index));
        assertEquals(names(expected), names(index.toList()));
        for (NodeState n : members) assertEquals(n.free().milli(index.dim), index.filed().get(n), n.name());
        if (!mostFirst) {
            long milli = need * 1000L;
            List<NodeState> enough = expected.stream().filter(n -> n.free().milli(index.dim) >= milli).toList();
            List<NodeState> walked = new ArrayList<>();
            index.atLeast(milli).forEach(walked::add);
            assertEquals(names(enough), names(walked));
        }
    }

    private static List<String> names(List<NodeState> nodes) {
        return nodes.stream().map(NodeState::name).toList();
    }

    @Test
    void aWalkFailsWhenANodeMovesUnderIt() {
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            nodes.add(new NodeState(new NodeSpec("n" + i, Map.of(), List.of(), false, Resources.of(GPU, 8), 0), i));
        }
        FreeIndex index = new FreeIndex(GPU, false, nodes, null, 3);
        nodes.forEach(n -> n.indexedIn(index));
        var walk = index.iterator();
        walk.next();
        nodes.get(2).take(Resources.of(GPU, 1));
        assertThrows(ConcurrentModificationException.class, walk::next);
    }
}
