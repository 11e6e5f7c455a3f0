package dev.arbiter.runtime;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Writes the scheduling-relevant objects of a live cluster as manifests that {@code simulate}, {@code explain} and
 * {@code diff} read: Nodes, Pods (not finished ones), PriorityClasses, Volcano Queues and PodGroups, HyperNodes, and
 * the upstream Workload API's PodGroups ({@code scheduling.k8s.io/v1beta1}, where the API server serves them).
 *
 * <p>Only what scheduling reads is kept, so a snapshot can be shared: no env, no volumes, no images, no secrets, no
 * managedFields, no {@code kubectl.kubernetes.io/last-applied-configuration} (which would carry all of those), and of
 * status only what scheduling needs (pod phase and start time, node allocatable/capacity, PodGroup phase, Queue
 * state). Pod annotations are limited to the ones the scheduler reads (a Queue's: its stored past usage,
 * {@code arbiter.dev/usage}). Queue and PodGroup specs are kept whole: they
 * hold nothing but scheduling terms, and new terms (a dequeue strategy, an explicit deserved share) come along.
 *
 * <p>The loader gives objects their creation order by position, so pods and PodGroups are written oldest first
 * (by {@code creationTimestamp}), a PodGroup before pods created in the same second.
 */
public final class LiveSnapshot {
    static final ResourceDefinitionContext QUEUES = new ResourceDefinitionContext.Builder()
            .withGroup("scheduling.volcano.sh").withVersion("v1beta1").withKind("Queue").withPlural("queues")
            .withNamespaced(false).build();
    static final ResourceDefinitionContext POD_GROUPS = new ResourceDefinitionContext.Builder()
            .withGroup("scheduling.volcano.sh").withVersion("v1beta1").withKind("PodGroup").withPlural("podgroups")
            .withNamespaced(true).build();

    static final ResourceDefinitionContext WORKLOAD_POD_GROUPS = new ResourceDefinitionContext.Builder()
            .withGroup("scheduling.k8s.io").withVersion("v1beta1").withKind("PodGroup").withPlural("podgroups")
            .withNamespaced(true).build();

    static final ResourceDefinitionContext HYPER_NODES = new ResourceDefinitionContext.Builder()
            .withGroup("topology.volcano.sh").withVersion("v1alpha1").withKind("HyperNode").withPlural("hypernodes")
            .withNamespaced(false).build();

    /** Annotations the scheduler reads; every other annotation is dropped. */
    static final Set<String> POD_ANNOTATIONS = Set.of("scheduling.k8s.io/group-name", "scheduling.volcano.sh/queue-name",
            "volcano.sh/task-spec", "volcano.sh/preemptable", dev.arbiter.model.NetworkTopology.KUEUE_REQUIRED,
            dev.arbiter.model.NetworkTopology.KUEUE_PREFERRED);

    private LiveSnapshot() {}

    /** The cluster's objects as multi-document YAML, taken now. */
    public static String write(KubernetesClient client) {
        return write(client, Instant.now());
    }

    /**
     * The cluster's objects as multi-document YAML, with a header comment naming what was taken. Pods'
     * {@code status.startTime} is rebased so that {@code taken} is the Unix epoch, the simulator's second 0: a pod that
     * had run for five minutes when the snapshot was taken starts at {@code 1969-12-31T23:55:00Z}, so simulated
     * churn rules (minimum runtime before reclaim) see how long it has really run.
     */
    public static String write(KubernetesClient client, Instant taken) {
        return take(client, taken).yaml();
    }

    /**
     * The objects of a snapshot, in the order {@link #write} writes them, and what it could not take (a CRD not
     * installed), one note each.
     */
    public record Taken(List<Map<String, Object>> objects, List<String> notes) {
        /** The multi-document YAML {@link #write} returns. */
        public String yaml() {
            return toYaml(objects, notes);
        }

        /** The objects as one {@code v1 List} in JSON (as {@code kubectl get -o json}), which the simulator reads too. */
        public String json() {
            Map<String, Object> list = new java.util.LinkedHashMap<>();
            list.put("apiVersion", "v1");
            list.put("kind", "List");
            list.put("items", objects);
            return new tools.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(list) + "\n";
        }
    }

    /** The cluster's objects, taken now ({@link #write}'s, before they are written). */
    public static Taken take(KubernetesClient client) {
        return take(client, Instant.now());
    }

    static Taken take(KubernetesClient client, Instant taken) {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (HasMetadata n : sortedByName(client.nodes().list().getItems())) docs.add(node(json(client, n)));
        for (HasMetadata pc : sortedByName(client.scheduling().v1().priorityClasses().list().getItems())) {
            docs.add(priorityClass(json(client, pc)));
        }
        List<String> notes = new ArrayList<>();
        List<GenericKubernetesResource> queues = volcano(() -> client.genericKubernetesResources(QUEUES).list().getItems(),
                "Queues", notes);
        for (GenericKubernetesResource q : sortedByName(queues)) docs.add(queue(json(client, q), taken));
        for (GenericKubernetesResource h : sortedByName(hyperNodes(client, notes))) docs.add(hyperNode(json(client, h)));
        List<Dated> workload = new ArrayList<>();
        for (GenericKubernetesResource g : volcano(() -> client.genericKubernetesResources(POD_GROUPS).inAnyNamespace()
                .list().getItems(), "PodGroups", notes)) {
            workload.add(new Dated(created(g), 0, podGroup(json(client, g))));
        }
        for (GenericKubernetesResource g : workloadPodGroups(client, notes)) {
            workload.add(new Dated(created(g), 0, workloadPodGroup(json(client, g))));
        }
        for (HasMetadata p : client.pods().inAnyNamespace().list().getItems()) {
            Map<String, Object> m = json(client, p);
            String phase = (String) get(m, "status", "phase");
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) continue;
            workload.add(new Dated(created(p), 1, pod(m, taken)));
        }
        workload.sort(Comparator.comparing(Dated::created).thenComparingInt(Dated::rank)
                .thenComparing(d -> key(d.object())));
        for (Dated d : workload) docs.add(d.object());
        return new Taken(List.copyOf(docs), List.copyOf(notes));
    }

    /** Volcano's objects, or none (with a note) when the cluster does not have its CRDs. */
    private static List<GenericKubernetesResource> volcano(java.util.function.Supplier<List<GenericKubernetesResource>> list,
                                                           String what, List<String> notes) {
        try {
            return list.get();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) throw e;
            notes.add("no Volcano " + what + " (the scheduling.volcano.sh CRDs are not installed)");
            return List.of();
        }
    }

    /** Volcano's HyperNodes, or none (with a note) when the cluster does not have their CRD. */
    private static List<GenericKubernetesResource> hyperNodes(KubernetesClient client, List<String> notes) {
        try {
            return client.genericKubernetesResources(HYPER_NODES).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) throw e;
            notes.add("no HyperNodes (the topology.volcano.sh CRD is not installed)");
            return List.of();
        }
    }

    /** The upstream Workload API's PodGroups, or none (with a note) when the API server does not serve them. */
    private static List<GenericKubernetesResource> workloadPodGroups(KubernetesClient client, List<String> notes) {
        try {
            return client.genericKubernetesResources(WORKLOAD_POD_GROUPS).inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) throw e;
            notes.add("no Workload API PodGroups (the API server does not serve scheduling.k8s.io/v1beta1 podgroups)");
            return List.of();
        }
    }

    /** A HyperNode: its spec whole (tier and members: nothing but topology), no status. */
    static Map<String, Object> hyperNode(Map<String, Object> h) {
        Map<String, Object> out = header("topology.volcano.sh/v1alpha1", "HyperNode", meta(h, false, Set.of()));
        out.put("spec", map(h, "spec"));
        return out;
    }

    private record Dated(String created, int rank, Map<String, Object> object) {}

    private static String created(HasMetadata o) {
        String t = o.getMetadata().getCreationTimestamp();
        return t == null ? "" : t;
    }

    private static <T extends HasMetadata> List<T> sortedByName(List<T> items) {
        List<T> out = new ArrayList<>(items);
        out.sort(Comparator.comparing(o -> o.getMetadata().getName()));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(KubernetesClient client, Object o) {
        return client.getKubernetesSerialization().convertValue(o, Map.class);
    }

    // ---- what each kind keeps -----------------------------------------------------------------------------------

    static Map<String, Object> node(Map<String, Object> n) {
        Map<String, Object> out = header("v1", "Node", meta(n, false, Set.of()));
        Map<String, Object> spec = pick(map(n, "spec"), "unschedulable", "taints");
        if (!spec.isEmpty()) out.put("spec", spec);
        Map<String, Object> status = pick(map(n, "status"), "allocatable", "capacity");
        if (!status.isEmpty()) out.put("status", status);
        return out;
    }

    static Map<String, Object> priorityClass(Map<String, Object> pc) {
        Map<String, Object> out = header("scheduling.k8s.io/v1", "PriorityClass", meta(pc, false, Set.of()));
        out.putAll(pick(pc, "value", "globalDefault", "preemptionPolicy"));
        return out;
    }

    /**
     * A Queue: its spec whole, its state, and its stored past usage ({@code arbiter.dev/usage}) with the sampling time
     * rebased as pods' start times are (an unreadable value is left as it is: the loader says so, once).
     */
    static Map<String, Object> queue(Map<String, Object> q, Instant taken) {
        Map<String, Object> meta = meta(q, false, Set.of(dev.arbiter.model.QueueUsage.ANNOTATION));
        @SuppressWarnings("unchecked")
        Map<String, Object> ann = (Map<String, Object>) meta.get("annotations");
        if (ann != null && ann.get(dev.arbiter.model.QueueUsage.ANNOTATION) instanceof String v) {
            try {
                dev.arbiter.model.QueueUsage u = dev.arbiter.model.QueueUsage.parse(v);
                long at = Duration.between(taken, Instant.ofEpochSecond(u.at())).getSeconds();
                ann.put(dev.arbiter.model.QueueUsage.ANNOTATION, new dev.arbiter.model.QueueUsage(u.amounts(), at).annotationValue());
            } catch (IllegalArgumentException unreadable) {
                // kept as it is
            }
        }
        Map<String, Object> out = header("scheduling.volcano.sh/v1beta1", "Queue", meta);
        out.put("spec", map(q, "spec"));
        Map<String, Object> status = pick(map(q, "status"), "state");
        if (!status.isEmpty()) out.put("status", status);
        return out;
    }

    static Map<String, Object> podGroup(Map<String, Object> g) {
        Map<String, Object> out = header("scheduling.volcano.sh/v1beta1", "PodGroup",
                meta(g, true, Set.of(dev.arbiter.model.PodSpec.PREEMPTABLE)));
        out.put("spec", map(g, "spec"));
        Map<String, Object> status = pick(map(g, "status"), "phase");
        if (!status.isEmpty()) out.put("status", status);
        return out;
    }

    /**
     * An upstream ({@code scheduling.k8s.io/v1beta1}) PodGroup: its spec whole (scheduling terms only), the annotations
     * the scheduler reads (its queue, preemptable), and of its status the {@code PodGroupInitiallyScheduled}
     * condition's type and status (True: the gang has run whole).
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> workloadPodGroup(Map<String, Object> g) {
        Map<String, Object> out = header("scheduling.k8s.io/v1beta1", "PodGroup",
                meta(g, true, Set.of(dev.arbiter.model.PodSpec.PREEMPTABLE, "scheduling.volcano.sh/queue-name")));
        out.put("spec", map(g, "spec"));
        if (get(g, "status", "conditions") instanceof List<?> conditions) {
            List<Map<String, Object>> kept = new ArrayList<>();
            for (Object c : conditions) {
                if (c instanceof Map<?, ?> m && "PodGroupInitiallyScheduled".equals(m.get("type"))) {
                    kept.add(pick((Map<String, Object>) m, "type", "status"));
                }
            }
            if (!kept.isEmpty()) out.put("status", Map.of("conditions", kept));
        }
        return out;
    }

    static Map<String, Object> pod(Map<String, Object> p, Instant taken) {
        Map<String, Object> meta = meta(p, true, POD_ANNOTATIONS);
        Object deletion = get(p, "metadata", "deletionTimestamp");
        if (deletion != null) meta.put("deletionTimestamp", deletion);
        Map<String, Object> out = header("v1", "Pod", meta);
        Map<String, Object> spec = map(p, "spec");
        Map<String, Object> kept = pick(spec, "schedulerName", "nodeName", "priorityClassName", "priority",
                "preemptionPolicy", "nodeSelector", "tolerations", "overhead", "schedulingGroup");
        kept.put("containers", containers(spec.get("containers"), false));
        if (spec.get("initContainers") != null) kept.put("initContainers", containers(spec.get("initContainers"), true));
        out.put("spec", kept);
        Map<String, Object> status = pick(map(p, "status"), "phase");
        Object started = get(p, "status", "startTime");
        if (started instanceof String t && spec.get("nodeName") != null) {
            try {
                Instant at = Instant.EPOCH.plus(Duration.between(taken, OffsetDateTime.parse(t).toInstant()));
                status.put("startTime", at.toString());
            } catch (DateTimeParseException unparseable) {
                // left out: the pod counts as started when the simulation starts
            }
        }
        if (!status.isEmpty()) out.put("status", status);
        return out;
    }

    /** Each container's name and resources (and, for init containers, restartPolicy: sidecars count differently). */
    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> containers(Object list, boolean init) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (!(list instanceof List<?> items)) return out;
        for (Object o : items) {
            if (!(o instanceof Map<?, ?> c)) continue;
            Map<String, Object> kept = pick((Map<String, Object>) c, "name");
            if (init) kept.putAll(pick((Map<String, Object>) c, "restartPolicy"));
            Map<String, Object> res = pick(map((Map<String, Object>) c, "resources"), "requests", "limits");
            if (!res.isEmpty()) kept.put("resources", res);
            out.add(kept);
        }
        return out;
    }

    private static Map<String, Object> header(String apiVersion, String kind, Map<String, Object> meta) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("apiVersion", apiVersion);
        out.put("kind", kind);
        out.put("metadata", meta);
        return out;
    }

    /** name, namespace, labels, and only the named annotations. */
    private static Map<String, Object> meta(Map<String, Object> o, boolean namespaced, Set<String> annotations) {
        Map<String, Object> m = map(o, "metadata");
        Map<String, Object> out = pick(m, namespaced ? new String[] {"name", "namespace", "labels"} : new String[] {"name", "labels"});
        Map<String, Object> ann = new LinkedHashMap<>();
        map(m, "annotations").forEach((k, v) -> {
            if (annotations.contains(k)) ann.put(k, v);
        });
        if (!ann.isEmpty()) out.put("annotations", ann);
        return out;
    }

    private static Map<String, Object> pick(Map<String, Object> from, String... keys) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String k : keys) {
            Object v = from.get(k);
            if (v != null && !(v instanceof Map<?, ?> mm && mm.isEmpty()) && !(v instanceof List<?> l && l.isEmpty())) out.put(k, v);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> o, String key) {
        Object v = o == null ? null : o.get(key);
        return v instanceof Map<?, ?> ? (Map<String, Object>) v : Map.of();
    }

    private static Object get(Map<String, Object> o, String a, String b) {
        return map(o, a).get(b);
    }

    private static String key(Map<String, Object> o) {
        Map<String, Object> m = map(o, "metadata");
        return o.get("kind") + " " + m.getOrDefault("namespace", "") + "/" + m.get("name");
    }

    private static String toYaml(List<Map<String, Object>> docs, List<String> notes) {
        DumperOptions opts = new DumperOptions();
        opts.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        opts.setExplicitStart(true);
        Yaml yaml = new Yaml(opts);
        StringBuilder sb = new StringBuilder("# arbiter snapshot: Nodes, PriorityClasses, Queues, then PodGroups and Pods "
                + "oldest first; scheduling-relevant fields only.\n# Pod start times are relative to the moment of the "
                + "snapshot, which is 1970-01-01T00:00:00Z (the simulator's second 0).\n");
        for (String n : notes) sb.append("# ").append(n).append('\n');
        for (Map<String, Object> d : docs) sb.append(yaml.dump(d));
        return sb.toString();
    }
}
