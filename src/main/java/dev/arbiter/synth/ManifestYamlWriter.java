package dev.arbiter.synth;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Writes {@link Manifests} as multi-document Kubernetes YAML that {@code ManifestLoader} reads back into equal
 * manifests: PriorityClasses, Queues (except an implicit default queue), Nodes, then PodGroups each followed by their
 * pods, then bare pods in their place among them — the order of creation. Pods carry their requests without the
 * implicit {@code pods: 1} (the loader adds it) and limits equal to them for extended resources (as the API server
 * requires), {@code spec.schedulerName}, {@code status.phase} and {@code status.startTime}, and their affinity,
 * topology spread constraints (one line each, in flow style) and host ports.
 *
 * <p>A small writer of our own, streamed, so a 100k-pod cluster never sits in memory as text. It writes YAML the way
 * people write it: keys and string values plain ({@code name: q-00}, {@code nvidia.com/gpu: 16Gi}), double-quoted
 * only where YAML would read the plain text as something else or not at all ({@code "8"}, {@code "true"},
 * {@code "1e3"}, {@code "2026-11-29T10:00:00Z"}, {@code "a: b"}, {@code ""}); integers are written as integers.
 */
public final class ManifestYamlWriter {
    private final Writer out;

    private ManifestYamlWriter(Writer out) {
        this.out = out;
    }

    public static String toYaml(Manifests m) {
        StringWriter w = new StringWriter();
        write(m, w);
        return w.toString();
    }

    /** Streams {@code m} to {@code out} (not closed). */
    public static void write(Manifests m, Writer out) {
        try {
            new ManifestYamlWriter(out).all(m);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void all(Manifests m) throws IOException {
        for (PriorityClassSpec pc : m.priorityClasses()) priorityClass(pc);
        for (QueueSpec q : m.queues()) {
            if (q.equals(QueueSpec.defaultQueue())) continue;
            queue(q);
        }
        for (NodeSpec n : m.nodes()) node(n);
        for (dev.arbiter.model.HyperNodeSpec h : m.hyperNodes()) hyperNode(h);
        // Objects in creation order: a PodGroup before its pods, then pods (of groups or bare) by creation order.
        List<Object> sequence = new ArrayList<>(m.podGroups());
        for (PodSpec p : m.pods()) sequence.add(p);
        sequence.sort(java.util.Comparator.comparingLong(o -> o instanceof PodGroupSpec g ? g.creationOrder()
                : ((PodSpec) o).creationOrder()));
        for (Object o : sequence) {
            if (o instanceof PodGroupSpec g) podGroup(g);
            else pod((PodSpec) o);
        }
    }

    private void priorityClass(PriorityClassSpec pc) throws IOException {
        begin("scheduling.k8s.io/v1", "PriorityClass");
        line(1, "name", pc.name());
        line(0, "value", Integer.toString(pc.value()), false);
        line(0, "globalDefault", Boolean.toString(pc.globalDefault()), false);
        if (pc.preemptionPolicy() != null) line(0, "preemptionPolicy", pc.preemptionPolicy());
    }

    private void queue(QueueSpec q) throws IOException {
        begin("scheduling.volcano.sh/v1beta1", "Queue");
        line(1, "name", q.name());
        out.write("spec:\n");
        line(1, "weight", Integer.toString(q.weight()), false);
        line(1, "priority", Integer.toString(q.priority()), false);
        line(1, "reclaimable", Boolean.toString(q.reclaimable()), false);
        if (q.parent() != null) line(1, "parent", q.parent());
        if (q.capability() != null) {
            out.write("  capability:\n");
            for (Map.Entry<String, String> e : q.capability().asQuantities().entrySet()) line(2, e.getKey(), e.getValue());
        }
        if (!q.guarantee().isEmpty()) {
            out.write("  guarantee:\n");
            resources(2, "resource", q.guarantee());
        }
        out.write("status:\n");
        line(1, "state", q.state());
    }

    private void node(NodeSpec n) throws IOException {
        begin("v1", "Node");
        line(1, "name", n.name());
        map(1, "labels", n.labels());
        out.write("spec:\n");
        if (n.unschedulable()) line(1, "unschedulable", "true", false);
        if (!n.taints().isEmpty()) {
            out.write("  taints:\n");
            for (Taint t : n.taints()) {
                out.write("  - key: " + q(t.key()) + "\n");
                if (t.value() != null) out.write("    value: " + q(t.value()) + "\n");
                out.write("    effect: " + q(t.effect()) + "\n");
            }
        }
        out.write("status:\n");
        resources(1, "allocatable", n.allocatable());
    }

    private void podGroup(PodGroupSpec g) throws IOException {
        begin("scheduling.volcano.sh/v1beta1", "PodGroup");
        line(1, "name", g.name());
        line(1, "namespace", g.namespace());
        out.write("spec:\n");
        line(1, "queue", g.queue());
        line(1, "minMember", Integer.toString(g.minMember()), false);
        if (!g.minTaskMember().isEmpty()) {
            out.write("  minTaskMember:\n");
            for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(g.minTaskMember()).entrySet()) {
                line(2, e.getKey(), Integer.toString(e.getValue()), false);
            }
        }
        if (g.minResources() != null) resources(1, "minResources", g.minResources());
        if (g.priorityClassName() != null) line(1, "priorityClassName", g.priorityClassName());
        dev.arbiter.model.NetworkTopology t = g.networkTopology();
        if (t != null && t.level() == null) {
            out.write("  networkTopology: {mode: " + (t.hard() ? "hard" : "soft") + ", highestTierAllowed: "
                    + t.highestTier() + "}\n");
        }
        out.write("status:\n");
        line(1, "phase", g.phase());
    }

    private void hyperNode(dev.arbiter.model.HyperNodeSpec h) throws IOException {
        begin("topology.volcano.sh/v1alpha1", "HyperNode");
        line(1, "name", h.name());
        out.write("spec:\n");
        line(1, "tier", Integer.toString(h.tier()), false);
        out.write("  members:\n");
        for (dev.arbiter.model.HyperNodeSpec.Member m : h.members()) {
            Map<String, Object> selector = new java.util.LinkedHashMap<>();
            if (m.exactName() != null) selector.put("exactMatch", Map.of("name", m.exactName()));
            else if (m.regex() != null) selector.put("regexMatch", Map.of("pattern", m.regex()));
            else selector.put("labelMatch", selector(m.labels()));
            out.write("  - type: " + (m.type() == dev.arbiter.model.HyperNodeSpec.MemberType.NODE ? "Node" : "HyperNode")
                    + "\n    selector: " + flow(selector) + "\n");
        }
    }

    private void pod(PodSpec p) throws IOException {
        begin("v1", "Pod");
        line(1, "name", p.name());
        line(1, "namespace", p.namespace());
        map(1, "labels", p.labels());
        map(1, "annotations", p.annotations());
        out.write("spec:\n");
        line(1, "schedulerName", p.schedulerName());
        if (p.nodeName() != null) line(1, "nodeName", p.nodeName());
        if (p.priorityClassName() != null) line(1, "priorityClassName", p.priorityClassName());
        if (p.priority() != null) line(1, "priority", Integer.toString(p.priority()), false);
        if (p.preemptionPolicy() != null) line(1, "preemptionPolicy", p.preemptionPolicy());
        map(1, "nodeSelector", p.nodeSelector());
        if (!p.tolerations().isEmpty()) {
            out.write("  tolerations:\n");
            for (Toleration t : p.tolerations()) {
                out.write("  - operator: " + q(t.operator() == null ? "Equal" : t.operator()) + "\n");
                if (t.key() != null) out.write("    key: " + q(t.key()) + "\n");
                if (t.value() != null) out.write("    value: " + q(t.value()) + "\n");
                if (t.effect() != null) out.write("    effect: " + q(t.effect()) + "\n");
            }
        }
        placement(p.placement());
        out.write("  containers:\n  - name: main\n");
        if (!p.placement().hostPorts().isEmpty()) {
            List<Object> ports = new ArrayList<>();
            for (Placement.HostPort hp : p.placement().hostPorts()) {
                Map<String, Object> port = new java.util.LinkedHashMap<>();
                port.put("containerPort", hp.port());
                port.put("hostPort", hp.port());
                port.put("protocol", hp.protocol());
                if (!hp.hostIP().isEmpty()) port.put("hostIP", hp.hostIP());
                ports.add(port);
            }
            out.write("    ports: " + flow(ports) + "\n");
        }
        out.write("    resources:\n");
        Resources requests = p.requests().subtract(Resources.of("pods", 1));
        resources(3, "requests", requests);
        Resources extended = extended(requests);
        if (!extended.isEmpty()) resources(3, "limits", extended);
        if (p.phase() != null || p.startedAt() != PodSpec.UNKNOWN_START) {
            out.write("status:\n");
            if (p.phase() != null) line(1, "phase", p.phase());
            if (p.startedAt() != PodSpec.UNKNOWN_START) {
                line(1, "startTime", java.time.Instant.ofEpochSecond(p.startedAt()).toString());
            }
        }
    }

    /** {@code affinity} and {@code topologySpreadConstraints}, in flow style (one line each). */
    private void placement(Placement pl) throws IOException {
        Map<String, Object> affinity = new java.util.LinkedHashMap<>();
        Placement.NodeAffinity na = pl.nodeAffinity();
        if (!na.isNone()) {
            Map<String, Object> node = new java.util.LinkedHashMap<>();
            if (na.required() != null) {
                List<Object> terms = new ArrayList<>();
                for (Placement.NodeSelectorTerm t : na.required()) terms.add(nodeTerm(t));
                node.put("requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms", terms));
            }
            if (!na.preferred().isEmpty()) {
                List<Object> prefs = new ArrayList<>();
                for (Placement.WeightedNodeTerm w : na.preferred()) {
                    Map<String, Object> m = new java.util.LinkedHashMap<>();
                    m.put("weight", w.weight());
                    m.put("preference", nodeTerm(w.term()));
                    prefs.add(m);
                }
                node.put("preferredDuringSchedulingIgnoredDuringExecution", prefs);
            }
            affinity.put("nodeAffinity", node);
        }
        if (!pl.podAffinity().isNone()) affinity.put("podAffinity", podAffinity(pl.podAffinity()));
        if (!pl.podAntiAffinity().isNone()) affinity.put("podAntiAffinity", podAffinity(pl.podAntiAffinity()));
        if (!affinity.isEmpty()) out.write("  affinity: " + flow(affinity) + "\n");
        if (!pl.spread().isEmpty()) {
            List<Object> constraints = new ArrayList<>();
            for (Placement.SpreadConstraint c : pl.spread()) {
                Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("maxSkew", c.maxSkew());
                m.put("topologyKey", c.topologyKey());
                m.put("whenUnsatisfiable", c.doNotSchedule() ? "DoNotSchedule" : "ScheduleAnyway");
                if (c.labelSelector() != null) m.put("labelSelector", selector(c.labelSelector()));
                if (c.minDomains() != 1) m.put("minDomains", c.minDomains());
                if (!c.honorNodeAffinity()) m.put("nodeAffinityPolicy", "Ignore");
                if (c.honorNodeTaints()) m.put("nodeTaintsPolicy", "Honor");
                constraints.add(m);
            }
            out.write("  topologySpreadConstraints: " + flow(constraints) + "\n");
        }
    }

    private static Map<String, Object> nodeTerm(Placement.NodeSelectorTerm t) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        if (!t.matchExpressions().isEmpty()) m.put("matchExpressions", requirements(t.matchExpressions()));
        if (!t.matchFields().isEmpty()) m.put("matchFields", requirements(t.matchFields()));
        return m;
    }

    private static List<Object> requirements(List<Placement.NodeRequirement> rs) {
        List<Object> out = new ArrayList<>();
        for (Placement.NodeRequirement r : rs) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("key", r.key());
            m.put("operator", r.operator());
            if (!r.values().isEmpty()) m.put("values", new ArrayList<Object>(r.values()));
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> podAffinity(Placement.PodAffinity a) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        if (!a.required().isEmpty()) {
            List<Object> terms = new ArrayList<>();
            for (Placement.PodAffinityTerm t : a.required()) terms.add(podTerm(t));
            m.put("requiredDuringSchedulingIgnoredDuringExecution", terms);
        }
        if (!a.preferred().isEmpty()) {
            List<Object> terms = new ArrayList<>();
            for (Placement.WeightedPodAffinityTerm w : a.preferred()) {
                Map<String, Object> wm = new java.util.LinkedHashMap<>();
                wm.put("weight", w.weight());
                wm.put("podAffinityTerm", podTerm(w.term()));
                terms.add(wm);
            }
            m.put("preferredDuringSchedulingIgnoredDuringExecution", terms);
        }
        return m;
    }

    private static Map<String, Object> podTerm(Placement.PodAffinityTerm t) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        if (t.labelSelector() != null) m.put("labelSelector", selector(t.labelSelector()));
        if (!t.namespaces().isEmpty()) m.put("namespaces", new ArrayList<Object>(t.namespaces()));
        if (t.namespaceSelector() != null) m.put("namespaceSelector", selector(t.namespaceSelector()));
        m.put("topologyKey", t.topologyKey());
        return m;
    }

    private static Map<String, Object> selector(dev.arbiter.model.LabelSelector s) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        if (!s.matchLabels().isEmpty()) m.put("matchLabels", new java.util.TreeMap<String, Object>(s.matchLabels()));
        if (!s.matchExpressions().isEmpty()) {
            List<Object> exprs = new ArrayList<>();
            for (dev.arbiter.model.LabelSelector.Requirement r : s.matchExpressions()) {
                Map<String, Object> e = new java.util.LinkedHashMap<>();
                e.put("key", r.key());
                e.put("operator", r.operator());
                if (!r.values().isEmpty()) e.put("values", new ArrayList<Object>(r.values()));
                exprs.add(e);
            }
            m.put("matchExpressions", exprs);
        }
        return m;
    }

    /** YAML flow style: maps as {@code {k: v}}, lists as {@code [a, b]}, strings quoted only when needed. */
    private static String flow(Object o) {
        if (o instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (b.length() > 1) b.append(", ");
                b.append(flowScalar(e.getKey().toString())).append(": ").append(flow(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (o instanceof List<?> l) {
            StringBuilder b = new StringBuilder("[");
            for (Object x : l) {
                if (b.length() > 1) b.append(", ");
                b.append(flow(x));
            }
            return b.append(']').toString();
        }
        if (o instanceof Integer i) return i.toString();
        return flowScalar(o.toString());
    }

    /** Plain in flow context only without the indicators flow style reserves. */
    private static String flowScalar(String s) {
        String plain = q(s);
        return plain.startsWith("\"") || !(s.contains(",") || s.contains("[") || s.contains("]") || s.contains("{")
                || s.contains("}")) ? plain : quoted(s);
    }

    /**
     * The extended resources of {@code r} (domain-prefixed, outside kubernetes.io, such as nvidia.com/gpu): Kubernetes
     * cannot overcommit them, so a pod must set their limit to its request.
     */
    private static Resources extended(Resources r) {
        Map<String, Long> out = new java.util.TreeMap<>();
        r.asMilliMap().forEach((name, amount) -> {
            if (name.contains("/") && !name.contains("kubernetes.io/")) out.put(name, amount);
        });
        return Resources.ofMilli(out);
    }

    private void begin(String apiVersion, String kind) throws IOException {
        out.write("---\napiVersion: " + q(apiVersion) + "\nkind: " + q(kind) + "\nmetadata:\n");
    }

    private void line(int indent, String key, String value) throws IOException {
        line(indent, key, value, true);
    }

    private void line(int indent, String key, String value, boolean quote) throws IOException {
        out.write("  ".repeat(indent));
        out.write(q(key));
        out.write(": ");
        out.write(quote ? q(value) : value);
        out.write('\n');
    }

    private void map(int indent, String key, Map<String, String> m) throws IOException {
        if (m.isEmpty()) return;
        out.write("  ".repeat(indent) + key + ":\n");
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(m).entrySet()) line(indent + 1, e.getKey(), e.getValue());
    }

    private void resources(int indent, String key, Resources r) throws IOException {
        if (r.isEmpty()) {
            out.write("  ".repeat(indent) + key + ": {}\n");
            return;
        }
        out.write("  ".repeat(indent) + key + ":\n");
        for (Map.Entry<String, String> e : r.asQuantities().entrySet()) line(indent + 1, e.getKey(), e.getValue());
    }

    /** Text YAML reads back as this same string when written plain: no quotes, colons, spaces or leading signs. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?");
    /**
     * Plain text that YAML 1.1 (SnakeYAML) or 1.2 reads as something other than a string: booleans, null, integers
     * (decimal, binary, octal, hex, sexagesimal), floats, and timestamps.
     */
    private static final Pattern NOT_A_STRING = Pattern.compile("(?i)y|n|yes|no|true|false|on|off|null"
            + "|[-+]?(0|[1-9][0-9_]*)|0b[01_]+|0x[0-9a-f_]+|0o?[0-7_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+"
            + "|[-+]?([0-9][0-9_]*)?\\.[0-9._]*(e[-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(\\.[0-9_]*)?e[-+]?[0-9]+"
            + "|[-+]?\\.inf|\\.nan|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*");

    /** A YAML scalar for the string {@code s}: plain when that reads back as {@code s}, else double-quoted. */
    static String q(String s) {
        return PLAIN.matcher(s).matches() && !NOT_A_STRING.matcher(s).matches() ? s : quoted(s);
    }

    /** A double-quoted YAML scalar. */
    private static String quoted(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\x%02x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }
}
