package dev.arbiter.model;

import java.util.List;
import java.util.Map;

/**
 * Where a pod may run beyond its resources, nodeSelector and tolerations: node affinity, pod affinity and
 * anti-affinity, topology spread constraints and host ports, with kube-scheduler's semantics (see
 * docs/architecture.md, "Placement constraints"). {@link #NONE} for a pod that states none.
 *
 * <p>Also what the pod needs that Arbiter does not evaluate ({@code notEvaluated}, e.g. {@code spec.resourceClaims}) and
 * its scheduling gates: such a pod stays pending with a reason naming them, and is never bound blind.
 *
 * <p>{@code matchLabelKeys}/{@code mismatchLabelKeys} are folded into the selectors when the pod is read (they take
 * the pod's own label values), so every selector here is final.
 */
public record Placement(NodeAffinity nodeAffinity, PodAffinity podAffinity, PodAffinity podAntiAffinity,
                        List<SpreadConstraint> spread, List<HostPort> hostPorts, List<String> notEvaluated,
                        List<String> schedulingGates) {
    public static final Placement NONE = new Placement(NodeAffinity.NONE, PodAffinity.NONE, PodAffinity.NONE, List.of(),
            List.of(), List.of(), List.of());

    public Placement {
        spread = List.copyOf(spread);
        hostPorts = List.copyOf(hostPorts);
        notEvaluated = List.copyOf(notEvaluated);
        schedulingGates = List.copyOf(schedulingGates);
    }

    /** True when nothing beyond nodeSelector and tolerations constrains the pod. */
    public boolean isNone() {
        return equals(NONE);
    }

    /** Whether the pod has pod (anti-)affinity, spread constraints or host ports: rules that depend on other pods. */
    public boolean dependsOnPods() {
        return !podAffinity.isNone() || !podAntiAffinity.isNone() || !spread.isEmpty() || !hostPorts.isEmpty();
    }

    /**
     * Whether a pod with this placement, placed on {@code own}, still fits there if {@code otherPod} appears (comes
     * back) on {@code other}: a pod that appears can break only a required anti-affinity term or a DoNotSchedule
     * spread constraint whose selector it matches, and only within the term's topology domain on {@code own} (outside
     * it, a spread's skew can only fall); a host port only on the same node. A key {@code own} lacks counts as reached.
     */
    public boolean indifferentTo(NodeSpec own, NodeSpec other, PodSpec otherPod) {
        if (!dependsOnPods()) return true;
        if (!hostPorts.isEmpty() && own.name().equals(other.name())) return false;
        for (PodAffinityTerm t : podAntiAffinity.required()) {
            if (t.labelSelector() != null && t.labelSelector().matches(otherPod.labels()) && sameDomain(own, other, t.topologyKey())) {
                return false;
            }
        }
        for (SpreadConstraint c : spread) {
            if (c.doNotSchedule() && c.labelSelector() != null && c.labelSelector().matches(otherPod.labels())
                    && sameDomain(own, other, c.topologyKey())) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameDomain(NodeSpec own, NodeSpec other, String key) {
        String mine = own.labels().get(key);
        return mine == null || mine.equals(other.labels().get(key));
    }

    public Placement withNodeAffinity(NodeAffinity a) {
        return new Placement(a, podAffinity, podAntiAffinity, spread, hostPorts, notEvaluated, schedulingGates);
    }

    public Placement withPodAffinity(PodAffinity a) {
        return new Placement(nodeAffinity, a, podAntiAffinity, spread, hostPorts, notEvaluated, schedulingGates);
    }

    public Placement withPodAntiAffinity(PodAffinity a) {
        return new Placement(nodeAffinity, podAffinity, a, spread, hostPorts, notEvaluated, schedulingGates);
    }

    public Placement withSpread(List<SpreadConstraint> s) {
        return new Placement(nodeAffinity, podAffinity, podAntiAffinity, s, hostPorts, notEvaluated, schedulingGates);
    }

    public Placement withHostPorts(List<HostPort> p) {
        return new Placement(nodeAffinity, podAffinity, podAntiAffinity, spread, p, notEvaluated, schedulingGates);
    }

    // ---- node affinity ----------------------------------------------------------------------------------------

    /**
     * {@code required} null when the pod has no required node affinity (every node passes); otherwise its terms are
     * ORed (an empty list passes no node). {@code preferred}: weighted terms that score nodes.
     */
    public record NodeAffinity(List<NodeSelectorTerm> required, List<WeightedNodeTerm> preferred) {
        public static final NodeAffinity NONE = new NodeAffinity(null, List.of());

        public NodeAffinity {
            required = required == null ? null : List.copyOf(required);
            preferred = List.copyOf(preferred);
        }

        public boolean isNone() {
            return required == null && preferred.isEmpty();
        }

        /** The required terms pass the node (any term; none stated: every node). */
        public boolean requiredMatches(NodeSpec node) {
            if (required == null) return true;
            for (NodeSelectorTerm t : required) if (t.matches(node)) return true;
            return false;
        }

        /** The sum of the weights of the preferred terms the node matches. */
        public int preferredWeight(NodeSpec node) {
            int w = 0;
            for (WeightedNodeTerm t : preferred) if (t.term().matches(node)) w += t.weight();
            return w;
        }
    }

    /** One node selector term: every expression (on labels) and every field requirement must hold. */
    public record NodeSelectorTerm(List<NodeRequirement> matchExpressions, List<NodeRequirement> matchFields) {
        public NodeSelectorTerm {
            matchExpressions = List.copyOf(matchExpressions);
            matchFields = List.copyOf(matchFields);
        }

        /** A term of label expressions only. */
        public static NodeSelectorTerm of(NodeRequirement... expressions) {
            return new NodeSelectorTerm(List.of(expressions), List.of());
        }

        /** An empty term matches no node (Kubernetes: "a null or empty node selector term matches no objects"). */
        public boolean matches(NodeSpec node) {
            if (matchExpressions.isEmpty() && matchFields.isEmpty()) return false;
            for (NodeRequirement r : matchExpressions) if (!r.matches(node.labels())) return false;
            for (NodeRequirement r : matchFields) if (!r.matches(Map.of(r.key(), node.name()))) return false;
            return true;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            for (NodeRequirement r : matchExpressions) sb.append(sb.length() == 0 ? "" : ", ").append(r);
            for (NodeRequirement r : matchFields) sb.append(sb.length() == 0 ? "" : ", ").append(r);
            return sb.toString();
        }
    }

    /**
     * A node selector requirement: {@code In}, {@code NotIn} (also passes a node without the label), {@code Exists},
     * {@code DoesNotExist}, {@code Gt} and {@code Lt} (the label, read as an integer, is greater or less than the single
     * value; a label that is not an integer fails). For {@code matchFields} the key is {@code metadata.name}.
     */
    public record NodeRequirement(String key, String operator, List<String> values) {
        public NodeRequirement {
            values = List.copyOf(values);
        }

        public boolean matches(Map<String, String> labels) {
            String v = labels.get(key);
            if (!operator.equals("Gt") && !operator.equals("Lt")) return LabelSelector.Requirement.setOperator(operator, v, values);
            Long label = integer(v), bound = values.isEmpty() ? null : integer(values.get(0));
            return label != null && bound != null && (operator.equals("Gt") ? label > bound : label < bound);
        }

        /** {@code v} as a 64-bit integer, or null. */
        public static Long integer(String v) {
            if (v == null) return null;
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                return null;
            }
        }

        @Override
        public String toString() {
            return switch (operator) {
                case "Exists" -> key;
                case "DoesNotExist" -> "!" + key;
                case "Gt" -> key + ">" + values.get(0);
                case "Lt" -> key + "<" + values.get(0);
                default -> key + " " + operator.toLowerCase() + " (" + String.join(",", values) + ")";
            };
        }
    }

    public record WeightedNodeTerm(int weight, NodeSelectorTerm term) {}

    // ---- pod affinity ------------------------------------------------------------------------------------------

    /** Required terms (all must hold) and weighted preferred terms, for pod affinity or for pod anti-affinity. */
    public record PodAffinity(List<PodAffinityTerm> required, List<WeightedPodAffinityTerm> preferred) {
        public static final PodAffinity NONE = new PodAffinity(List.of(), List.of());

        public PodAffinity {
            required = List.copyOf(required);
            preferred = List.copyOf(preferred);
        }

        public boolean isNone() {
            return required.isEmpty() && preferred.isEmpty();
        }
    }

    /**
     * Pods matching {@code labelSelector} (null: none) in the term's namespaces, counted per value of the nodes'
     * {@code topologyKey} label. Namespaces: those listed, plus those whose labels match {@code namespaceSelector}
     * (an empty selector: every namespace); with neither, the namespace of the pod that states the term.
     */
    public record PodAffinityTerm(LabelSelector labelSelector, List<String> namespaces, LabelSelector namespaceSelector,
                                  String topologyKey) {
        public PodAffinityTerm {
            namespaces = List.copyOf(namespaces);
        }

        /** A term over the owner's own namespace. */
        public static PodAffinityTerm of(LabelSelector selector, String topologyKey) {
            return new PodAffinityTerm(selector, List.of(), null, topologyKey);
        }

        /**
         * Whether the term, stated by a pod of namespace {@code owner}, covers namespace {@code namespace} (whose labels
         * are {@code namespaceLabels}).
         */
        public boolean coversNamespace(String owner, String namespace, Map<String, String> namespaceLabels) {
            if (namespaces.isEmpty() && namespaceSelector == null) return owner.equals(namespace);
            return namespaces.contains(namespace) || (namespaceSelector != null && namespaceSelector.matches(namespaceLabels));
        }

        /** Whether the term, stated by a pod of namespace {@code owner}, matches {@code pod}. */
        public boolean matches(String owner, PodSpec pod, Map<String, String> namespaceLabels) {
            return labelSelector != null && coversNamespace(owner, pod.namespace(), namespaceLabels)
                    && labelSelector.matches(pod.labels());
        }

        @Override
        public String toString() {
            return (labelSelector == null ? "<nothing>" : labelSelector.toString()) + " per " + topologyKey;
        }
    }

    public record WeightedPodAffinityTerm(int weight, PodAffinityTerm term) {}

    // ---- topology spread ---------------------------------------------------------------------------------------

    /**
     * A topology spread constraint. {@code doNotSchedule} false is {@code ScheduleAnyway} (it scores instead of
     * filtering). Matching pods of the pod's own namespace are counted per {@code topologyKey} domain, over the nodes
     * that carry every topology key of the pod's constraints and that pass its node affinity and nodeSelector
     * ({@code nodeAffinityPolicy: Honor}, the default) and its tolerations ({@code nodeTaintsPolicy: Honor}; the
     * default Ignore counts tainted nodes too). A node passes when the count in its domain, plus one if the pod
     * matches its own selector, exceeds the smallest count over those domains by at most {@code maxSkew}; with fewer
     * domains than {@code minDomains} the smallest count is taken as 0.
     */
    public record SpreadConstraint(int maxSkew, String topologyKey, boolean doNotSchedule, LabelSelector labelSelector,
                                   int minDomains, boolean honorNodeAffinity, boolean honorNodeTaints) {
        @Override
        public String toString() {
            return "maxSkew " + maxSkew + " per " + topologyKey + " of " + (labelSelector == null ? "<nothing>" : labelSelector)
                    + (doNotSchedule ? "" : " (ScheduleAnyway)");
        }
    }

    // ---- host ports --------------------------------------------------------------------------------------------

    /**
     * A port the pod binds on its node ({@code hostPort}, or every container port with {@code hostNetwork}).
     * Two conflict when protocol and port are equal and their host IPs are equal or either is unspecified
     * ({@code 0.0.0.0}).
     */
    public record HostPort(String protocol, String hostIP, int port) {
        public boolean conflicts(HostPort o) {
            if (port != o.port || !protocol.equals(o.protocol)) return false;
            return hostIP.equals(o.hostIP) || isAny(hostIP) || isAny(o.hostIP);
        }

        private static boolean isAny(String ip) {
            return ip.isEmpty() || ip.equals("0.0.0.0") || ip.equals("::");
        }

        @Override
        public String toString() {
            return (isAny(hostIP) ? "" : hostIP + ":") + port + "/" + protocol;
        }
    }
}
