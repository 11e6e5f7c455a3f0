package dev.arbiter.manifest;

import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.model.Placement.NodeAffinity;
import dev.arbiter.model.Placement.NodeRequirement;
import dev.arbiter.model.Placement.NodeSelectorTerm;
import dev.arbiter.model.Placement.PodAffinity;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.model.Placement.WeightedNodeTerm;
import dev.arbiter.model.Placement.WeightedPodAffinityTerm;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads what constrains a pod's placement from its spec: {@code affinity} (node affinity, pod affinity and
 * anti-affinity, required and preferred), {@code topologySpreadConstraints}, host ports (a container's
 * {@code hostPort}; every container port with {@code hostNetwork: true}), {@code schedulingGates}, and needs Arbiter
 * does not evaluate ({@code resourceClaims}). Checks them as the API server does and says which field is wrong.
 *
 * <p>{@code matchLabelKeys} and {@code mismatchLabelKeys} take values from the pod's own labels, which a controller may
 * still add to (a Job's, a training operator's), so the result is a function of the pod's final labels.
 */
final class PlacementReader {
    private static final Set<String> LABEL_OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");
    private static final Set<String> NODE_OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt");
    private static final Set<String> PROTOCOLS = Set.of("TCP", "UDP", "SCTP");

    private PlacementReader() {}

    /** The placement of the pod whose spec is {@code spec}, given its final labels. */
    static Function<Map<String, String>, Placement> read(Field spec) {
        Field affinity = spec.get("affinity");
        NodeAffinity node = nodeAffinity(affinity.get("nodeAffinity"));
        List<TermDraft> affinityRequired = terms(affinity.get("podAffinity", "requiredDuringSchedulingIgnoredDuringExecution"));
        List<WeightedDraft> affinityPreferred = weighted(affinity.get("podAffinity", "preferredDuringSchedulingIgnoredDuringExecution"));
        List<TermDraft> antiRequired = terms(affinity.get("podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"));
        List<WeightedDraft> antiPreferred = weighted(affinity.get("podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution"));
        List<SpreadDraft> spread = spread(spec.get("topologySpreadConstraints"));
        List<HostPort> ports = hostPorts(spec);
        List<String> notEvaluated = new ArrayList<>();
        if (!spec.get("resourceClaims").items().isEmpty()) notEvaluated.add("spec.resourceClaims (dynamic resource allocation)");
        List<String> gates = new ArrayList<>();
        for (Field g : spec.get("schedulingGates").items()) gates.add(g.get("name").requiredString());
        boolean none = node.isNone() && affinityRequired.isEmpty() && affinityPreferred.isEmpty() && antiRequired.isEmpty()
                && antiPreferred.isEmpty() && spread.isEmpty() && ports.isEmpty() && notEvaluated.isEmpty() && gates.isEmpty();
        if (none) return labels -> Placement.NONE;
        return labels -> new Placement(node,
                new PodAffinity(resolve(affinityRequired, labels), resolveWeighted(affinityPreferred, labels)),
                new PodAffinity(resolve(antiRequired, labels), resolveWeighted(antiPreferred, labels)),
                spread.stream().map(s -> s.resolve(labels)).toList(), ports, notEvaluated, gates);
    }

    // ---- node affinity ----------------------------------------------------------------------------------------

    private static NodeAffinity nodeAffinity(Field f) {
        if (!f.isPresent()) return NodeAffinity.NONE;
        Field required = f.get("requiredDuringSchedulingIgnoredDuringExecution");
        List<NodeSelectorTerm> terms = null;
        if (required.isPresent()) {
            Field list = required.get("nodeSelectorTerms");
            if (list.items().isEmpty()) throw list.error("must have at least one node selector term");
            terms = new ArrayList<>();
            for (Field t : list.items()) terms.add(nodeTerm(t));
        }
        List<WeightedNodeTerm> preferred = new ArrayList<>();
        for (Field p : f.get("preferredDuringSchedulingIgnoredDuringExecution").items()) {
            preferred.add(new WeightedNodeTerm(weight(p.get("weight")), nodeTerm(required(p.get("preference")))));
        }
        return new NodeAffinity(terms, preferred);
    }

    private static NodeSelectorTerm nodeTerm(Field t) {
        List<NodeRequirement> expressions = new ArrayList<>();
        for (Field e : t.get("matchExpressions").items()) expressions.add(nodeRequirement(e, false));
        List<NodeRequirement> fields = new ArrayList<>();
        for (Field e : t.get("matchFields").items()) fields.add(nodeRequirement(e, true));
        return new NodeSelectorTerm(expressions, fields);
    }

    private static NodeRequirement nodeRequirement(Field e, boolean field) {
        Field keyField = e.get("key");
        String key = keyField.requiredString();
        if (field && !key.equals("metadata.name")) throw keyField.error("Unsupported value: \"" + key + "\": supported values: \"metadata.name\"");
        if (!field) ApiValidation.qualifiedKey(keyField, key);
        String op = operator(e.get("operator"), field ? Set.of("In", "NotIn") : NODE_OPERATORS);
        List<String> values = values(e.get("values"));
        switch (op) {
            case "In", "NotIn" -> {
                if (values.isEmpty()) throw e.get("values").error("must be specified when `operator` is 'In' or 'NotIn'");
                if (field && values.size() != 1) {
                    throw e.get("values").error("must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
                }
            }
            case "Exists", "DoesNotExist" -> {
                if (!values.isEmpty()) throw e.get("values").error("may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
            }
            default -> {
                if (values.size() != 1) throw e.get("values").error("must be specified single value when `operator` is 'Lt' or 'Gt'");
                if (NodeRequirement.integer(values.get(0)) == null) {
                    throw e.get("values").items().get(0).error("must be an integer, got " + e.get("values").items().get(0).shown());
                }
            }
        }
        return new NodeRequirement(key, op, values);
    }

    // ---- pod affinity ------------------------------------------------------------------------------------------

    /** A term as written: its selector and the label keys whose values the pod's own labels supply. */
    private record TermDraft(PodAffinityTerm term, List<String> matchLabelKeys, List<String> mismatchLabelKeys) {
        PodAffinityTerm resolve(Map<String, String> labels) {
            if (term.labelSelector() == null || (matchLabelKeys.isEmpty() && mismatchLabelKeys.isEmpty())) return term;
            List<LabelSelector.Requirement> extra = new ArrayList<>(term.labelSelector().matchExpressions());
            for (String k : matchLabelKeys) if (labels.containsKey(k)) extra.add(new LabelSelector.Requirement(k, "In", List.of(labels.get(k))));
            for (String k : mismatchLabelKeys) if (labels.containsKey(k)) extra.add(new LabelSelector.Requirement(k, "NotIn", List.of(labels.get(k))));
            return new PodAffinityTerm(new LabelSelector(term.labelSelector().matchLabels(), extra), term.namespaces(),
                    term.namespaceSelector(), term.topologyKey());
        }
    }

    private record WeightedDraft(int weight, TermDraft term) {}

    private static List<TermDraft> terms(Field list) {
        List<TermDraft> out = new ArrayList<>();
        for (Field t : list.items()) out.add(term(t));
        return out;
    }

    private static List<WeightedDraft> weighted(Field list) {
        List<WeightedDraft> out = new ArrayList<>();
        for (Field w : list.items()) out.add(new WeightedDraft(weight(w.get("weight")), term(required(w.get("podAffinityTerm")))));
        return out;
    }

    private static TermDraft term(Field t) {
        Field topologyKey = t.get("topologyKey");
        if (topologyKey.string() == null) throw topologyKey.error("can not be empty");
        ApiValidation.qualifiedKey(topologyKey, topologyKey.string());
        LabelSelector selector = t.get("labelSelector").isPresent() ? selector(t.get("labelSelector")) : null;
        LabelSelector namespaceSelector = t.get("namespaceSelector").isPresent() ? selector(t.get("namespaceSelector")) : null;
        List<String> namespaces = values(t.get("namespaces"));
        for (Field n : t.get("namespaces").items()) ApiValidation.namespace(n);
        List<String> match = labelKeys(t.get("matchLabelKeys"), selector);
        List<String> mismatch = labelKeys(t.get("mismatchLabelKeys"), selector);
        for (String k : match) {
            if (mismatch.contains(k)) throw t.get("mismatchLabelKeys").error("exists in both matchLabelKeys and mismatchLabelKeys: \"" + k + "\"");
        }
        return new TermDraft(new PodAffinityTerm(selector, namespaces, namespaceSelector, topologyKey.string()), match, mismatch);
    }

    private static List<PodAffinityTerm> resolve(List<TermDraft> drafts, Map<String, String> labels) {
        return drafts.stream().map(d -> d.resolve(labels)).toList();
    }

    private static List<WeightedPodAffinityTerm> resolveWeighted(List<WeightedDraft> drafts, Map<String, String> labels) {
        return drafts.stream().map(d -> new WeightedPodAffinityTerm(d.weight(), d.term().resolve(labels))).toList();
    }

    // ---- topology spread ---------------------------------------------------------------------------------------

    private record SpreadDraft(SpreadConstraint constraint, List<String> matchLabelKeys) {
        SpreadConstraint resolve(Map<String, String> labels) {
            SpreadConstraint c = constraint;
            if (matchLabelKeys.isEmpty() || c.labelSelector() == null) return c;
            Map<String, String> merged = new LinkedHashMap<>(c.labelSelector().matchLabels());
            for (String k : matchLabelKeys) if (labels.containsKey(k)) merged.put(k, labels.get(k));
            return new SpreadConstraint(c.maxSkew(), c.topologyKey(), c.doNotSchedule(),
                    new LabelSelector(merged, c.labelSelector().matchExpressions()), c.minDomains(), c.honorNodeAffinity(),
                    c.honorNodeTaints());
        }
    }

    private static List<SpreadDraft> spread(Field list) {
        List<SpreadDraft> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Field c : list.items()) {
            int maxSkew = c.get("maxSkew").integer(0, n -> n > 0, "must be greater than zero");
            if (!c.get("maxSkew").isPresent()) throw c.get("maxSkew").error("is required");
            Field keyField = c.get("topologyKey");
            String key = keyField.string();
            if (key == null) throw keyField.error("can not be empty");
            ApiValidation.qualifiedKey(keyField, key);
            Field when = c.get("whenUnsatisfiable");
            String w = when.requiredString();
            if (!w.equals("DoNotSchedule") && !w.equals("ScheduleAnyway")) {
                throw when.error("Unsupported value: \"" + w + "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
            }
            if (!seen.add(key + "/" + w)) throw keyField.error("Duplicate value: {\"" + key + "\", \"" + w + "\"}");
            Field minDomains = c.get("minDomains");
            int min = minDomains.integer(1, n -> n > 0, "must be greater than zero");
            if (minDomains.isPresent() && w.equals("ScheduleAnyway")) {
                throw minDomains.error("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway");
            }
            LabelSelector selector = c.get("labelSelector").isPresent() ? selector(c.get("labelSelector")) : null;
            out.add(new SpreadDraft(new SpreadConstraint(maxSkew, key, w.equals("DoNotSchedule"), selector, min,
                    policy(c.get("nodeAffinityPolicy"), true), policy(c.get("nodeTaintsPolicy"), false)),
                    labelKeys(c.get("matchLabelKeys"), selector)));
        }
        return out;
    }

    /** Honor or Ignore; {@code honorByDefault} when absent. */
    private static boolean policy(Field f, boolean honorByDefault) {
        String p = f.string();
        if (p == null) return honorByDefault;
        if (!p.equals("Honor") && !p.equals("Ignore")) {
            throw f.error("Unsupported value: \"" + p + "\": supported values: \"Honor\", \"Ignore\"");
        }
        return p.equals("Honor");
    }

    // ---- host ports --------------------------------------------------------------------------------------------

    /** The pod's host ports: containers' {@code hostPort}, or with {@code hostNetwork} every {@code containerPort}. */
    private static List<HostPort> hostPorts(Field spec) {
        boolean hostNetwork = spec.get("hostNetwork").bool(false);
        List<HostPort> out = new ArrayList<>();
        List<Field> containers = new ArrayList<>(spec.get("containers").items());
        for (Field c : spec.get("initContainers").items()) if ("Always".equals(c.get("restartPolicy").string())) containers.add(c);
        for (Field c : containers) {
            for (Field p : c.get("ports").items()) {
                Field host = p.get("hostPort");
                Field from = host.isPresent() ? host : hostNetwork ? p.get("containerPort") : null;
                if (from == null) continue;
                int port = from.integer(0, n -> n >= 1 && n <= 65535, "must be between 1 and 65535, inclusive");
                String protocol = p.get("protocol").string("TCP");
                if (!PROTOCOLS.contains(protocol)) {
                    throw p.get("protocol").error("Unsupported value: \"" + protocol + "\": supported values: \"SCTP\", \"TCP\", \"UDP\"");
                }
                out.add(new HostPort(protocol, p.get("hostIP").string(""), port));
            }
        }
        return out;
    }

    // ---- shared ------------------------------------------------------------------------------------------------

    /** A label selector; checks operators, values and keys as the API server does. */
    static LabelSelector selector(Field f) {
        Map<String, String> matchLabels = new LinkedHashMap<>();
        for (Map.Entry<String, Field> e : f.get("matchLabels").entries().entrySet()) {
            ApiValidation.qualifiedKey(e.getValue(), e.getKey());
            matchLabels.put(e.getKey(), e.getValue().string(""));
        }
        List<LabelSelector.Requirement> expressions = new ArrayList<>();
        for (Field e : f.get("matchExpressions").items()) {
            Field keyField = e.get("key");
            String key = keyField.requiredString();
            ApiValidation.qualifiedKey(keyField, key);
            String op = operator(e.get("operator"), LABEL_OPERATORS);
            List<String> values = values(e.get("values"));
            if ((op.equals("In") || op.equals("NotIn")) && values.isEmpty()) {
                throw e.get("values").error("must be specified when `operator` is 'In' or 'NotIn'");
            }
            if ((op.equals("Exists") || op.equals("DoesNotExist")) && !values.isEmpty()) {
                throw e.get("values").error("may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
            }
            expressions.add(new LabelSelector.Requirement(key, op, values));
        }
        return new LabelSelector(matchLabels, expressions);
    }

    private static String operator(Field f, Set<String> allowed) {
        String op = f.requiredString();
        if (!allowed.contains(op)) {
            throw f.error("Unsupported value: \"" + op + "\": supported values: "
                    + String.join(", ", new java.util.TreeSet<>(allowed).stream().map(a -> "\"" + a + "\"").toList()));
        }
        return op;
    }

    private static List<String> values(Field list) {
        List<String> out = new ArrayList<>();
        for (Field v : list.items()) out.add(v.string(""));
        return out;
    }

    /** {@code matchLabelKeys}/{@code mismatchLabelKeys}: label keys not also in the selector's matchLabels. */
    private static List<String> labelKeys(Field list, LabelSelector selector) {
        List<String> out = new ArrayList<>();
        for (Field k : list.items()) {
            String key = k.requiredString();
            ApiValidation.qualifiedKey(k, key);
            if (selector == null) throw k.error("must not be specified when labelSelector is not set");
            if (selector.matchLabels().containsKey(key)) throw k.error("exists in both matchLabelKeys and labelSelector: \"" + key + "\"");
            out.add(key);
        }
        return out;
    }

    private static int weight(Field w) {
        if (!w.isPresent()) throw w.error("is required");
        return w.integer(0, n -> n >= 1 && n <= 100, "must be in the range 1-100");
    }

    private static Field required(Field f) {
        if (!f.isPresent()) throw f.error("is required");
        return f;
    }
}
