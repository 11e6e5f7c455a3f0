package dev.arbiter.synth;

import dev.arbiter.model.HyperNodeSpec;
import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodGroupSpec;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Writes {@link Manifests} as multi-document Kubernetes YAML that {@code ManifestLoader} reads back into equal
 * manifests: PriorityClasses, Queues (except an implicit default queue), Nodes, HyperNodes, then PodGroups each
 * followed by their pods, then bare pods in their place among them — the order of creation. Pods carry their requests
 * without the implicit {@code pods: 1} (the loader adds it) and limits equal to them for extended resources (as the
 * API server requires), {@code spec.schedulerName}, {@code status.phase} and {@code status.startTime}, and their
 * affinity, topology spread constraints (one line each, in flow style) and host ports.
 *
 * <p>Each object becomes plain maps and lists in the order kubectl shows its fields, and SnakeYAML's emitter writes
 * them, one document at a time as {@link Yaml#dumpAll} pulls them, so a 100k-pod cluster never sits in memory as text.
 * SnakeYAML decides the quoting: plain where the text reads back as itself ({@code name: q-00},
 * {@code memory: 16Gi}); a string YAML would read as a number, boolean, null or timestamp ({@code "8"}, {@code "true"},
 * {@code "2026-11-29T10:00:00Z"}) is double-quoted, as kubectl writes it.
 */
public final class ManifestYamlWriter {
    private ManifestYamlWriter() {}

    public static String toYaml(Manifests m) {
        StringWriter w = new StringWriter();
        write(m, w);
        return w.toString();
    }

    /** Streams {@code m} to {@code out} (not closed). */
    public static void write(Manifests m, Writer out) {
        yaml().dumpAll(documents(m), out);
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Block style, two-space indents, {@code ---} before each document, no line folding, no anchors. */
    private static Yaml yaml() {
        DumperOptions o = new DumperOptions();
        o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        o.setIndent(2);
        o.setExplicitStart(true);
        o.setWidth(Integer.MAX_VALUE);
        o.setSplitLines(false);
        o.setDereferenceAliases(true);
        return new Yaml(new KubectlRepresenter(o), o);
    }

    /** A map or list written in flow style, on one line: {@code affinity: {nodeAffinity: {...}}}. */
    private record Flow(Object value) {}

    /** Strings YAML would read as another type double-quoted (SnakeYAML alone single-quotes them); {@link Flow}. */
    private static final class KubectlRepresenter extends Representer {
        private final Resolver resolver = new Resolver();

        KubectlRepresenter(DumperOptions o) {
            super(o);
            representers.put(String.class, data -> representScalar(Tag.STR, (String) data,
                    resolver.resolve(NodeId.scalar, (String) data, true).equals(Tag.STR) ? DumperOptions.ScalarStyle.PLAIN
                            : DumperOptions.ScalarStyle.DOUBLE_QUOTED));
            representers.put(Flow.class, data -> ((Flow) data).value() instanceof Map<?, ?> m
                    ? representMapping(Tag.MAP, m, DumperOptions.FlowStyle.FLOW)
                    : representSequence(Tag.SEQ, (List<?>) ((Flow) data).value(), DumperOptions.FlowStyle.FLOW));
        }
    }

    /** The objects in creation order, each turned into its document only when the emitter asks for it. */
    private static Iterator<Object> documents(Manifests m) {
        List<Object> sequence = new ArrayList<>(m.podGroups());
        sequence.addAll(m.pods());
        sequence.sort(Comparator.comparingLong(o -> o instanceof PodGroupSpec g ? g.creationOrder()
                : ((PodSpec) o).creationOrder()));
        return Stream.<Stream<?>>of(
                        m.priorityClasses().stream().map(ManifestYamlWriter::priorityClass),
                        m.queues().stream().filter(q -> !q.equals(QueueSpec.defaultQueue())).map(ManifestYamlWriter::queue),
                        m.nodes().stream().map(ManifestYamlWriter::node),
                        m.hyperNodes().stream().map(ManifestYamlWriter::hyperNode),
                        sequence.stream().map(o -> o instanceof PodGroupSpec g ? podGroup(g) : pod((PodSpec) o)))
                .<Object>flatMap(s -> s)
                .iterator();
    }

    private static Map<String, Object> object(String apiVersion, String kind, Map<String, Object> metadata) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", apiVersion);
        o.put("kind", kind);
        o.put("metadata", metadata);
        return o;
    }

    private static Map<String, Object> named(String name) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        return m;
    }

    private static Map<String, Object> namespaced(String namespace, String name) {
        Map<String, Object> m = named(name);
        m.put("namespace", namespace);
        return m;
    }

    private static Map<String, Object> priorityClass(PriorityClassSpec pc) {
        Map<String, Object> o = object("scheduling.k8s.io/v1", "PriorityClass", named(pc.name()));
        o.put("value", pc.value());
        o.put("globalDefault", pc.globalDefault());
        if (pc.preemptionPolicy() != null) o.put("preemptionPolicy", pc.preemptionPolicy());
        return o;
    }

    private static Map<String, Object> queue(QueueSpec q) {
        Map<String, Object> o = object("scheduling.volcano.sh/v1beta1", "Queue", named(q.name()));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("weight", q.weight());
        spec.put("priority", q.priority());
        spec.put("reclaimable", q.reclaimable());
        if (q.parent() != null) spec.put("parent", q.parent());
        if (q.capability() != null) spec.put("capability", new LinkedHashMap<String, Object>(q.capability().asQuantities()));
        if (!q.guarantee().isEmpty()) spec.put("guarantee", Map.of("resource", quantities(q.guarantee())));
        o.put("spec", spec);
        o.put("status", Map.of("state", q.state()));
        return o;
    }

    private static Map<String, Object> node(NodeSpec n) {
        Map<String, Object> metadata = named(n.name());
        if (!n.labels().isEmpty()) metadata.put("labels", new TreeMap<String, Object>(n.labels()));
        Map<String, Object> o = object("v1", "Node", metadata);
        Map<String, Object> spec = new LinkedHashMap<>();
        if (n.unschedulable()) spec.put("unschedulable", true);
        if (!n.taints().isEmpty()) {
            List<Object> taints = new ArrayList<>();
            for (Taint t : n.taints()) {
                Map<String, Object> tm = new LinkedHashMap<>();
                tm.put("key", t.key());
                if (t.value() != null) tm.put("value", t.value());
                tm.put("effect", t.effect());
                taints.add(tm);
            }
            spec.put("taints", taints);
        }
        o.put("spec", spec);
        o.put("status", Map.of("allocatable", quantities(n.allocatable())));
        return o;
    }

    private static Map<String, Object> podGroup(PodGroupSpec g) {
        Map<String, Object> o = object("scheduling.volcano.sh/v1beta1", "PodGroup", namespaced(g.namespace(), g.name()));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("queue", g.queue());
        spec.put("minMember", g.minMember());
        if (!g.minTaskMember().isEmpty()) spec.put("minTaskMember", new TreeMap<String, Object>(g.minTaskMember()));
        if (g.minResources() != null) spec.put("minResources", quantities(g.minResources()));
        if (g.priorityClassName() != null) spec.put("priorityClassName", g.priorityClassName());
        NetworkTopology t = g.networkTopology();
        if (t != null && t.level() == null) {
            Map<String, Object> nt = new LinkedHashMap<>();
            nt.put("mode", t.hard() ? "hard" : "soft");
            nt.put("highestTierAllowed", t.highestTier());
            spec.put("networkTopology", new Flow(nt));
        }
        o.put("spec", spec);
        o.put("status", Map.of("phase", g.phase()));
        return o;
    }

    private static Map<String, Object> hyperNode(HyperNodeSpec h) {
        Map<String, Object> o = object("topology.volcano.sh/v1alpha1", "HyperNode", named(h.name()));
        List<Object> members = new ArrayList<>();
        for (HyperNodeSpec.Member m : h.members()) {
            Map<String, Object> selector = new LinkedHashMap<>();
            if (m.exactName() != null) selector.put("exactMatch", Map.of("name", m.exactName()));
            else if (m.regex() != null) selector.put("regexMatch", Map.of("pattern", m.regex()));
            else selector.put("labelMatch", selector(m.labels()));
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("type", m.type() == HyperNodeSpec.MemberType.NODE ? "Node" : "HyperNode");
            member.put("selector", new Flow(selector));
            members.add(member);
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("tier", h.tier());
        spec.put("members", members);
        o.put("spec", spec);
        return o;
    }

    private static Map<String, Object> pod(PodSpec p) {
        Map<String, Object> metadata = namespaced(p.namespace(), p.name());
        if (!p.labels().isEmpty()) metadata.put("labels", new TreeMap<String, Object>(p.labels()));
        if (!p.annotations().isEmpty()) metadata.put("annotations", new TreeMap<String, Object>(p.annotations()));
        Map<String, Object> o = object("v1", "Pod", metadata);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("schedulerName", p.schedulerName());
        if (p.nodeName() != null) spec.put("nodeName", p.nodeName());
        if (p.priorityClassName() != null) spec.put("priorityClassName", p.priorityClassName());
        if (p.priority() != null) spec.put("priority", p.priority());
        if (p.preemptionPolicy() != null) spec.put("preemptionPolicy", p.preemptionPolicy());
        if (!p.nodeSelector().isEmpty()) spec.put("nodeSelector", new TreeMap<String, Object>(p.nodeSelector()));
        if (!p.tolerations().isEmpty()) {
            List<Object> tolerations = new ArrayList<>();
            for (Toleration t : p.tolerations()) {
                Map<String, Object> tm = new LinkedHashMap<>();
                tm.put("operator", t.operator() == null ? "Equal" : t.operator());
                if (t.key() != null) tm.put("key", t.key());
                if (t.value() != null) tm.put("value", t.value());
                if (t.effect() != null) tm.put("effect", t.effect());
                tolerations.add(tm);
            }
            spec.put("tolerations", tolerations);
        }
        placement(spec, p.placement());
        spec.put("containers", List.of(container(p)));
        o.put("spec", spec);
        Map<String, Object> status = new LinkedHashMap<>();
        if (p.phase() != null) status.put("phase", p.phase());
        if (p.startedAt() != PodSpec.UNKNOWN_START) status.put("startTime", Instant.ofEpochSecond(p.startedAt()).toString());
        if (!status.isEmpty()) o.put("status", status);
        return o;
    }

    private static Map<String, Object> container(PodSpec p) {
        Map<String, Object> c = named("main");
        if (!p.placement().hostPorts().isEmpty()) {
            List<Object> ports = new ArrayList<>();
            for (Placement.HostPort hp : p.placement().hostPorts()) {
                Map<String, Object> port = new LinkedHashMap<>();
                port.put("containerPort", hp.port());
                port.put("hostPort", hp.port());
                port.put("protocol", hp.protocol());
                if (!hp.hostIP().isEmpty()) port.put("hostIP", hp.hostIP());
                ports.add(port);
            }
            c.put("ports", new Flow(ports));
        }
        Map<String, Object> resources = new LinkedHashMap<>();
        Resources requests = p.requests().subtract(Resources.of("pods", 1));
        resources.put("requests", quantities(requests));
        Resources extended = extended(requests);
        if (!extended.isEmpty()) resources.put("limits", quantities(extended));
        c.put("resources", resources);
        return c;
    }

    /** {@code affinity} and {@code topologySpreadConstraints}, in flow style (one line each). */
    private static void placement(Map<String, Object> spec, Placement pl) {
        Map<String, Object> affinity = new LinkedHashMap<>();
        Placement.NodeAffinity na = pl.nodeAffinity();
        if (!na.isNone()) {
            Map<String, Object> node = new LinkedHashMap<>();
            if (na.required() != null) {
                List<Object> terms = new ArrayList<>();
                for (Placement.NodeSelectorTerm t : na.required()) terms.add(nodeTerm(t));
                node.put("requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms", terms));
            }
            if (!na.preferred().isEmpty()) {
                List<Object> prefs = new ArrayList<>();
                for (Placement.WeightedNodeTerm w : na.preferred()) {
                    Map<String, Object> m = new LinkedHashMap<>();
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
        if (!affinity.isEmpty()) spec.put("affinity", new Flow(affinity));
        if (!pl.spread().isEmpty()) {
            List<Object> constraints = new ArrayList<>();
            for (Placement.SpreadConstraint c : pl.spread()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("maxSkew", c.maxSkew());
                m.put("topologyKey", c.topologyKey());
                m.put("whenUnsatisfiable", c.doNotSchedule() ? "DoNotSchedule" : "ScheduleAnyway");
                if (c.labelSelector() != null) m.put("labelSelector", selector(c.labelSelector()));
                if (c.minDomains() != 1) m.put("minDomains", c.minDomains());
                if (!c.honorNodeAffinity()) m.put("nodeAffinityPolicy", "Ignore");
                if (c.honorNodeTaints()) m.put("nodeTaintsPolicy", "Honor");
                constraints.add(m);
            }
            spec.put("topologySpreadConstraints", new Flow(constraints));
        }
    }

    /** A resource list as Kubernetes quantities ({@code cpu: "8"}, {@code memory: 16Gi}); {@code {}} when empty. */
    private static Map<String, Object> quantities(Resources r) {
        return new LinkedHashMap<>(r.asQuantities());
    }

    private static Map<String, Object> nodeTerm(Placement.NodeSelectorTerm t) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!t.matchExpressions().isEmpty()) m.put("matchExpressions", requirements(t.matchExpressions()));
        if (!t.matchFields().isEmpty()) m.put("matchFields", requirements(t.matchFields()));
        return m;
    }

    private static List<Object> requirements(List<Placement.NodeRequirement> rs) {
        List<Object> out = new ArrayList<>();
        for (Placement.NodeRequirement r : rs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", r.key());
            m.put("operator", r.operator());
            if (!r.values().isEmpty()) m.put("values", new ArrayList<Object>(r.values()));
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> podAffinity(Placement.PodAffinity a) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!a.required().isEmpty()) {
            List<Object> terms = new ArrayList<>();
            for (Placement.PodAffinityTerm t : a.required()) terms.add(podTerm(t));
            m.put("requiredDuringSchedulingIgnoredDuringExecution", terms);
        }
        if (!a.preferred().isEmpty()) {
            List<Object> terms = new ArrayList<>();
            for (Placement.WeightedPodAffinityTerm w : a.preferred()) {
                Map<String, Object> wm = new LinkedHashMap<>();
                wm.put("weight", w.weight());
                wm.put("podAffinityTerm", podTerm(w.term()));
                terms.add(wm);
            }
            m.put("preferredDuringSchedulingIgnoredDuringExecution", terms);
        }
        return m;
    }

    private static Map<String, Object> podTerm(Placement.PodAffinityTerm t) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (t.labelSelector() != null) m.put("labelSelector", selector(t.labelSelector()));
        if (!t.namespaces().isEmpty()) m.put("namespaces", new ArrayList<Object>(t.namespaces()));
        if (t.namespaceSelector() != null) m.put("namespaceSelector", selector(t.namespaceSelector()));
        m.put("topologyKey", t.topologyKey());
        return m;
    }

    private static Map<String, Object> selector(LabelSelector s) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!s.matchLabels().isEmpty()) m.put("matchLabels", new TreeMap<String, Object>(s.matchLabels()));
        if (!s.matchExpressions().isEmpty()) {
            List<Object> exprs = new ArrayList<>();
            for (LabelSelector.Requirement r : s.matchExpressions()) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("key", r.key());
                e.put("operator", r.operator());
                if (!r.values().isEmpty()) e.put("values", new ArrayList<Object>(r.values()));
                exprs.add(e);
            }
            m.put("matchExpressions", exprs);
        }
        return m;
    }

    /**
     * The extended resources of {@code r} (domain-prefixed, outside kubernetes.io, such as nvidia.com/gpu): Kubernetes
     * cannot overcommit them, so a pod must set their limit to its request.
     */
    private static Resources extended(Resources r) {
        Map<String, Long> out = new TreeMap<>();
        r.asMilliMap().forEach((name, amount) -> {
            if (name.contains("/") && !name.contains("kubernetes.io/")) out.put(name, amount);
        });
        return Resources.ofMilli(out);
    }
}
