package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.Map;

/**
 * Expands a {@code batch/v1} Job into the pods Kubernetes' Job controller starts, and, when its pods name a scheduler
 * other than {@code default-scheduler}, the PodGroup Volcano's PodGroup controller creates for them (read from
 * volcano-sh/volcano, {@code controllers/podgroup}).
 *
 * <p>Pods: {@code min(parallelism, completions)} (both default to 1; none while {@code suspend: true}), named
 * {@code <job>-<5 characters>} as {@code generateName} names them ({@code <job>-<index>-<5 characters>} with
 * {@code completionMode: Indexed}, which also sets the {@code batch.kubernetes.io/job-completion-index} label and
 * annotation); labelled {@code batch.kubernetes.io/controller-uid}, {@code batch.kubernetes.io/job-name},
 * {@code controller-uid} and {@code job-name}. The simulator derives the suffix from the Job's UID and the pod's
 * index, so it is the same in every run.
 *
 * <p>PodGroup {@code podgroup-<job uid>} (one per owning Job): minMember from the Job's
 * {@code scheduling.volcano.sh/group-min-member} annotation (default 1, so pods start one by one), queue from the pod
 * template's {@code scheduling.volcano.sh/queue-name} annotation, the template's priority class, and minResources the
 * requests of minMember pods. Every pod joins it through {@code scheduling.k8s.io/group-name}.
 */
final class BatchJobExpander {
    static final String MIN_MEMBER_ANNOTATION = "scheduling.volcano.sh/group-min-member";
    static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

    private BatchJobExpander() {}

    static void expand(Field job, Metadata meta, ManifestCollector out) {
        Field spec = job.get("spec");
        Field template = spec.get("template");
        if (!template.isPresent()) throw template.error("is required");
        PodDraft draft = PodReader.read(template, PodReader.DEFAULT_SCHEDULER);
        out.missingLimits(draft.missingLimits);
        int parallelism = spec.get("parallelism").integer(1, n -> n >= 0, "must be a non-negative integer");
        Integer completions = spec.get("completions").isPresent()
                ? spec.get("completions").integer(0, n -> n >= 0, "must be a non-negative integer") : null;
        boolean indexed = "Indexed".equals(spec.get("completionMode").string("NonIndexed"));
        if (indexed && completions == null) throw spec.get("completions").error("is required when completionMode is Indexed");
        boolean suspended = spec.get("suspend").bool(false);
        int pods = suspended ? 0 : completions == null ? parallelism : Math.min(parallelism, completions);
        String namespace = meta.namespaceOrDefault();
        String uid = Controllers.uid(job, "batch/Job", meta);
        int arrival = meta.arrivalCycleOr(0);

        String group = null;
        if (!PodReader.DEFAULT_SCHEDULER.equals(draft.schedulerName) && !draft.annotations.containsKey(PodSpec.GROUP_ANNOTATION)) {
            group = "podgroup-" + uid;
            Field minMemberField = job.get("metadata", "annotations", MIN_MEMBER_ANNOTATION);
            int minMember = 1;
            if (minMemberField.isPresent()) {
                String text = minMemberField.string("");
                try {
                    minMember = Integer.parseInt(text.trim());
                } catch (NumberFormatException e) {
                    throw minMemberField.error("must be a non-negative integer, got " + minMemberField.shown());
                }
                if (minMember < 0) throw minMemberField.error("must be a non-negative integer, got " + minMemberField.shown());
            }
            Resources.Sum min = new Resources.Sum();
            for (int i = 0; i < minMember; i++) min.add(draft.requests.without("pods"));
            String queue = draft.annotations.getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
            long order = out.claim("PodGroup", namespace + "/" + group, job.origin());
            out.add(new PodGroupSpec(namespace, group, queue, minMember, Map.of(), min.toResources(), draft.priorityClassName,
                    PodGroupReader.PENDING, arrival, order));
        }
        for (int i = 0; i < pods; i++) {
            PodDraft pod = draft.copy();
            pod.namespace = namespace;
            String suffix = Controllers.suffix(uid, i);
            pod.name = indexed ? meta.name() + "-" + i + "-" + suffix : meta.name() + "-" + suffix;
            pod.labels.put("batch.kubernetes.io/controller-uid", uid);
            pod.labels.put("batch.kubernetes.io/job-name", meta.name());
            pod.labels.put("controller-uid", uid);
            pod.labels.put("job-name", meta.name());
            if (indexed) {
                pod.labels.put(COMPLETION_INDEX, Integer.toString(i));
                pod.annotations.put(COMPLETION_INDEX, Integer.toString(i));
            }
            if (group != null) pod.annotations.put(PodSpec.GROUP_ANNOTATION, group);
            if (pod.arrivalCycle == null) pod.arrivalCycle = arrival;
            out.add(pod.toSpec(out.claim("Pod", pod.key(), job.origin())));
        }
    }
}
