package dev.arbiter.model;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Upper bounds on some dimensions; a dimension that is not named is unlimited. Unlike {@link Resources}, a bound
 * of zero (or less) is kept: it forbids any use of that dimension. Example: {@code Caps.of(gpu=16)} admits
 * {@code {gpu: 8, cpu: 500}} and rejects {@code {gpu: 24}}.
 */
public final class Caps {
    public static final Caps UNLIMITED = new Caps(Map.of());

    private final Map<String, Long> bounds;

    private Caps(Map<String, Long> bounds) {
        this.bounds = bounds;
    }

    /** Every dimension of {@code r} bounded by its amount (absent dimensions stay unlimited). */
    public static Caps of(Resources r) {
        return new Caps(Map.copyOf(new TreeMap<>(r.asMilliMap())));
    }

    /** Bounds on exactly the named dimensions, including zeros. */
    public static Caps ofMilli(Map<String, Long> milli) {
        return new Caps(Collections.unmodifiableMap(new TreeMap<>(milli)));
    }

    /**
     * Convenience for tests and builders: alternating name, whole-unit amount pairs; zeros are kept. Example:
     * {@code Caps.of("nvidia.com/gpu", 0)} forbids GPUs.
     */
    public static Caps of(Object... nameAmount) {
        TreeMap<String, Long> milli = new TreeMap<>();
        for (int i = 0; i < nameAmount.length; i += 2) {
            milli.put((String) nameAmount[i], Quantity.parseAmount((String) nameAmount[i], nameAmount[i + 1]));
        }
        return ofMilli(milli);
    }

    /** Quantity strings per bounded dimension, sorted by name (zeros included). */
    public Map<String, String> asQuantities() {
        TreeMap<String, String> m = new TreeMap<>();
        bounds.forEach((k, v) -> m.put(k, Quantity.format(k, v)));
        return Collections.unmodifiableMap(m);
    }

    public boolean isUnlimited() {
        return bounds.isEmpty();
    }

    public Map<String, Long> asMilliMap() {
        return bounds;
    }

    /** True when every dimension that {@code r} uses (amount &gt; 0) is within its bound. */
    public boolean admits(Resources r) {
        for (int i = 0; i < r.size(); i++) {
            Long b = bounds.get(r.name(i));
            if (b != null && r.milliAt(i) > 0 && r.milliAt(i) > b) return false;
        }
        return true;
    }

    /**
     * Whether {@code more} may be added to {@code held}: in each bounded dimension that {@code more} asks for, the sum
     * is within the bound. A dimension {@code more} does not ask for is not its concern, even where {@code held} is over
     * the bound already (as Volcano's {@code LessEqualWithDimension}: a CPU-only pod of a queue over its GPU capability
     * may still start, and preempts nothing for a GPU it does not want).
     */
    public boolean admits(Resources held, Resources more) {
        if (bounds.isEmpty()) return true;
        for (Map.Entry<String, Long> b : bounds.entrySet()) {
            long add = more.milli(b.getKey());
            if (add <= 0) continue;
            if (Resources.addSaturated(held.milli(b.getKey()), add) > b.getValue()) return false;
        }
        return true;
    }

    /** Lowers each bound by what {@code used} takes of it. */
    public Caps minus(Resources used) {
        TreeMap<String, Long> out = new TreeMap<>(bounds);
        out.replaceAll((k, v) -> v - used.milli(k));
        return new Caps(Collections.unmodifiableMap(out));
    }

    /** The tighter bound per dimension. */
    public Caps intersect(Caps o) {
        TreeMap<String, Long> out = new TreeMap<>(bounds);
        o.bounds.forEach((k, v) -> out.merge(k, v, Math::min));
        return new Caps(Collections.unmodifiableMap(out));
    }

    /** Caps {@code r} dimension by dimension (negative bounds cap at zero). */
    public Resources cap(Resources r) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < r.size(); i++) {
            Long b = bounds.get(r.name(i));
            out.put(r.name(i), b == null ? r.milliAt(i) : Math.max(0, Math.min(b, r.milliAt(i))));
        }
        return Resources.ofMilli(out);
    }

    /** The dimensions where {@code r} exceeds the bound, with the excess. */
    public Resources excess(Resources r) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (int i = 0; i < r.size(); i++) {
            Long b = bounds.get(r.name(i));
            if (b != null && r.milliAt(i) > b) out.put(r.name(i), r.milliAt(i) - b);
        }
        return Resources.ofMilli(out);
    }

    /** Where adding {@code more} to {@code held} passes a bound, in the dimensions {@code more} asks for: the excess. */
    public Resources excess(Resources held, Resources more) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, Long> b : bounds.entrySet()) {
            long add = more.milli(b.getKey());
            if (add <= 0) continue;
            long sum = Resources.addSaturated(held.milli(b.getKey()), add);
            if (sum > b.getValue()) out.put(b.getKey(), sum - b.getValue());
        }
        return Resources.ofMilli(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Caps c && bounds.equals(c.bounds);
    }

    @Override
    public int hashCode() {
        return bounds.hashCode();
    }

    @Override
    public String toString() {
        if (bounds.isEmpty()) return "unlimited";
        StringBuilder sb = new StringBuilder();
        bounds.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(": ")
                .append(Quantity.human(k, Math.max(0, v))));
        return "{" + sb + "}";
    }
}
