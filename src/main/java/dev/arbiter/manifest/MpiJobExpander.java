package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.Map;

/**
 * Expands a Kubeflow {@code kubeflow.org/v2beta1} MPIJob as the MPI operator does with Volcano gang scheduling (read
 * from kubeflow/mpi-operator, {@code pkg/controller}): workers {@code <job>-worker-<i>} and a launcher, which the
 * operator runs as a {@code batch/v1} Job {@code <job>-launcher}, so its pod is {@code <job>-launcher-<5 characters>}
 * (a suffix the simulator derives from the job's UID).
 *
 * <p>PodGroup {@code <job>}: minMember = {@code runPolicy.schedulingPolicy.minAvailable}, else workers + 1; queue =
 * {@code schedulingPolicy.queue}, else the job's {@code scheduling.volcano.sh/queue-name} annotation, else
 * {@code default}; priority class = {@code schedulingPolicy.priorityClass}, else the launcher's, else the workers';
 * minResources = {@code schedulingPolicy.minResources}, else the launcher and minMember − 1 workers.
 *
 * <p>Every pod runs under scheduler {@code volcano} with {@code scheduling.k8s.io/group-name: <job>} and the labels
 * {@code training.kubeflow.org/operator-name: mpi-operator}, {@code training.kubeflow.org/job-name} and
 * {@code training.kubeflow.org/job-role} (launcher or worker); workers also carry
 * {@code training.kubeflow.org/replica-index} (from 1 with {@code runLauncherAsWorker}, whose launcher is index 0). The
 * workers are created first, then the launcher.
 */
final class MpiJobExpander {
    static final String SCHEDULER = "volcano";

    private MpiJobExpander() {}

    static void expand(Field job, Metadata meta, ManifestCollector out) {
        Field specs = job.get("spec", "mpiReplicaSpecs");
        if (!specs.isPresent()) throw specs.error("is required");
        Field launcherSpec = null, workerSpec = null;
        for (Map.Entry<String, Field> e : specs.entries().entrySet()) {
            switch (e.getKey()) {
                case "Launcher" -> launcherSpec = e.getValue();
                case "Worker" -> workerSpec = e.getValue();
                default -> throw e.getValue().error("unknown replica type (an MPIJob has Launcher and Worker replicas)");
            }
        }
        if (launcherSpec == null) throw specs.get("Launcher").error("is required");
        int launcherReplicas = launcherSpec.get("replicas").integer(1, n -> n == 1, "must be 1 (an MPIJob has one launcher)");
        PodDraft launcher = template(launcherSpec);
        int workers = workerSpec == null ? 0 : workerSpec.get("replicas").integer(0, n -> n >= 0, "must be a non-negative integer");
        PodDraft worker = workerSpec == null ? null : template(workerSpec);
        out.missingLimits(launcher.missingLimits);
        if (worker != null) out.missingLimits(worker.missingLimits);
        boolean launcherAsWorker = job.get("spec", "runLauncherAsWorker").bool(false);

        Field policy = job.get("spec", "runPolicy", "schedulingPolicy");
        int minMember = policy.get("minAvailable").integer(workers + 1, n -> n >= 0, "must be a non-negative integer");
        String queue = policy.get("queue").string(meta.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT));
        String priorityClass = policy.get("priorityClass").string(launcher.priorityClassName != null ? launcher.priorityClassName
                : worker == null ? null : worker.priorityClassName);
        Resources minResources = policy.get("minResources").resources();
        if (minResources == null && minMember > 0) {
            Resources.Sum sum = new Resources.Sum();
            sum.add(launcher.requests.without("pods"));
            for (int i = 0; i < Math.min(workers, minMember - 1) && worker != null; i++) sum.add(worker.requests.without("pods"));
            minResources = sum.toResources();
        }
        String namespace = meta.namespaceOrDefault();
        String uid = Controllers.uid(job, "kubeflow.org/MPIJob", meta);
        int arrival = meta.arrivalCycleOr(0);

        for (int i = 0; i < workers; i++) {
            PodDraft pod = decorated(worker, meta, "worker", arrival);
            pod.name = meta.name() + "-worker-" + i;
            pod.labels.put(PyTorchJobExpander.REPLICA_INDEX_LABEL, Integer.toString(launcherAsWorker ? i + 1 : i));
            out.add(pod.toSpec(out.claim("Pod", pod.key(), job.origin())));
        }
        for (int i = 0; i < launcherReplicas; i++) {
            PodDraft pod = decorated(launcher, meta, "launcher", arrival);
            String launcherJob = meta.name() + "-launcher";
            String launcherUid = Controllers.uid(job, "batch/Job", new Metadata(namespace, launcherJob, Map.of(), Map.of(), null));
            pod.name = launcherJob + "-" + Controllers.suffix(launcherUid, i);
            if (launcherAsWorker) pod.labels.put(PyTorchJobExpander.REPLICA_INDEX_LABEL, "0");
            pod.labels.put("batch.kubernetes.io/job-name", launcherJob);
            pod.labels.put("job-name", launcherJob);
            out.add(pod.toSpec(out.claim("Pod", pod.key(), job.origin())));
        }
        long order = out.claim("PodGroup", namespace + "/" + meta.name(), job.origin());
        out.add(new PodGroupSpec(namespace, meta.name(), queue, minMember, Map.of(), minResources, priorityClass,
                PodGroupReader.PENDING, arrival, order));
    }

    private static PodDraft template(Field replicaSpec) {
        Field template = replicaSpec.get("template");
        if (!template.isPresent()) throw template.error("is required");
        return PodReader.read(template, SCHEDULER);
    }

    private static PodDraft decorated(PodDraft template, Metadata meta, String role, int arrival) {
        PodDraft pod = template.copy();
        pod.namespace = meta.namespaceOrDefault();
        pod.schedulerName = SCHEDULER;
        pod.annotations.put(PodSpec.GROUP_ANNOTATION, meta.name());
        pod.labels.put("training.kubeflow.org/operator-name", "mpi-operator");
        pod.labels.put(PyTorchJobExpander.JOB_NAME_LABEL, meta.name());
        pod.labels.put(PyTorchJobExpander.JOB_ROLE_LABEL, role);
        if (pod.arrivalCycle == null) pod.arrivalCycle = arrival;
        return pod;
    }
}
