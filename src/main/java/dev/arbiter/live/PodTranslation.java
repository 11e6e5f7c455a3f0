package dev.arbiter.live;

import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.manifest.ObjectTranslator;
import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Method;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pods into records, as cheaply as correctness allows. The translation itself is {@link ObjectTranslator}'s (the same
 * readers as manifests); this class only avoids repeating it:
 * <ul>
 *   <li>A pod whose labels, annotations and spec (requests, selectors, tolerations, scheduler, priority) equal those
 *       of one already translated is stamped from that <em>template</em>: its own name, node, phase, start and
 *       deletion, everything else the template's. Identical pods (a gang's workers, a job's replicas) translate
 *       once.</li>
 *   <li>An update that changes nothing the translation reads except node, phase, start time and deletion (a
 *       binding, the kubelet's status updates) is {@linkplain #derived derived} from the previous record.</li>
 * </ul>
 * The simulator's {@value ManifestLoader#ARRIVAL_CYCLE_ANNOTATION} annotation means nothing live: it is dropped.
 * Thread-safe.
 */
final class PodTranslation {
    private static final int TEMPLATES = 4096;

    /**
     * Everything of a pod the translation may read, but its name, node, phase, start time and deletion: its labels,
     * annotations and spec, less what differs pod by pod and is never read (the node, the volumes and the containers'
     * volume mounts: the ServiceAccount admission plugin gives every pod a token volume of its own name). Every other
     * property of the spec and its containers is in, read by their getters, rather than a list of the fields the readers
     * read today: a field they start to read, or one a newer client adds, is never left out. (A copy made with the
     * model's builders cost more than the translation it saved.)
     */
    private record SpecKey(Map<String, String> labels, Map<String, String> annotations, List<Object> spec,
                           List<List<Object>> containers, List<List<Object>> initContainers) {
        /** The spec's properties but these: differ pod by pod or are added later, and are never read. */
        private static final List<Method> SPEC = properties(io.fabric8.kubernetes.api.model.PodSpec.class,
                Set.of("getNodeName", "getVolumes", "getContainers", "getInitContainers", "getEphemeralContainers"));
        /** A container's properties but its volume mounts. */
        private static final List<Method> CONTAINER = properties(Container.class, Set.of("getVolumeMounts"));

        static SpecKey of(Pod pod) {
            var s = pod.getSpec();
            return new SpecKey(pod.getMetadata().getLabels(), pod.getMetadata().getAnnotations(), values(SPEC, s),
                    containers(s.getContainers()), containers(s.getInitContainers()));
        }

        private static List<List<Object>> containers(List<Container> containers) {
            if (containers == null) return null;
            List<List<Object>> out = new ArrayList<>(containers.size());
            for (Container c : containers) out.add(values(CONTAINER, c));
            return out;
        }

        private static List<Object> values(List<Method> getters, Object o) {
            List<Object> out = new ArrayList<>(getters.size());
            try {
                for (Method m : getters) out.add(m.invoke(o));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read " + o.getClass().getSimpleName() + ": " + e, e);
            }
            return out;
        }

        /** Every public getter of {@code type} (its additional properties included) but {@code except}, by name. */
        static List<Method> properties(Class<?> type, Set<String> except) {
            List<Method> out = new ArrayList<>();
            for (Method m : type.getMethods()) {
                boolean getter = m.getParameterCount() == 0 && m.getDeclaringClass() == type
                        && (m.getName().startsWith("get") || m.getName().startsWith("is"));
                if (getter && !except.contains(m.getName())) out.add(m);
            }
            out.sort(java.util.Comparator.comparing(Method::getName));
            return List.copyOf(out);
        }
    }

    private final ObjectTranslator translator;
    private final KubernetesSerialization json;
    private final java.util.concurrent.atomic.AtomicLong fullTranslations = new java.util.concurrent.atomic.AtomicLong();
    private final Map<SpecKey, PodSpec> templates = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<SpecKey, PodSpec> eldest) {
            return size() > TEMPLATES;
        }
    };

    PodTranslation(ObjectTranslator translator, KubernetesSerialization json) {
        this.translator = translator;
        this.json = json;
    }

    /** The pod's record; throws what the translator throws for a pod it cannot read. */
    PodSpec translate(Pod pod, long creationOrder) {
        if (pod.getSpec() == null || pod.getMetadata() == null) return full(pod, creationOrder);
        SpecKey key = SpecKey.of(pod);
        PodSpec template;
        synchronized (templates) {
            template = templates.get(key);
        }
        if (template != null) {
            PodSpec stamped = stamp(template, pod, creationOrder);
            if (stamped != null) return stamped;
        }
        PodSpec translated = full(pod, creationOrder);
        synchronized (templates) {
            templates.put(key, translated);
        }
        return translated;
    }

    @SuppressWarnings("unchecked")
    private PodSpec full(Pod pod, long creationOrder) {
        fullTranslations.incrementAndGet();
        Map<String, Object> object = json.convertValue(pod, Map.class);
        withoutSimulationAnnotations(object);
        return translator.pod(object, creationOrder);
    }

    /** Pods translated in full so far (the others were stamped from a template). */
    long fullTranslations() {
        return fullTranslations.get();
    }

    /** {@code pod} with the template's spec; null when something of it needs the full translation. */
    private static PodSpec stamp(PodSpec template, Pod pod, long creationOrder) {
        ObjectMeta meta = pod.getMetadata();
        if (meta.getNamespace() == null || meta.getName() == null) return null;
        Long startedAt = startTime(pod);
        if (startedAt == null) return null;
        String node = pod.getSpec().getNodeName();
        return new PodSpec(meta.getNamespace(), meta.getName(), template.schedulerName(), node, phase(pod, node),
                template.priorityClassName(), template.priority(), template.preemptionPolicy(), template.requests(),
                template.nodeSelector(), template.tolerations(), template.labels(), template.annotations(), 0, creationOrder,
                meta.getDeletionTimestamp() != null, startedAt, template.placement());
    }

    /**
     * The new record of a pod whose update changed nothing the translation reads except its node, phase, start time
     * and deletion: the previous record with those four replaced. Null when the pod must be translated again.
     */
    static PodSpec derived(PodSpec previous, Pod before, Pod after) {
        if (!sameInputs(before, after)) return null;
        Long startedAt = startTime(after);
        if (startedAt == null) return null;
        String node = after.getSpec().getNodeName();
        return new PodSpec(previous.namespace(), previous.name(), previous.schedulerName(), node, phase(after, node),
                previous.priorityClassName(), previous.priority(), previous.preemptionPolicy(), previous.requests(),
                previous.nodeSelector(), previous.tolerations(), previous.labels(), previous.annotations(),
                previous.arrivalCycle(), previous.creationOrder(), after.getMetadata().getDeletionTimestamp() != null,
                startedAt, previous.placement());
    }

    /** Everything of a pod the translation reads, except node, phase, start time and deletion, is equal. */
    private static boolean sameInputs(Pod a, Pod b) {
        if (a.getSpec() == null || b.getSpec() == null || a.getMetadata() == null || b.getMetadata() == null) return false;
        return SpecKey.of(a).equals(SpecKey.of(b));
    }

    /** As the manifest reader: the phase, or Running when bound and Pending when not. */
    private static String phase(Pod pod, String node) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return phase != null ? phase : node != null ? "Running" : "Pending";
    }

    private static final LastParsed<Long> STARTED = new LastParsed<>(s -> OffsetDateTime.parse(s).toEpochSecond());

    /** {@code status.startTime} in epoch seconds, {@link PodSpec#UNKNOWN_START} when absent, null when unreadable. */
    private static Long startTime(Pod pod) {
        String start = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
        if (start == null) return PodSpec.UNKNOWN_START;
        try {
            return STARTED.parse(start);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Live objects are not a simulation: the simulator's annotations are dropped before translation. */
    @SuppressWarnings("unchecked")
    static void withoutSimulationAnnotations(Map<String, Object> object) {
        if (object.get("metadata") instanceof Map<?, ?> meta && meta.get("annotations") instanceof Map<?, ?> annotations
                && annotations.containsKey(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION)) {
            Map<String, Object> copy = new HashMap<>((Map<String, Object>) annotations);
            copy.remove(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION);
            ((Map<String, Object>) meta).put("annotations", copy);
        }
    }
}
