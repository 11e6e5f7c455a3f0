package dev.arbiter.manifest;

import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * A read-only view of one YAML node inside a manifest object, with the field path and line needed for error
 * messages. A field may be absent (missing key, or an explicit YAML null); absent fields answer every query with
 * "nothing" (null, empty, or the given default), so lookups chain without null checks:
 * {@code object.get("spec", "weight").integer(...)}.
 *
 * <p>Typed accessors are lenient in the way Kubernetes users expect (a quoted {@code "8"} is an integer, {@code 8}
 * is a string) and strict about everything else: a wrong shape or unparseable value is a {@link ManifestException}
 * naming the field.
 */
final class Field {
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

    private final Origin origin;
    private final Node node;
    private final String path;
    private final int line;

    private Field(Origin origin, Node node, String path, int line) {
        this.origin = origin;
        this.node = isNull(node) ? null : node;
        this.path = path;
        this.line = node == null ? line : lineOf(node);
    }

    /** The whole object (or document) rooted at {@code node}. */
    static Field root(Node node, Origin origin) {
        return new Field(origin, node, "", lineOf(node));
    }

    /** 1-based line where {@code node} starts. */
    static int lineOf(Node node) {
        return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
    }

    /** The same node, reported under another origin (used once the object's kind and name are known). */
    Field withOrigin(Origin newOrigin) {
        return new Field(newOrigin, node, path, line);
    }

    Origin origin() {
        return origin;
    }

    /** This node as the root of a new object starting at its line (used for the items of a {@code List}). */
    Field asObject() {
        return new Field(Origin.of(origin.source(), line), node, "", line);
    }

    boolean isPresent() {
        return node != null;
    }

    boolean isMapping() {
        return node instanceof MappingNode;
    }

    boolean isList() {
        return node instanceof SequenceNode;
    }

    /** The line of this node, or of the nearest present ancestor when absent. */
    int line() {
        return line;
    }

    /** The field path from the object root, e.g. {@code spec.containers[0].resources.requests.cpu}. */
    String path() {
        return path;
    }

    /** The error "{@code <file>:<line>: <object>: <path>: <problem>}" about this field. */
    ManifestException error(String problem) {
        return origin.error(line, path, problem);
    }

    /** A notice line about this field, in the same form as {@link #error}'s message. */
    String notice(String problem) {
        return error(problem).getMessage();
    }

    // ---- navigation ----

    /** The child at {@code keys} (one key per mapping level); absent when any level is missing. */
    Field get(String... keys) {
        Field f = this;
        for (String key : keys) f = f.child(key);
        return f;
    }

    private Field child(String key) {
        if (node == null) return new Field(origin, null, childPath(key), line);
        Entry e = entryMap().get(key);
        return e == null ? new Field(origin, null, childPath(key), line) : e.value();
    }

    /** The key/value pairs of a mapping in document order; empty when absent; an error when not a mapping. */
    Map<String, Field> entries() {
        Map<String, Field> out = new LinkedHashMap<>();
        if (node != null) entryMap().forEach((k, e) -> out.put(k, e.value()));
        return out;
    }

    /** The elements of a list; empty when absent; an error when not a list. */
    List<Field> items() {
        if (node == null) return List.of();
        if (!(node instanceof SequenceNode seq)) throw error("must be a list, got " + describe(node));
        List<Field> out = new ArrayList<>();
        List<Node> values = seq.getValue();
        for (int i = 0; i < values.size(); i++) {
            out.add(new Field(origin, values.get(i), path + "[" + i + "]", line));
        }
        return out;
    }

    private record Entry(int keyLine, Field value) {}

    private Map<String, Entry> entryMap() {
        if (!(node instanceof MappingNode mapping)) throw error("must be a mapping, got " + describe(node));
        Map<String, Entry> out = new LinkedHashMap<>();
        for (NodeTuple t : mapping.getValue()) {
            String key = keyText(t.getKeyNode());
            Field value = new Field(origin, t.getValueNode(), childPath(key), lineOf(t.getKeyNode()));
            Entry previous = out.putIfAbsent(key, new Entry(lineOf(t.getKeyNode()), value));
            if (previous != null) {
                throw origin.error(lineOf(t.getKeyNode()), childPath(key),
                        "duplicate key (first at line " + previous.keyLine() + ")");
            }
        }
        return out;
    }

    private String keyText(Node key) {
        if (key instanceof ScalarNode s) return s.getValue();
        throw origin.error(lineOf(key), path, "mapping keys must be plain strings, got " + describe(key));
    }

    private String childPath(String key) {
        if (PLAIN_KEY.matcher(key).matches()) return path.isEmpty() ? key : path + "." + key;
        return path + "[" + key + "]";
    }

    // ---- scalars ----

    /** The scalar text, or null when absent or empty (Kubernetes treats "" as unset); an error when not a scalar. */
    String string() {
        String text = text();
        return text == null || text.isEmpty() ? null : text;
    }

    /** {@link #string()}, or {@code fallback} when absent or empty. */
    String string(String fallback) {
        String s = string();
        return s == null ? fallback : s;
    }

    /** {@link #string()}; an error "is required" when absent or empty. */
    String requiredString() {
        String s = string();
        if (s == null) throw error("is required");
        return s;
    }

    /** The integer value, or null when absent; an error when not an integer in int range. */
    Integer integer() {
        return node == null ? null : parseInt(v -> true, "must be an integer");
    }

    /**
     * The integer value, or {@code fallback} when absent; an error "{@code requirement}, got X" when the value is
     * not an integer or fails {@code valid}.
     */
    int integer(int fallback, IntPredicate valid, String requirement) {
        return node == null ? fallback : parseInt(valid, requirement);
    }

    private int parseInt(IntPredicate valid, String requirement) {
        String text = text();
        if (text != null && INTEGER.matcher(text.trim()).matches()) {
            try {
                int value = Integer.parseInt(text.trim());
                if (valid.test(value)) return value;
            } catch (NumberFormatException tooLarge) {
                // fall through to the error
            }
        }
        throw error(requirement + ", got " + describe(node));
    }

    /** The boolean value, or {@code fallback} when absent; accepts YAML's true/false (and yes/no, on/off). */
    boolean bool(boolean fallback) {
        if (node == null) return fallback;
        String text = text().trim().toLowerCase();
        switch (text) {
            case "true", "yes", "on": return true;
            case "false", "no", "off": return false;
            default: throw error("must be true or false, got " + describe(node));
        }
    }

    /** A map of strings (labels, annotations, nodeSelector); values are the scalar text, "" for null. */
    Map<String, String> stringMap() {
        Map<String, String> out = new LinkedHashMap<>();
        entries().forEach((k, v) -> out.put(k, v.node == null ? "" : v.text()));
        return out;
    }

    private String text() {
        if (node == null) return null;
        if (node instanceof ScalarNode s) return s.getValue();
        throw error("must be a single value, got " + describe(node));
    }

    // ---- quantities ----

    /** A non-negative Kubernetes quantity in milli-units; an error naming the field when absent or invalid. */
    long quantity() {
        return quantity(null);
    }

    /**
     * A non-negative quantity of {@code resource} as {@link dev.arbiter.model.Resources} stores it (milli-units, or
     * bytes for byte-valued resources; milli-units when {@code resource} is null); an error naming the field when
     * absent or invalid.
     */
    long quantity(String resource) {
        if (node == null) throw error("is empty (expected a quantity such as 500m, 2, 96Gi, 1G)");
        String text = text();
        long milli;
        try {
            milli = resource == null ? Quantity.parseMilli(text) : Quantity.parseAmount(resource, text);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
        if (milli < 0) throw error("must not be negative, got " + text);
        return milli;
    }

    /** Each entry of a mapping of quantities, as stored amounts, keeping explicit zeros; empty when absent. */
    Map<String, Long> quantities() {
        Map<String, Long> out = new TreeMap<>();
        entries().forEach((name, value) -> out.put(name, value.quantity(name)));
        return out;
    }

    /** A mapping of quantities as {@link Resources}, or null when absent. */
    Resources resources() {
        return node == null ? null : Resources.ofMilli(quantities());
    }

    /** A mapping of quantities as {@link dev.arbiter.model.Caps} (zeros kept: they forbid), or null when absent. */
    dev.arbiter.model.Caps caps() {
        return node == null ? null : dev.arbiter.model.Caps.ofMilli(quantities());
    }

    // ---- helpers ----

    private static boolean isNull(Node node) {
        return node == null || (node instanceof ScalarNode && Tag.NULL.equals(node.getTag()));
    }

    /** This field's value as messages show it, e.g. {@code -1} or {@code "abc"}; "nothing" when absent. */
    String shown() {
        return describe(node);
    }

    /** A short description of a node's value for messages: {@code -1}, {@code "abc"}, {@code a mapping}, ... */
    static String describe(Node node) {
        if (node == null) return "nothing";
        if (node instanceof MappingNode) return "a mapping";
        if (node instanceof SequenceNode) return "a list";
        ScalarNode s = (ScalarNode) node;
        String text = s.getValue().length() > 60 ? s.getValue().substring(0, 57) + "..." : s.getValue();
        return Tag.STR.equals(s.getTag()) ? "\"" + text + "\"" : text;
    }
}
