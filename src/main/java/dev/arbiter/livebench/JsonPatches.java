package dev.arbiter.livebench;

import java.util.List;
import java.util.Map;

/**
 * The two patch formats Arbiter and fabric8 send, applied to a JSON object held as maps and lists: JSON patch
 * (RFC 6902: add, replace, remove, test) and JSON merge patch (RFC 7386); strategic merge patches are merged the same
 * way except that lists of objects with a {@code type} (conditions) merge element by element on it, which is enough
 * for the objects the stand-in serves.
 */
final class JsonPatches {
    private JsonPatches() {}

    /** Applies one RFC 6902 operation to {@code target}. */
    @SuppressWarnings("unchecked")
    static void apply(Map<String, Object> target, Map<String, Object> op) {
        String path = String.valueOf(op.get("path"));
        String[] tokens = path.substring(1).split("/", -1);
        Object parent = target;
        for (int i = 0; i < tokens.length - 1; i++) {
            parent = child(parent, unescape(tokens[i]));
            if (parent == null) throw new IllegalArgumentException("json patch: no parent for " + path);
        }
        String last = unescape(tokens[tokens.length - 1]);
        String kind = String.valueOf(op.get("op"));
        Object value = op.get("value");
        if (parent instanceof Map<?, ?> m) {
            Map<String, Object> map = (Map<String, Object>) m;
            switch (kind) {
                case "add", "replace" -> map.put(last, value);
                case "remove" -> map.remove(last);
                case "test" -> {
                    if (!java.util.Objects.equals(map.get(last), value)) throw new IllegalArgumentException("json patch: test failed at " + path);
                }
                default -> throw new IllegalArgumentException("json patch: unsupported op " + kind);
            }
        } else if (parent instanceof List<?> l) {
            List<Object> list = (List<Object>) l;
            int index = last.equals("-") ? list.size() : Integer.parseInt(last);
            switch (kind) {
                case "add" -> list.add(index, value);
                case "replace" -> list.set(index, value);
                case "remove" -> list.remove(index);
                default -> throw new IllegalArgumentException("json patch: unsupported op " + kind + " on a list");
            }
        } else {
            throw new IllegalArgumentException("json patch: cannot patch " + path);
        }
    }

    /** Merges {@code patch} into {@code target} (RFC 7386: null removes, objects merge, anything else replaces). */
    @SuppressWarnings("unchecked")
    static void merge(Map<String, Object> target, Map<String, Object> patch) {
        for (Map.Entry<String, Object> e : patch.entrySet()) {
            Object v = e.getValue();
            if (v == null) {
                target.remove(e.getKey());
            } else if (v instanceof Map<?, ?> pm && target.get(e.getKey()) instanceof Map<?, ?> tm) {
                merge((Map<String, Object>) tm, (Map<String, Object>) pm);
            } else {
                target.put(e.getKey(), v);
            }
        }
    }

    /** Merges a strategic merge patch: as {@link #merge}, but lists of typed objects (conditions) merge by type. */
    @SuppressWarnings("unchecked")
    static void strategicMerge(Map<String, Object> target, Map<String, Object> patch) {
        for (Map.Entry<String, Object> e : patch.entrySet()) {
            Object v = e.getValue();
            Object t = target.get(e.getKey());
            if (v == null) {
                target.remove(e.getKey());
            } else if (v instanceof Map<?, ?> pm && t instanceof Map<?, ?> tm) {
                strategicMerge((Map<String, Object>) tm, (Map<String, Object>) pm);
            } else if (typed(v) && typed(t)) {
                List<Object> merged = new java.util.ArrayList<>((List<Object>) t);
                for (Object element : (List<Object>) v) {
                    Map<String, Object> pe = (Map<String, Object>) element;
                    Map<String, Object> same = null;
                    for (Object m : merged) if (((Map<?, ?>) m).get("type").equals(pe.get("type"))) same = (Map<String, Object>) m;
                    if (same == null) {
                        Map<String, Object> added = new java.util.LinkedHashMap<>();
                        strategicMerge(added, pe);
                        merged.add(added);
                    } else {
                        strategicMerge(same, pe);
                    }
                }
                target.put(e.getKey(), merged);
            } else {
                target.put(e.getKey(), v);
            }
        }
    }

    private static boolean typed(Object list) {
        if (!(list instanceof List<?> l)) return false;
        for (Object o : l) if (!(o instanceof Map<?, ?> m) || m.get("type") == null) return false;
        return true;
    }

    private static Object child(Object parent, String token) {
        if (parent instanceof Map<?, ?> m) return m.get(token);
        if (parent instanceof List<?> l) return l.get(Integer.parseInt(token));
        return null;
    }

    private static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }
}
