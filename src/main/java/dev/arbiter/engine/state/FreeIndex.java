package dev.arbiter.engine.state;

import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;

/**
 * Nodes in packing order: by the free amount of one dimension (least first for binpack, most first for spread), then
 * by a tie-break fixed when the index is built (a rank per node, then the node's index).
 *
 * <p>Nodes equally free share a bucket, and a bucket holds its nodes as positions in the fixed tie-break order. Moving
 * a node when its free amount changes ({@link NodeState#take}, {@link NodeState#give}) is then a lookup among the
 * distinct free amounts, which are few on an accelerator dimension (0 to 8 GPUs), and a bit set and cleared: no
 * comparison of nodes. Plans that are tried and undone move the same nodes back and forth many times a cycle.
 */
public final class FreeIndex implements Iterable<NodeState> {
    /** A bucket keeps its positions in a sorted array up to this many, and in a bit set beyond. */
    private static final int SMALL = 8;

    final String dim;
    private final boolean mostFirst;
    /** Position (in the tie-break order) by node index; -1 for nodes not in the index. */
    private final int[] position;
    private final NodeState[] byPosition;
    private final TreeMap<Long, Bucket> buckets;
    private int modCount;

    /**
     * Files {@code nodes} (each once) by their free amount of {@code dim}; {@code rank} (by node index, or null)
     * orders equally free nodes before their index does.
     */
    public FreeIndex(String dim, boolean mostFirst, List<NodeState> nodes, int[] rank, int nodeCount) {
        this.dim = dim;
        this.mostFirst = mostFirst;
        this.buckets = mostFirst ? new TreeMap<>(java.util.Comparator.reverseOrder()) : new TreeMap<>();
        NodeState[] sorted = nodes.toArray(new NodeState[0]);
        if (rank == null) {
            Arrays.sort(sorted, (a, b) -> Integer.compare(a.index, b.index));
        } else {
            Arrays.sort(sorted, (a, b) -> a.index == b.index ? 0
                    : rank[a.index] != rank[b.index] ? Integer.compare(rank[a.index], rank[b.index])
                    : Integer.compare(a.index, b.index));
        }
        this.byPosition = sorted;
        this.position = new int[nodeCount];
        Arrays.fill(position, -1);
        for (int p = 0; p < sorted.length; p++) {
            position[sorted[p].index] = p;
            bucket(sorted[p].freeMilli(dim)).add(p, sorted.length);
        }
    }

    /** {@code n}'s free amount of this index's dimension goes from {@code from} to {@code to}. */
    void move(NodeState n, long from, long to) {
        if (from == to) return;
        int p = position[n.index];
        Bucket b = buckets.get(from);
        if (b.remove(p)) buckets.remove(from);
        bucket(to).add(p, byPosition.length);
        modCount++;
    }

    private Bucket bucket(long free) {
        Bucket b = buckets.get(free);
        if (b == null) buckets.put(free, b = new Bucket());
        return b;
    }

    /** Every node, in packing order. */
    @Override
    public Iterator<NodeState> iterator() {
        return new Walk(buckets.values().iterator());
    }

    /** The nodes with at least {@code need} free, in packing order (binpack: least free first). */
    public Iterable<NodeState> atLeast(long need) {
        if (mostFirst) throw new IllegalStateException("atLeast walks a least-free-first index");
        return () -> new Walk(buckets.tailMap(need, true).values().iterator());
    }

    /** The nodes in the order they are walked, for tests and checks. */
    List<NodeState> toList() {
        List<NodeState> out = new java.util.ArrayList<>(byPosition.length);
        for (NodeState n : this) out.add(n);
        return out;
    }

    /** Which free amount each node is filed under, for checks. */
    Map<NodeState, Long> filed() {
        Map<NodeState, Long> out = new java.util.IdentityHashMap<>();
        buckets.forEach((free, b) -> {
            for (int i = b.next(-1); i >= 0; i = b.next(i)) out.put(byPosition[i], free);
        });
        return out;
    }

    /** Positions of equally free nodes: a sorted array while few, a bit set of every position beyond. */
    private static final class Bucket {
        private int count;
        private int[] small = new int[2];
        private long[] bits;

        void add(int p, int positions) {
            if (bits == null && count == SMALL) {
                bits = new long[(positions + 63) >>> 6];
                for (int i = 0; i < count; i++) bits[small[i] >>> 6] |= 1L << small[i];
                small = null;
            }
            if (bits != null) {
                bits[p >>> 6] |= 1L << p;
            } else {
                int at = Arrays.binarySearch(small, 0, count, p);
                at = -at - 1;
                if (count == small.length) small = Arrays.copyOf(small, Math.min(SMALL, count * 2));
                System.arraycopy(small, at, small, at + 1, count - at);
                small[at] = p;
            }
            count++;
        }

        /** Removes {@code p}; true when the bucket is left empty. */
        boolean remove(int p) {
            if (bits != null) {
                bits[p >>> 6] &= ~(1L << p);
            } else {
                int at = Arrays.binarySearch(small, 0, count, p);
                System.arraycopy(small, at + 1, small, at, count - at - 1);
            }
            return --count == 0;
        }

        /** The first position after {@code p} (-1 for the first of all), or -1 when none. */
        int next(int p) {
            if (bits == null) {
                if (count == 0) return -1;
                int at = 0;
                while (at < count && small[at] <= p) at++;
                return at < count ? small[at] : -1;
            }
            int from = p + 1;
            int w = from >>> 6;
            if (w >= bits.length) return -1;
            long word = bits[w] & (-1L << from);
            while (true) {
                if (word != 0) return (w << 6) + Long.numberOfTrailingZeros(word);
                if (++w == bits.length) return -1;
                word = bits[w];
            }
        }
    }

    private final class Walk implements Iterator<NodeState> {
        private final Iterator<Bucket> rest;
        private final int expected = modCount;
        private Bucket bucket;
        private int at = -1;

        Walk(Iterator<Bucket> rest) {
            this.rest = rest;
            advance();
        }

        private void advance() {
            if (bucket != null) at = bucket.next(at);
            while (bucket == null || at < 0) {
                if (!rest.hasNext()) {
                    bucket = null;
                    return;
                }
                bucket = rest.next();
                at = bucket.next(-1);
            }
        }

        @Override
        public boolean hasNext() {
            return bucket != null;
        }

        @Override
        public NodeState next() {
            if (modCount != expected) throw new ConcurrentModificationException();
            if (bucket == null) throw new NoSuchElementException();
            NodeState n = byPosition[at];
            advance();
            return n;
        }
    }
}
