package dev.arbiter.model;

import java.util.List;
import java.util.Map;

/**
 * A Kubernetes label selector ({@code matchLabels} and {@code matchExpressions}, ANDed), as pod affinity terms and
 * topology spread constraints use it. Semantics of {@code metav1.LabelSelectorAsSelector}: an empty selector matches
 * every set of labels; a missing selector ({@code null} where a field holds one) matches none. Operators: {@code In}
 * (the label is present with one of the values), {@code NotIn} (absent, or present with none of the values),
 * {@code Exists}, {@code DoesNotExist}. Example: {@code {matchLabels: {app: web}, matchExpressions: [{key: tier,
 * operator: NotIn, values: [canary]}]}} matches {@code app=web} and {@code app=web,tier=prod}, not
 * {@code app=web,tier=canary}.
 */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {
    public static final LabelSelector EVERYTHING = new LabelSelector(Map.of(), List.of());

    /** One expression: {@code key operator values}. */
    public record Requirement(String key, String operator, List<String> values) {
        public Requirement {
            values = List.copyOf(values);
        }

        public boolean matches(Map<String, String> labels) {
            return setOperator(operator, labels.get(key), values);
        }

        /**
         * {@code In}, {@code NotIn}, {@code Exists} and {@code DoesNotExist} applied to a label's value ({@code v},
         * null when absent); false for any other operator. Node selector requirements share these four.
         */
        static boolean setOperator(String operator, String v, List<String> values) {
            return switch (operator) {
                case "In" -> v != null && values.contains(v);
                case "NotIn" -> v == null || !values.contains(v);
                case "Exists" -> v != null;
                case "DoesNotExist" -> v == null;
                default -> false;
            };
        }

        @Override
        public String toString() {
            return switch (operator) {
                case "Exists" -> key;
                case "DoesNotExist" -> "!" + key;
                default -> key + " " + operator.toLowerCase() + " (" + String.join(",", values) + ")";
            };
        }
    }

    public LabelSelector {
        matchLabels = Map.copyOf(matchLabels);
        matchExpressions = List.copyOf(matchExpressions);
    }

    /** A selector of exactly these labels. */
    public static LabelSelector of(Map<String, String> labels) {
        return new LabelSelector(labels, List.of());
    }

    public boolean matches(Map<String, String> labels) {
        for (Map.Entry<String, String> e : matchLabels.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) return false;
        }
        for (Requirement r : matchExpressions) if (!r.matches(labels)) return false;
        return true;
    }

    public boolean isEmpty() {
        return matchLabels.isEmpty() && matchExpressions.isEmpty();
    }

    /** As {@code kubectl} prints selectors: {@code app=web,tier notin (canary)}; empty: {@code <everything>}. */
    @Override
    public String toString() {
        if (isEmpty()) return "<everything>";
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(matchLabels).forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append('=').append(v));
        for (Requirement r : matchExpressions) sb.append(sb.length() == 0 ? "" : ",").append(r);
        return sb.toString();
    }
}
