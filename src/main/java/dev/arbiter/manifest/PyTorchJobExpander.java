package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Expands a {@code kubeflow.org/v1} PyTorchJob the way Kubeflow's training operator does when started with
 * {@code --gang-scheduler-name=volcano}: one pod per replica ({@code <job>-master-0}, {@code <job>-worker-<i>})
 * and one PodGroup named after the job.
 */
final class PyTorchJobExpander {
    static final String SCHEDULER = "volcano";
    static final String JOB_NAME_LABEL = "training.kubeflow.org/job-name";
    static final String REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type";
    static final String REPLICA_INDEX_LABEL = "training.kubeflow.org/replica-index";
    static final String JOB_ROLE_LABEL = "training.kubeflow.org/job-role";
    private static final List<String> REPLICA_TYPES = List.of("master", "worker");

    /** One entry of {@code spec.pytorchReplicaSpecs}: type is "master" or "worker". */
    private record Replicas(String type, int count, PodDraft template) {}

    private final Field job;
    private final Metadata meta;
    private final ManifestCollector out;

    private PyTorchJobExpander(Field job, Metadata meta, ManifestCollector out) {
        this.job = job;
        this.meta = meta;
        this.out = out;
    }

    /**
     * Adds the job's pods (master first, then workers by index) and then its PodGroup to {@code out}.
     * PodGroup: minMember = {@code runPolicy.schedulingPolicy.minAvailable}, else all replicas; queue =
     * {@code schedulingPolicy.queue}, else the job's or a template's queue-name annotation, else "default";
     * priority class = {@code schedulingPolicy.priorityClass}, else the master's (or first) template's; minResources =
     * {@code schedulingPolicy.minResources} or null. Pods inherit that priority class when their template has none,
     * and the job's arrival cycle unless their template sets its own.
     */
    static void expand(Field job, Metadata meta, ManifestCollector out) {
        new PyTorchJobExpander(job, meta, out).expand();
    }

    private void expand() {
        List<Replicas> replicas = replicas();
        Field policy = job.get("spec", "runPolicy", "schedulingPolicy");
        int total = replicas.stream().mapToInt(Replicas::count).sum();
        int minMember = policy.get("minAvailable").integer(total, m -> m >= 0, "must be a non-negative integer");
        String queue = queue(policy, replicas);
        String priorityClass = priorityClass(policy, replicas);
        Resources minResources = policy.get("minResources").resources();
        int arrival = meta.arrivalCycleOr(0);

        for (Replicas r : replicas) {
            for (int i = 0; i < r.count(); i++) addPod(r, i, priorityClass, arrival);
        }
        String namespace = meta.namespaceOrDefault();
        long order = out.claim("PodGroup", namespace + "/" + meta.name(), job.origin());
        out.add(new PodGroupSpec(namespace, meta.name(), queue, minMember, Map.of(), minResources, priorityClass,
                PodGroupReader.PENDING, arrival, order));
    }

    private List<Replicas> replicas() {
        Field specs = job.get("spec", "pytorchReplicaSpecs");
        if (!specs.isPresent()) throw specs.error("is required");
        List<Replicas> found = new ArrayList<>();
        specs.entries().forEach((key, spec) -> found.add(replicas(key, spec)));
        found.forEach(r -> out.missingLimits(r.template().missingLimits));
        found.sort((a, b) -> REPLICA_TYPES.indexOf(a.type()) - REPLICA_TYPES.indexOf(b.type()));
        return found;
    }

    private static Replicas replicas(String key, Field spec) {
        String type = key.toLowerCase();
        if (!REPLICA_TYPES.contains(type)) {
            throw spec.error("unknown replica type (a PyTorchJob has Master and Worker replicas)");
        }
        int count = spec.get("replicas").integer(1, n -> n >= 0, "must be a non-negative integer");
        Field template = spec.get("template");
        if (!template.isPresent()) throw template.error("is required");
        return new Replicas(type, count, PodReader.read(template, SCHEDULER));
    }

    private String queue(Field policy, List<Replicas> replicas) {
        Stream<String> fromTemplates = replicas.stream().map(r -> r.template().annotations.get(PodSpec.QUEUE_ANNOTATION));
        return Stream.concat(Stream.of(policy.get("queue").string(), meta.annotations().get(PodSpec.QUEUE_ANNOTATION)),
                        fromTemplates)
                .filter(q -> q != null && !q.isEmpty())
                .findFirst().orElse(QueueSpec.DEFAULT);
    }

    private static String priorityClass(Field policy, List<Replicas> replicas) {
        return Stream.concat(Stream.of(policy.get("priorityClass").string()),
                        replicas.stream().map(r -> r.template().priorityClassName))
                .filter(Objects::nonNull)
                .findFirst().orElse(null);
    }

    private void addPod(Replicas r, int index, String priorityClass, int arrival) {
        PodDraft pod = r.template().copy();
        pod.namespace = meta.namespaceOrDefault();
        pod.name = meta.name() + "-" + r.type() + "-" + index;
        pod.labels.put(JOB_NAME_LABEL, meta.name());
        pod.labels.put(REPLICA_TYPE_LABEL, r.type());
        pod.labels.put(REPLICA_INDEX_LABEL, Integer.toString(index));
        if (r.type().equals("master")) pod.labels.put(JOB_ROLE_LABEL, "master");
        pod.annotations.put(PodSpec.GROUP_ANNOTATION, meta.name());
        pod.annotations.put(PodSpec.TASK_SPEC_ANNOTATION, r.type());
        if (pod.priorityClassName == null) pod.priorityClassName = priorityClass;
        if (pod.arrivalCycle == null) pod.arrivalCycle = arrival;
        out.add(pod.toSpec(out.claim("Pod", pod.key(), job.origin())));
    }
}
