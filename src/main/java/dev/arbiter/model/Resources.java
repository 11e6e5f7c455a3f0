package dev.arbiter.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An immutable vector of resource amounts — milli-units, or whole bytes for byte-valued resources (see
 * {@link Quantity#parseAmount}) — one dimension per resource name ({@code cpu},
 * {@code memory}, {@code pods}, {@code nvidia.com/gpu}, ...). A dimension that is absent is zero.
 *
 * <p>Stored as parallel sorted arrays so that the arithmetic in the placement loop is a merge walk without hashing.
 * Zero-valued dimensions are dropped, so two vectors are {@link #equals} exactly when every dimension is equal.
 * Sums saturate at the limits of a {@code long} instead of wrapping round, so absurd quantities never turn negative.
 */
public final class Resources {
    public static final Resources NONE = new Resources(new String[0], new long[0]);

    private final String[] names;
    private final long[] values;
    private int hash;

    private Resources(String[] names, long[] values) {
        this.names = names;
        this.values = values;
    }

    /** Builds from a map of resource name to milli-units. */
    public static Resources ofMilli(Map<String, Long> milli) {
        TreeMap<String, Long> sorted = new TreeMap<>();
        milli.forEach((k, v) -> {
            if (v != null && v != 0) sorted.put(k.intern(), v);
        });
        String[] n = new String[sorted.size()];
        long[] v = new long[sorted.size()];
        int i = 0;
        for (Map.Entry<String, Long> e : sorted.entrySet()) {
            n[i] = e.getKey();
            v[i++] = e.getValue();
        }
        return new Resources(n, v);
    }

    /** Builds from quantity strings, e.g. {@code parse(Map.of("cpu", "500m", "nvidia.com/gpu", "8"))}. */
    public static Resources parse(Map<String, ?> quantities) {
        TreeMap<String, Long> milli = new TreeMap<>();
        quantities.forEach((k, v) -> milli.put(k, Quantity.parseAmount(k, v)));
        return ofMilli(milli);
    }

    /** Convenience for tests and generators: alternating name, whole-unit amount pairs. */
    public static Resources of(Object... nameAmount) {
        TreeMap<String, Long> milli = new TreeMap<>();
        for (int i = 0; i < nameAmount.length; i += 2) {
            milli.put((String) nameAmount[i], Quantity.parseAmount((String) nameAmount[i], nameAmount[i + 1]));
        }
        return ofMilli(milli);
    }

    public long milli(String name) {
        // Names are interned when built, and callers mostly ask with another Resources' name or a literal: an identity
        // scan of the few dimensions finds those without comparing characters.
        String[] n = names;
        for (int i = 0; i < n.length; i++) if (n[i] == name) return values[i];
        // Absent, or asked with a copy: a vector has a handful of dimensions, and equals turns most names away by
        // their length alone, sooner than a binary search compares them.
        if (n.length > 8) {
            int i = Arrays.binarySearch(n, name);
            return i >= 0 ? values[i] : 0L;
        }
        for (int i = 0; i < n.length; i++) if (n[i].equals(name)) return values[i];
        return 0L;
    }

    /**
     * {@link #milli} of a dimension named by a vector ({@code other.name(i)}): every vector's names are interned when
     * built, so an identity scan finds it or settles that it is absent (e.g. a node's free GPUs, none left) without
     * comparing characters. Only for such names: a name from anywhere else may not be found here; ask {@link #milli}.
     */
    public long milliInterned(String vectorName) {
        String[] n = names;
        for (int i = 0; i < n.length; i++) if (n[i] == vectorName) return values[i];
        return 0L;
    }

    public boolean isEmpty() {
        return names.length == 0;
    }

    public int size() {
        return names.length;
    }

    public String name(int i) {
        return names[i];
    }

    public long milliAt(int i) {
        return values[i];
    }

    public Resources add(Resources o) {
        return combine(o, 1);
    }

    public Resources subtract(Resources o) {
        return combine(o, -1);
    }

    private Resources combine(Resources o, int sign) {
        if (o.isEmpty()) return this;
        if (isEmpty() && sign == 1) return o;
        String[] n = new String[names.length + o.names.length];
        long[] v = new long[n.length];
        int i = 0, j = 0, k = 0;
        while (i < names.length || j < o.names.length) {
            int c = i == names.length ? 1 : j == o.names.length ? -1
                    : names[i] == o.names[j] ? 0 : names[i].compareTo(o.names[j]);
            long val;
            String name;
            if (c < 0) { name = names[i]; val = values[i++]; }
            else if (c > 0) { name = o.names[j]; val = sign == 1 ? o.values[j++] : negate(o.values[j++]); }
            else { name = names[i]; val = sign == 1 ? addSaturated(values[i++], o.values[j++]) : addSaturated(values[i++], negate(o.values[j++])); }
            if (val != 0) { n[k] = name; v[k++] = val; }
        }
        return new Resources(Arrays.copyOf(n, k), Arrays.copyOf(v, k));
    }

    /** {@code a + b}, held at {@link Long#MAX_VALUE} or {@link Long#MIN_VALUE} instead of wrapping round. */
    public static long addSaturated(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        return r;
    }

    /** {@code a - b}, saturated as {@link #subtract} does it per dimension. */
    public static long subtractSaturated(long a, long b) {
        return addSaturated(a, negate(b));
    }

    private static long negate(long v) {
        return v == Long.MIN_VALUE ? Long.MAX_VALUE : -v;
    }

    /** Every dimension of this is at most the same dimension of {@code o} (absent = 0). */
    public boolean fitsIn(Resources o) {
        int j = 0;
        for (int i = 0; i < names.length; i++) {
            if (values[i] <= 0) continue;
            while (j < o.names.length && o.names[j].compareTo(names[i]) < 0) j++;
            long avail = (j < o.names.length && o.names[j].equals(names[i])) ? o.values[j] : 0L;
            if (values[i] > avail) return false;
        }
        return true;
    }

    /** The dimensions of this that exceed {@code available}, with the missing amount, e.g. {@code {nvidia.com/gpu=8000}}. */
    public Resources shortfall(Resources available) {
        TreeMap<String, Long> missing = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            long gap = addSaturated(values[i], negate(available.milli(names[i])));
            if (gap > 0) missing.put(names[i], gap);
        }
        return ofMilli(missing);
    }

    /** Per-dimension minimum over the dimensions of this; a dimension absent in {@code cap} is not capped. */
    public Resources capBy(Resources cap) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            int j = Arrays.binarySearch(cap.names, names[i]);
            out.put(names[i], j >= 0 ? Math.min(values[i], cap.values[j]) : values[i]);
        }
        return ofMilli(out);
    }

    /** Per-dimension minimum over the union of dimensions (absent = 0). */
    public Resources min(Resources o) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < names.length; i++) out.put(names[i], Math.min(values[i], o.milli(names[i])));
        for (int j = 0; j < o.names.length; j++) out.putIfAbsent(o.names[j], Math.min(0, o.values[j]));
        return ofMilli(out);
    }

    /** Per-dimension maximum over the union of dimensions (absent = 0). */
    public Resources max(Resources o) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < names.length; i++) out.put(names[i], Math.max(values[i], o.milli(names[i])));
        for (int j = 0; j < o.names.length; j++) out.merge(o.names[j], Math.max(0, o.values[j]), Math::max);
        return ofMilli(out);
    }

    /** This without the named dimensions. */
    public Resources without(java.util.Set<String> dims) {
        Without last = lastWithout;
        if (last != null && (last.dims == dims || last.dims.equals(dims))) return last.result;
        Resources r = this;
        for (String d : dims) r = r.without(d);
        lastWithout = new Without(Set.copyOf(dims), r);
        return r;
    }

    /**
     * The last {@link #without(java.util.Set)} asked of this vector, and its answer. A pod's share of queues is its
     * request without the same ignored dimensions every cycle, and a pod's request is the same object for as long as
     * the pod is unchanged: the share is worked out once per pod, not once per pod per cycle. Both parts are
     * immutable, so a racing reader sees either no memo or a whole one.
     */
    private record Without(Set<String> dims, Resources result) {}

    private Without lastWithout;

    /** This without one dimension. */
    public Resources without(String dim) {
        int i = Arrays.binarySearch(names, dim);
        if (i < 0) return this;
        String[] n = new String[names.length - 1];
        long[] v = new long[names.length - 1];
        System.arraycopy(names, 0, n, 0, i);
        System.arraycopy(names, i + 1, n, i, names.length - i - 1);
        System.arraycopy(values, 0, v, 0, i);
        System.arraycopy(values, i + 1, v, i, values.length - i - 1);
        return new Resources(n, v);
    }

    /** Whether some dimension is below zero (a node holding more than it has). */
    public boolean anyNegative() {
        for (long v : values) if (v < 0) return true;
        return false;
    }

    /** Drops negative dimensions. */
    public Resources clampNonNegative() {
        int kept = 0;
        for (long v : values) if (v > 0) kept++;
        if (kept == values.length) return this;
        String[] n = new String[kept];
        long[] v = new long[kept];
        for (int i = 0, k = 0; i < names.length; i++) {
            if (values[i] > 0) {
                n[k] = names[i];
                v[k++] = values[i];
            }
        }
        return new Resources(n, v);
    }

    /** Every dimension scaled by {@code num/den}, rounded down to a milli-unit. */
    public Resources scale(long num, long den) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            out.put(names[i], Math.multiplyHigh(values[i], num) == 0 && values[i] >= 0
                    ? values[i] * num / den
                    : java.math.BigInteger.valueOf(values[i]).multiply(java.math.BigInteger.valueOf(num))
                        .divide(java.math.BigInteger.valueOf(den)).longValue());
        }
        return ofMilli(out);
    }

    /** Keeps only the named dimensions of this that {@code mask} has non-zero. */
    public Resources onlyDimensionsOf(Resources mask) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < names.length; i++) if (mask.milli(names[i]) != 0) out.put(names[i], values[i]);
        return ofMilli(out);
    }

    /**
     * True when, in at least one dimension that {@code requested} asks for, this is at least {@code limit}.
     * Volcano's "overused" test: a queue whose allocation has reached its deserved share in a dimension the
     * job needs cannot grow in that dimension. With an empty {@code requested} every dimension of {@code limit} counts.
     */
    public boolean reachesIn(Resources limit, Resources requested) {
        Resources dims = requested.isEmpty() ? limit.add(this) : requested;
        for (int i = 0; i < dims.names.length; i++) {
            if (dims.values[i] <= 0) continue;
            String n = dims.names[i];
            if (milli(n) >= limit.milli(n)) return true;
        }
        return false;
    }

    /**
     * True when, in every dimension that {@code dims} asks for, this is at most {@code limit} (absent = 0).
     * Volcano's {@code LessEqualWithDimension}: a queue may grow in the dimensions a task needs only up to the limit.
     */
    public boolean withinIn(Resources limit, Resources dims) {
        for (int i = 0; i < dims.names.length; i++) {
            if (dims.values[i] <= 0) continue;
            if (milli(dims.names[i]) > limit.milli(dims.names[i])) return false;
        }
        return true;
    }

    /** {@code this.add(plus).withinIn(limit, dims)}, without making the sum. */
    public boolean plusWithinIn(Resources plus, Resources limit, Resources dims) {
        for (int i = 0; i < dims.names.length; i++) {
            if (dims.values[i] <= 0) continue;
            String n = dims.names[i];
            if (addSaturated(milli(n), plus.milli(n)) > limit.milli(n)) return false;
        }
        return true;
    }

    /** Largest ratio this/{@code of} over the dimensions of this that {@code of} has (Volcano's share). */
    public double dominantShare(Resources of) {
        double share = 0;
        for (int i = 0; i < names.length; i++) {
            long d = of.milli(names[i]);
            if (d > 0) share = Math.max(share, (double) values[i] / d);
            else if (values[i] > 0) share = Math.max(share, 1.0);
        }
        return share;
    }

    public Map<String, Long> asMilliMap() {
        TreeMap<String, Long> m = new TreeMap<>();
        for (int i = 0; i < names.length; i++) m.put(names[i], values[i]);
        return Collections.unmodifiableMap(m);
    }

    /** Quantity strings per dimension, sorted by name. */
    public Map<String, String> asQuantities() {
        TreeMap<String, String> m = new TreeMap<>();
        for (int i = 0; i < names.length; i++) m.put(names[i], Quantity.format(names[i], values[i]));
        return Collections.unmodifiableMap(m);
    }

    /**
     * A running total for summing many vectors (a queue's requests over its pods) without a new vector per
     * addition. Not thread-safe; {@link #toResources()} gives the immutable result.
     */
    public static final class Sum {
        /** While exactly one vector has been added: that vector, which is the sum (a job of one pod sums one share). */
        private Resources only;
        private int terms;
        private String[] names;
        private long[] values;
        private int size;

        public Sum add(Resources r) {
            if (terms++ == 0) {
                only = r;
                return this;
            }
            spread(r.names.length);
            for (int i = 0; i < r.names.length; i++) addMilli(r.names[i], r.values[i]);
            return this;
        }

        /** Takes {@code r} away, each dimension as {@link Resources#subtract} does (a running balance, not a sum). */
        public Sum subtract(Resources r) {
            terms++;
            spread(r.names.length);
            for (int i = 0; i < r.names.length; i++) addMilli(r.names[i], negate(r.values[i]));
            return this;
        }

        /** Makes room in the arrays, moving the one vector held so far into them. */
        private void spread(int more) {
            if (names == null) {
                names = new String[Math.max(4, (only == null ? 0 : only.names.length) + more)];
                values = new long[names.length];
            }
            if (only != null) {
                for (int i = 0; i < only.names.length; i++) addMilli(only.names[i], only.values[i]);
                only = null;
            }
        }

        private void addMilli(String name, long milli) {
            for (int i = 0; i < size; i++) {
                if (names[i] == name || names[i].equals(name)) {
                    values[i] = addSaturated(values[i], milli);
                    return;
                }
            }
            if (size == names.length) {
                names = Arrays.copyOf(names, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            names[size] = name;
            values[size++] = milli;
        }

        /** The sum: its non-zero dimensions, sorted by name (the names come from vectors, so are interned). */
        public Resources toResources() {
            if (only != null) return only;
            String[] n = new String[size];
            long[] v = new long[size];
            int k = 0;
            for (int i = 0; i < size; i++) {
                if (values[i] == 0) continue;
                // Insertion sort: a sum has a handful of dimensions.
                int at = k++;
                while (at > 0 && n[at - 1].compareTo(names[i]) > 0) {
                    n[at] = n[at - 1];
                    v[at] = v[at - 1];
                    at--;
                }
                n[at] = names[i];
                v[at] = values[i];
            }
            return new Resources(k == size ? n : Arrays.copyOf(n, k), k == size ? v : Arrays.copyOf(v, k));
        }
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Resources r && Arrays.equals(names, r.names) && Arrays.equals(values, r.values);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) hash = h = 31 * Arrays.hashCode(names) + Arrays.hashCode(values);
        return h;
    }

    /** For people (reasons, logs): amounts in each resource's own units, e.g. {@code {memory: 96Gi, nvidia.com/gpu: 10.7}}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(names[i]).append(": ").append(Quantity.human(names[i], values[i]));
        }
        return "{" + sb + "}";
    }
}
