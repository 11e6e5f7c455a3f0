package dev.arbiter.manifest;

import dev.arbiter.model.Resources;
import dev.arbiter.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Reads a {@code v1} Pod, or a pod template ({@code metadata} + {@code spec}) inside a workload, into a draft. */
final class PodReader {
    static final String DEFAULT_SCHEDULER = "default-scheduler";
    private static final Set<String> PREEMPTION_POLICIES = Set.of("PreemptLowerPriority", "Never");

    private PodReader() {}

    /**
     * Reads the pod rooted at {@code pod}. The namespace defaults to "default"; the name is null for a template;
     * {@code defaultScheduler} applies when {@code spec.schedulerName} is unset.
     */
    static PodDraft read(Field pod, String defaultScheduler) {
        Metadata meta = Metadata.read(pod);
        Field spec = pod.get("spec");
        PodDraft d = new PodDraft();
        d.namespace = meta.namespaceOrDefault();
        d.name = meta.name();
        d.labels = meta.labels();
        d.annotations = meta.annotations();
        schedulingGroup(spec.get("schedulingGroup", "podGroupName"), d.annotations);
        d.arrivalCycle = meta.arrivalCycle();
        d.terminating = pod.get("metadata", "deletionTimestamp").isPresent();
        d.schedulerName = spec.get("schedulerName").string(defaultScheduler);
        d.nodeName = spec.get("nodeName").string();
        ApiValidation.podPhase(pod.get("status", "phase"));
        d.phase = pod.get("status", "phase").string();
        d.startedAt = startTime(pod.get("status", "startTime"));
        d.priorityClassName = spec.get("priorityClassName").string();
        d.priority = spec.get("priority").integer();
        d.preemptionPolicy = preemptionPolicy(spec.get("preemptionPolicy"), null);
        d.requests = effectiveRequests(spec);
        d.missingLimits = missingLimits(spec);
        d.nodeSelector = spec.get("nodeSelector").stringMap();
        d.tolerations = tolerations(spec.get("tolerations"));
        d.placement = PlacementReader.read(spec);
        return d;
    }

    /**
     * A pod's {@code spec.schedulingGroup.podGroupName} (the upstream Workload API) names its PodGroup as the
     * {@code scheduling.k8s.io/group-name} annotation names a Volcano one: it is kept as that annotation, so both
     * kinds of PodGroup are found the same way ({@link dev.arbiter.model.PodSpec#groupName}). A pod whose annotation
     * names another group is an error.
     */
    private static void schedulingGroup(Field podGroupName, Map<String, String> annotations) {
        String name = podGroupName.string();
        if (name == null) return;
        String annotated = annotations.get(dev.arbiter.model.PodSpec.GROUP_ANNOTATION);
        if (annotated != null && !annotated.equals(name)) {
            throw podGroupName.error("names PodGroup " + name + " but the pod's annotation "
                    + dev.arbiter.model.PodSpec.GROUP_ANNOTATION + " names " + annotated + "; a pod joins one group");
        }
        annotations.put(dev.arbiter.model.PodSpec.GROUP_ANNOTATION, name);
    }

    /** {@code status.startTime} (RFC 3339) in epoch seconds, or {@link PodSpec#UNKNOWN_START} when absent. */
    private static long startTime(Field f) {
        String s = f.string();
        if (s == null) return dev.arbiter.model.PodSpec.UNKNOWN_START;
        try {
            return java.time.OffsetDateTime.parse(s).toEpochSecond();
        } catch (java.time.format.DateTimeParseException e) {
            throw f.error("must be an RFC 3339 time such as 2026-11-29T10:00:00Z, got " + f.shown());
        }
    }

    /** PreemptLowerPriority or Never, or {@code fallback} when absent; anything else is an error. */
    static String preemptionPolicy(Field field, String fallback) {
        String policy = field.string(fallback);
        if (policy != null && !PREEMPTION_POLICIES.contains(policy)) {
            throw field.error("must be PreemptLowerPriority or Never, got " + field.shown());
        }
        return policy;
    }

    /**
     * The pod's effective request as the Kubernetes scheduler computes it: the sum over containers, at least the
     * peak of the init phase (each init container in turn, on top of the restartable "sidecar" init containers
     * started before it; sidecars also run next to the containers), plus {@code spec.overhead}, plus {@code pods: 1}.
     */
    static Resources effectiveRequests(Field spec) {
        Resources containers = Resources.NONE;
        for (Field c : spec.get("containers").items()) containers = containers.add(containerRequests(c));
        Resources sidecars = Resources.NONE;
        Resources initPeak = Resources.NONE;
        for (Field c : spec.get("initContainers").items()) {
            Resources r = containerRequests(c);
            if ("Always".equals(c.get("restartPolicy").string())) {
                sidecars = sidecars.add(r);
                initPeak = initPeak.max(sidecars);
            } else {
                initPeak = initPeak.max(sidecars.add(r));
            }
        }
        Resources overhead = spec.get("overhead").resources();
        return containers.add(sidecars).max(initPeak)
                .add(overhead == null ? Resources.NONE : overhead)
                .add(Resources.of("pods", 1));
    }

    /**
     * Extended resources requested without a limit: the API server refuses such a pod ("Limit must be set for non
     * overcommitable resources"); the simulator reads the request and says so. Every container's resources are
     * checked on the way (requests within limits; extended resources whole and equal to their limits).
     */
    private static Map<String, String> missingLimits(Field spec) {
        Map<String, String> missing = new java.util.LinkedHashMap<>();
        for (String list : new String[] {"initContainers", "containers"}) {
            for (Field c : spec.get(list).items()) {
                Field limits = c.get("resources", "limits");
                for (String name : ApiValidation.resources(c.get("resources"))) {
                    missing.putIfAbsent(name, limits.notice("").replaceAll(":\\s*$", ""));
                }
            }
        }
        return missing;
    }

    /** A container's requests; a resource with a limit but no request requests its limit (Kubernetes defaulting). */
    static Resources containerRequests(Field container) {
        Field resources = container.get("resources");
        Map<String, Long> milli = new TreeMap<>(resources.get("limits").quantities());
        milli.putAll(resources.get("requests").quantities());
        return Resources.ofMilli(milli);
    }

    private static List<Toleration> tolerations(Field list) {
        return list.items().stream()
                .map(t -> new Toleration(t.get("key").string(), t.get("operator").string(),
                        t.get("value").string(), t.get("effect").string()))
                .toList();
    }
}
