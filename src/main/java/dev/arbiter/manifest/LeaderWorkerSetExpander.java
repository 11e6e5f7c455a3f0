package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import java.util.List;
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
    static final String GROUP_KEY_LABEL = "leaderworkerset.sigs.k8s.io/group-key";
    static final String EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology";

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
     *
     * <p>With the {@code leaderworkerset.sigs.k8s.io/exclusive-topology: <key>} annotation, every pod of a group carries
     * the group's key ({@code leaderworkerset.sigs.k8s.io/group-key}: the SHA-1 of {@code <namespace>/<leader>}, as
     * LeaderWorkerSet's webhook computes it) and the pod affinity and anti-affinity its webhook injects into the
     * leader: required affinity to pods with the group's key per {@code <key>}, and required anti-affinity to pods with
     * any other group's key per {@code <key>}. A live LeaderWorkerSet creates the workers once the leader is placed and
     * pins them to its domain with a nodeSelector; the simulator creates the whole group at once, so the workers carry
     * the leader's terms instead, which place them in the same domain.
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
        String topologyKey = meta.annotations().get(EXCLUSIVE_TOPOLOGY);
        if (topologyKey != null && !topologyKey.isEmpty()) exclusive(pod, meta.name() + "-" + group, topologyKey);
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

    /** The group key label and the exclusive placement terms (see {@link #expand}). */
    private void exclusive(PodDraft pod, String leaderName, String topologyKey) {
        String key = sha1(meta.namespaceOrDefault() + "/" + leaderName);
        pod.labels.put(GROUP_KEY_LABEL, key);
        java.util.function.Function<Map<String, String>, dev.arbiter.model.Placement> own = pod.placement;
        pod.placement = labels -> {
            dev.arbiter.model.Placement p = own.apply(labels);
            List<dev.arbiter.model.Placement.PodAffinityTerm> affinity = new java.util.ArrayList<>(p.podAffinity().required());
            affinity.add(dev.arbiter.model.Placement.PodAffinityTerm.of(new dev.arbiter.model.LabelSelector(Map.of(),
                    List.of(new dev.arbiter.model.LabelSelector.Requirement(GROUP_KEY_LABEL, "In", List.of(key)))), topologyKey));
            List<dev.arbiter.model.Placement.PodAffinityTerm> anti = new java.util.ArrayList<>(p.podAntiAffinity().required());
            anti.add(dev.arbiter.model.Placement.PodAffinityTerm.of(new dev.arbiter.model.LabelSelector(Map.of(),
                    List.of(new dev.arbiter.model.LabelSelector.Requirement(GROUP_KEY_LABEL, "Exists", List.of()),
                            new dev.arbiter.model.LabelSelector.Requirement(GROUP_KEY_LABEL, "NotIn", List.of(key)))), topologyKey));
            return p.withPodAffinity(new dev.arbiter.model.Placement.PodAffinity(affinity, p.podAffinity().preferred()))
                    .withPodAntiAffinity(new dev.arbiter.model.Placement.PodAffinity(anti, p.podAntiAffinity().preferred()));
        };
    }

    /** The 40-character hex SHA-1 digest of {@code s}. */
    static String sha1(String s) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-1").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder();
            for (byte b : d) sb.append(String.format("%02x", b));
            return sb.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }

    private static String firstPresent(String... values) {
        return Stream.of(values).filter(Objects::nonNull).filter(v -> !v.isEmpty()).findFirst().orElse(null);
    }
}
