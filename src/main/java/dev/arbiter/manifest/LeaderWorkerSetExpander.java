package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Expands a {@code leaderworkerset.x-k8s.io/v1} LeaderWorkerSet into its pods: for each group {@code g} of
 * {@code spec.replicas}, a leader {@code <name>-<g>} and workers {@code <name>-<g>-<w>} for w = 1..size-1.
 */
final class LeaderWorkerSetExpander {
    static final String NAME_LABEL = "leaderworkerset.sigs.k8s.io/name";
    static final String GROUP_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/group-index";
    static final String WORKER_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index";

    private final Field lws;
    private final Metadata meta;
    private final ManifestCollector out;

    private LeaderWorkerSetExpander(Field lws, Metadata meta, ManifestCollector out) {
        this.lws = lws;
        this.meta = meta;
        this.out = out;
    }

    /**
     * Adds the pods of every group, group by group (leader, then workers), to {@code out}. When a template names a
     * PodGroup through {@code scheduling.k8s.io/group-name}, every pod joins that PodGroup (a separate object in the
     * manifests). Otherwise each group gets its own PodGroup {@code <name>-<g>}, added after the group's pods, with
     * minMember = size, the queue from a queue-name annotation (leader template, worker template, then the
     * LeaderWorkerSet) else "default", and the leader template's priority class. Pods inherit the LeaderWorkerSet's
     * arrival cycle unless their template sets its own.
     */
    static void expand(Field lws, Metadata meta, ManifestCollector out) {
        new LeaderWorkerSetExpander(lws, meta, out).expand();
    }

    private void expand() {
        Field spec = lws.get("spec");
        int replicas = spec.get("replicas").integer(1, n -> n >= 0, "must be a non-negative integer");
        Field templates = spec.get("leaderWorkerTemplate");
        int size = templates.get("size").integer(1, n -> n >= 1, "must be a positive integer");
        Field workerTemplate = templates.get("workerTemplate");
        if (!workerTemplate.isPresent()) throw workerTemplate.error("is required");
        Field leaderTemplate = templates.get("leaderTemplate");
        PodDraft worker = PodReader.read(workerTemplate, PodReader.DEFAULT_SCHEDULER);
        PodDraft leader = leaderTemplate.isPresent()
                ? PodReader.read(leaderTemplate, PodReader.DEFAULT_SCHEDULER) : worker;
        out.missingLimits(worker.missingLimits);
        if (leader != worker) out.missingLimits(leader.missingLimits);

        String namedGroup = firstPresent(leader.annotations.get(PodSpec.GROUP_ANNOTATION),
                worker.annotations.get(PodSpec.GROUP_ANNOTATION));
        for (int g = 0; g < replicas; g++) {
            String group = namedGroup != null ? namedGroup : meta.name() + "-" + g;
            addPod(leader, g, 0, "leader", group);
            for (int w = 1; w < size; w++) addPod(worker, g, w, "worker", group);
            if (namedGroup == null) addPodGroup(group, size, leader, worker);
        }
    }

    private void addPod(PodDraft template, int group, int workerIndex, String role, String podGroup) {
        PodDraft pod = template.copy();
        pod.namespace = meta.namespaceOrDefault();
        pod.name = meta.name() + "-" + group + (workerIndex == 0 ? "" : "-" + workerIndex);
        pod.labels.put(NAME_LABEL, meta.name());
        pod.labels.put(GROUP_INDEX_LABEL, Integer.toString(group));
        pod.labels.put(WORKER_INDEX_LABEL, Integer.toString(workerIndex));
        pod.annotations.putIfAbsent(PodSpec.TASK_SPEC_ANNOTATION, role);
        pod.annotations.putIfAbsent(PodSpec.GROUP_ANNOTATION, podGroup);
        if (pod.arrivalCycle == null) pod.arrivalCycle = meta.arrivalCycleOr(0);
        out.add(pod.toSpec(out.claim("Pod", pod.key(), lws.origin())));
    }

    private void addPodGroup(String name, int size, PodDraft leader, PodDraft worker) {
        String queue = firstPresent(leader.annotations.get(PodSpec.QUEUE_ANNOTATION),
                worker.annotations.get(PodSpec.QUEUE_ANNOTATION), meta.annotations().get(PodSpec.QUEUE_ANNOTATION));
        String namespace = meta.namespaceOrDefault();
        long order = out.claim("PodGroup", namespace + "/" + name, lws.origin());
        out.add(new PodGroupSpec(namespace, name, queue == null ? QueueSpec.DEFAULT : queue, size, Map.of(), null,
                leader.priorityClassName, PodGroupReader.PENDING, meta.arrivalCycleOr(0), order));
    }

    private static String firstPresent(String... values) {
        return Stream.of(values).filter(Objects::nonNull).filter(v -> !v.isEmpty()).findFirst().orElse(null);
    }
}
