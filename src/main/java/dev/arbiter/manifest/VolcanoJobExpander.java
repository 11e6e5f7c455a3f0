package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Expands a Volcano {@code batch.volcano.sh/v1alpha1} Job as Volcano's admission webhook and job controller do (read
 * from volcano-sh/volcano: {@code webhooks/admission/jobs/mutate}, {@code controllers/job}).
 *
 * <p>Defaults (the webhook): a task without a name is {@code default<i>}; a task's {@code minAvailable} is its
 * replicas; the job's {@code minAvailable} is the sum of its tasks'; the queue is {@code default}; the scheduler is
 * {@code volcano}.
 *
 * <p>PodGroup {@code <job>-<job uid>} (the controller adds the UID): minMember = the job's minAvailable, minTaskMember =
 * each task's minAvailable, queue, priorityClassName, and minResources as the controller computes them with every task
 * at the same priority: the requests of the first minMember pods in task order when minMember is below the sum of the
 * tasks' minimums, else each task's minimum and then, in task order, more pods up to minMember.
 *
 * <p>Pods {@code <job>-<task>-<index>}, task by task: the template's labels and annotations plus
 * {@code volcano.sh/job-name}, {@code volcano.sh/job-namespace}, {@code volcano.sh/queue-name},
 * {@code volcano.sh/task-spec} and {@code volcano.sh/task-index} labels, and the
 * {@code scheduling.k8s.io/group-name}, {@code volcano.sh/task-spec}, {@code volcano.sh/task-index},
 * {@code volcano.sh/job-name}, {@code volcano.sh/queue-name}, {@code volcano.sh/job-version},
 * {@code volcano.sh/template-uid} and {@code volcano.sh/job-retry-count} annotations; the job's
 * {@code volcano.sh/preemptable} annotation and label carry over; the scheduler and priority class default to the job's.
 */
final class VolcanoJobExpander {
    static final String JOB_NAME = "volcano.sh/job-name";
    static final String JOB_NAMESPACE = "volcano.sh/job-namespace";
    static final String QUEUE_NAME = "volcano.sh/queue-name";
    static final String TASK_INDEX = "volcano.sh/task-index";

    private record Task(String name, int replicas, int minAvailable, PodDraft template) {}

    private VolcanoJobExpander() {}

    static void expand(Field job, Metadata meta, ManifestCollector out) {
        Field spec = job.get("spec");
        List<Task> tasks = tasks(spec.get("tasks"));
        for (Task t : tasks) out.missingLimits(t.template().missingLimits);
        int sumMin = tasks.stream().mapToInt(Task::minAvailable).sum();
        int minAvailable = spec.get("minAvailable").integer(0, n -> n >= 0, "must be a non-negative integer");
        if (minAvailable == 0) minAvailable = sumMin;
        String queue = spec.get("queue").string(QueueSpec.DEFAULT);
        String scheduler = spec.get("schedulerName").string("volcano");
        String priorityClass = spec.get("priorityClassName").string();
        String namespace = meta.namespaceOrDefault();
        String group = meta.name() + "-" + Controllers.uid(job, "batch.volcano.sh/Job", meta);
        int arrival = meta.arrivalCycleOr(0);

        long order = out.claim("PodGroup", namespace + "/" + group, job.origin());
        Map<String, Integer> minTaskMember = new LinkedHashMap<>();
        for (Task t : tasks) minTaskMember.put(t.name(), t.minAvailable());
        // The job controller gives the PodGroup the Job's annotations and labels, volcano.sh/preemptable among them.
        out.add(new PodGroupSpec(namespace, group, queue, minAvailable, minTaskMember, minResources(tasks, minAvailable, sumMin),
                priorityClass, PodGroupReader.PENDING, arrival, order, null, PodGroupReader.preemptable(meta)));

        for (Task t : tasks) {
            for (int i = 0; i < t.replicas(); i++) {
                PodDraft pod = t.template().copy();
                pod.namespace = namespace;
                pod.name = meta.name() + "-" + t.name() + "-" + i;
                String index = Integer.toString(i);
                pod.annotations.put(TASK_INDEX, index);
                pod.annotations.put(PodSpec.TASK_SPEC_ANNOTATION, t.name());
                pod.annotations.put(PodSpec.GROUP_ANNOTATION, group);
                pod.annotations.put(JOB_NAME, meta.name());
                pod.annotations.put(QUEUE_NAME, queue);
                pod.annotations.put("volcano.sh/job-version", "0");
                pod.annotations.put("volcano.sh/template-uid", meta.name() + "-" + t.name());
                pod.annotations.put("volcano.sh/job-retry-count", "0");
                pod.labels.put(TASK_INDEX, index);
                pod.labels.put(JOB_NAME, meta.name());
                pod.labels.put(PodSpec.TASK_SPEC_ANNOTATION, t.name());
                pod.labels.put(JOB_NAMESPACE, namespace);
                pod.labels.put(QUEUE_NAME, queue);
                String preemptable = meta.annotations().get(PodSpec.PREEMPTABLE);
                if (preemptable != null) pod.annotations.put(PodSpec.PREEMPTABLE, preemptable);
                if (meta.labels().containsKey(PodSpec.PREEMPTABLE)) pod.labels.put(PodSpec.PREEMPTABLE, meta.labels().get(PodSpec.PREEMPTABLE));
                if (pod.schedulerName == null) pod.schedulerName = scheduler;
                if (pod.priorityClassName == null) pod.priorityClassName = priorityClass;
                if (pod.arrivalCycle == null) pod.arrivalCycle = arrival;
                out.add(pod.toSpec(out.claim("Pod", pod.key(), job.origin())));
            }
        }
    }

    private static List<Task> tasks(Field list) {
        if (list.items().isEmpty()) throw list.error("is required: a Volcano Job needs at least one task");
        List<Task> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int i = 0;
        for (Field t : list.items()) {
            String name = t.get("name").string("default" + i);
            ApiValidation.namespace(t.get("name"));
            if (!names.add(name)) throw t.get("name").error("duplicate task name \"" + name + "\"");
            int replicas = t.get("replicas").integer(0, n -> n >= 0, "must be a non-negative integer");
            int min = t.get("minAvailable").integer(replicas, n -> n >= 0, "must be a non-negative integer");
            if (min > replicas) throw t.get("minAvailable").error("must not be greater than replicas (" + replicas + "), got " + min);
            Field template = t.get("template");
            if (!template.isPresent()) throw template.error("is required");
            // The template's own scheduler, if any; the job's otherwise (set when the pod is made).
            PodDraft draft = PodReader.read(template, null);
            out.add(new Task(name, replicas, min, draft));
            i++;
        }
        return out;
    }

    /** The controller's minResources, all tasks at one priority (see the class comment). */
    private static Resources minResources(List<Task> tasks, int minMember, int sumMin) {
        Resources.Sum sum = new Resources.Sum();
        if (minMember < sumMin) {
            int left = minMember;
            for (Task t : tasks) {
                int n = Math.min(left, t.replicas());
                for (int i = 0; i < n; i++) sum.add(withoutPodSlot(t));
                left -= n;
                if (left == 0) break;
            }
            return sum.toResources();
        }
        int count = 0;
        for (Task t : tasks) {
            int n = Math.min(t.minAvailable(), minMember - count);
            for (int i = 0; i < n; i++) sum.add(withoutPodSlot(t));
            count += n;
            if (count >= minMember) return sum.toResources();
        }
        for (Task t : tasks) {
            int n = Math.min(t.replicas() - t.minAvailable(), minMember - count);
            for (int i = 0; i < n; i++) sum.add(withoutPodSlot(t));
            count += n;
            if (count >= minMember) break;
        }
        return sum.toResources();
    }

    private static Resources withoutPodSlot(Task t) {
        return t.template().requests.without("pods");
    }
}
