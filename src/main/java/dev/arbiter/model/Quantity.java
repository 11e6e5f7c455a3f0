package dev.arbiter.model;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities, held as whole milli-units in a {@code long} — except byte-valued resources
 * (memory, storage, hugepages), held as whole bytes: at a thousand milli-bytes per byte, a 10,000-node fleet of 2 TiB
 * nodes would overflow a {@code long}; nobody asks for a fraction of a byte. {@link #parseAmount} and
 * {@link #format} apply the right unit per resource name; {@link Resources} stores these amounts.
 *
 * <p>Parsing follows {@code k8s.io/apimachinery/pkg/api/resource}: an optional sign, a decimal number, then either a
 * binary suffix ({@code Ki Mi Gi Ti Pi Ei}), a decimal suffix ({@code n u m k M G T P E}) or an exponent
 * ({@code 1e3}). Fractions of a milli-unit round up, as Kubernetes does. Examples: {@code "500m"} → 500,
 * {@code "2"} → 2000, {@code "1Gi"} → 1073741824000, {@code "1G"} → 1000000000000.
 */
public final class Quantity {
    private static final Pattern FORMAT =
            Pattern.compile("([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");
    private static final long KI = 1024L;

    private Quantity() {}

    /** Parses a quantity string into milli-units; throws {@link IllegalArgumentException} with a readable message. */
    public static long parseMilli(String text) {
        if (text == null) throw new IllegalArgumentException("quantity is empty");
        String s = text.trim();
        Matcher m = FORMAT.matcher(s);
        if (s.isEmpty() || !m.matches()) {
            throw new IllegalArgumentException("\"" + text + "\" is not a Kubernetes quantity (expected e.g. 500m, 2, 96Gi, 1G)");
        }
        BigDecimal number = new BigDecimal(m.group(1));
        BigDecimal scaled = number.multiply(multiplier(m.group(2))).multiply(BigDecimal.valueOf(1000));
        BigDecimal milli = scaled.setScale(0, RoundingMode.CEILING);
        if (milli.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 || milli.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) {
            throw new IllegalArgumentException("\"" + text + "\" is too large");
        }
        return milli.longValueExact();
    }

    /**
     * The amount {@link Resources} stores for {@code resource}: milli-units, or whole bytes (rounded up) for
     * byte-valued resources. Example: {@code parseAmount("cpu", "500m")} → 500, {@code parseAmount("memory", "1Ki")}
     * → 1024.
     */
    public static long parseAmount(String resource, Object value) {
        if (!isBytes(resource)) return parseMilli(value);
        String text = value == null ? null : value.toString().trim();
        long milli;
        try {
            milli = parseMilli(text);
        } catch (IllegalArgumentException tooLarge) {
            if (text == null || !FORMAT.matcher(text).matches()) throw tooLarge;
            Matcher m = FORMAT.matcher(text);
            m.matches();
            BigDecimal bytes = new BigDecimal(m.group(1)).multiply(multiplier(m.group(2))).setScale(0, RoundingMode.CEILING);
            if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) throw tooLarge;
            return bytes.longValueExact();
        }
        return Math.floorDiv(milli + 999, 1000);
    }

    /** Parses a YAML scalar that may be a number (e.g. {@code 8}) or a string (e.g. {@code "500m"}). */
    public static long parseMilli(Object value) {
        if (value instanceof Number n) {
            return parseMilli(n.toString());
        }
        return parseMilli(value == null ? null : value.toString());
    }

    private static BigDecimal multiplier(String suffix) {
        if (suffix == null || suffix.isEmpty()) return BigDecimal.ONE;
        return switch (suffix) {
            case "Ki" -> BigDecimal.valueOf(KI);
            case "Mi" -> BigDecimal.valueOf(KI * KI);
            case "Gi" -> BigDecimal.valueOf(KI * KI * KI);
            case "Ti" -> BigDecimal.valueOf(KI * KI * KI * KI);
            case "Pi" -> BigDecimal.valueOf(KI * KI * KI * KI * KI);
            case "Ei" -> BigDecimal.valueOf(KI * KI * KI * KI * KI * KI);
            case "n" -> new BigDecimal("1e-9");
            case "u" -> new BigDecimal("1e-6");
            case "m" -> new BigDecimal("1e-3");
            case "k" -> new BigDecimal("1e3");
            case "M" -> new BigDecimal("1e6");
            case "G" -> new BigDecimal("1e9");
            case "T" -> new BigDecimal("1e12");
            case "P" -> new BigDecimal("1e15");
            case "E" -> new BigDecimal("1e18");
            default -> BigDecimal.ONE.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
        };
    }

    /**
     * Formats a stored amount (see {@link #parseAmount}) as a canonical quantity string for the named resource:
     * {@code 500m}, {@code 16}, and for byte-valued resources (memory, storage, hugepages) the largest exact binary
     * suffix, e.g. {@code 96Gi}.
     */
    public static String format(String resource, long amount) {
        if (isBytes(resource)) return formatBytes(amount);
        if (amount % 1000 != 0) return amount + "m";
        return Long.toString(amount / 1000);
    }

    /**
     * A stored amount as people read it, still a valid quantity: a whole count as it is; a fraction of a count with
     * one decimal from 10 up and at most two below ({@code 10591m} → {@code 10.6}, {@code 2500m} → {@code 2.5}),
     * under 10m in milli-units ({@code 5m}); bytes in the largest binary unit they reach, with at most one decimal
     * ({@code 96Gi}, {@code 1.5Gi}, {@code 512}). Shares and tables use it; JSON output keeps {@link #format}.
     */
    public static String human(String resource, long amount) {
        if (isBytes(resource)) {
            String[] suffixes = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
            long abs = Math.abs(amount);
            int k = -1;
            while (k + 1 < suffixes.length && abs >= 1L << (10 * (k + 2))) k++;
            if (k < 0) return Long.toString(amount);
            long unit = 1L << (10 * (k + 1));
            if (amount % unit == 0) return (amount / unit) + suffixes[k];
            return BigDecimal.valueOf(amount).divide(BigDecimal.valueOf(unit), 1, RoundingMode.HALF_UP)
                    .stripTrailingZeros().toPlainString() + suffixes[k];
        }
        if (amount % 1000 == 0) return Long.toString(amount / 1000);
        long abs = Math.abs(amount);
        if (abs < 10) return amount + "m";
        return BigDecimal.valueOf(amount, 3).setScale(abs >= 10_000 ? 1 : 2, RoundingMode.HALF_UP)
                .stripTrailingZeros().toPlainString();
    }

    private static String formatBytes(long whole) {
        if (whole != 0) {
            String[] suffixes = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
            int[] shifts = {60, 50, 40, 30, 20, 10};
            for (int i = 0; i < suffixes.length; i++) {
                long unit = 1L << shifts[i];
                if (whole % unit == 0) return (whole / unit) + suffixes[i];
            }
        }
        return Long.toString(whole);
    }

    /** Memory, storage and hugepages: amounts of bytes. */
    public static boolean isBytes(String resource) {
        return resource.equals("memory") || resource.endsWith("storage") || resource.startsWith("hugepages-");
    }
}
