package dev.arbiter.manifest;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Toleration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod being assembled: what {@link PodReader} read from a Pod or a pod template, before the expanders give it a
 * name, labels and annotations and the collector gives it a creation order. Mutable on purpose, for that assembly.
 */
final class PodDraft {
    String namespace;
    String name;
    String schedulerName;
    String nodeName;
    String phase;
    String priorityClassName;
    Integer priority;
    String preemptionPolicy;
    Resources requests = Resources.NONE;
    Map<String, String> nodeSelector = new LinkedHashMap<>();
    List<Toleration> tolerations = List.of();
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();
    /** From the pod's (template's) own arrival-cycle annotation; null when it has none. */
    Integer arrivalCycle;
    /** True when the pod carries {@code metadata.deletionTimestamp}. */
    boolean terminating;
    /** {@code status.startTime} in epoch seconds, or {@link PodSpec#UNKNOWN_START}. */
    long startedAt = PodSpec.UNKNOWN_START;
    /**
     * Extended resources requested without a limit → where (e.g. {@code a.yaml:3: Pod ns/p:
     * spec.containers[0].resources.limits}): the API server would refuse the pod; the manifest loader says so.
     */
    Map<String, String> missingLimits = Map.of();
    /** Affinity, spread, host ports and the rest ({@link PlacementReader}), given the pod's final labels. */
    java.util.function.Function<Map<String, String>, dev.arbiter.model.Placement> placement =
            l -> dev.arbiter.model.Placement.NONE;

    /** An independent copy, for stamping out several pods from one template. */
    PodDraft copy() {
        PodDraft c = new PodDraft();
        c.namespace = namespace;
        c.name = name;
        c.schedulerName = schedulerName;
        c.nodeName = nodeName;
        c.phase = phase;
        c.priorityClassName = priorityClassName;
        c.priority = priority;
        c.preemptionPolicy = preemptionPolicy;
        c.requests = requests;
        c.nodeSelector = new LinkedHashMap<>(nodeSelector);
        c.tolerations = tolerations;
        c.labels = new LinkedHashMap<>(labels);
        c.annotations = new LinkedHashMap<>(annotations);
        c.arrivalCycle = arrivalCycle;
        c.terminating = terminating;
        c.startedAt = startedAt;
        c.missingLimits = missingLimits;
        c.placement = placement;
        return c;
    }

    String key() {
        return namespace + "/" + name;
    }

    /** The finished pod; the phase defaults to Running when bound to a node, else Pending; arrival defaults to 0. */
    PodSpec toSpec(long creationOrder) {
        String effectivePhase = phase != null ? phase : nodeName != null ? "Running" : "Pending";
        return new PodSpec(namespace, name, schedulerName, nodeName, effectivePhase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations,
                arrivalCycle == null ? 0 : arrivalCycle, creationOrder, terminating, startedAt, placement.apply(labels));
    }
}
