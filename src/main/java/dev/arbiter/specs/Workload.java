package dev.arbiter.specs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tenant's workload as a product owner describes it, rendered as the objects its controller would submit.
 *
 * <ul>
 *   <li>PyTorchJob {@code name}: {@code masters} + {@code pods} workers; the training operator makes pods
 *       {@code name-master-0}, {@code name-worker-<i>} and PodGroup {@code name}.</li>
 *   <li>LeaderWorkerSet {@code name} of size {@code pods}: pods {@code name-0} (leader), {@code name-0-<i>}, PodGroup
 *       {@code name-0}.</li>
 *   <li>job {@code name}: PodGroup {@code name} and pods {@code name-0..pods-1}.</li>
 *   <li>pod {@code name}: a pod without a PodGroup (a gang of one).</li>
 *   <li>jobs {@code name}: {@code pods} one-pod jobs {@code name-1..pods}.</li>
 * </ul>
 * Every pod requests {@code gpus} GPUs and carries the label {@value #LABEL} with {@code name}, so outcome steps find
 * a workload's pods by that name. {@code minPods} null means every pod is needed (a strict gang).
 */
record Workload(Kind kind, String namespace, String name, int masters, int pods, int gpus, String priorityClass,
                String queue, Integer minPods, boolean preemptable, boolean preempts, Placing placing,
                Boolean groupPreemptable, Timing timing) implements SpecObject {
    /**
     * When its pods arrive and how long they run: {@code after} seconds after its batch arrives; for {@code jobs}, one
     * job every {@code every} seconds (0: all at once); each pod runs {@code runs} seconds in the simulator
     * ({@code simulation.arbiter.dev/runtime}; -1: to the end) and its user estimates {@code estimate} seconds
     * ({@code arbiter.dev/runtime-estimate}; -1: no estimate).
     */
    record Timing(int after, int every, long runs, long estimate) {
        static final Timing NONE = new Timing(0, 0, -1, -1);
    }

    Workload(Kind kind, String namespace, String name, int masters, int pods, int gpus, String priorityClass,
             String queue, Integer minPods, boolean preemptable, boolean preempts, Placing placing,
             Boolean groupPreemptable) {
        this(kind, namespace, name, masters, pods, gpus, priorityClass, queue, minPods, preemptable, preempts, placing,
                groupPreemptable, Timing.NONE);
    }
    /**
     * Where its pods may go: only on nodes whose {@code nodeLabel} is {@code nodeValue} (required node affinity; null:
     * anywhere), one pod per node (required anti-affinity per hostname among its own pods), each LeaderWorkerSet group
     * within one value of {@code groupKey} (the {@code exclusive-topology} annotation; null: no such rule), the whole
     * gang within one value of {@code domainKey} (Kueue's topology annotation, required when {@code domainHard}, else
     * preferred; null: none); its pods tolerate {@code tolerations} ({@code key=value:Effect}).
     */
    record Placing(String nodeLabel, String nodeValue, boolean onePerNode, String groupKey, String domainKey,
                   boolean domainHard, List<String> tolerations) {
        static final Placing ANYWHERE = new Placing(null, null, false, null, null, false, List.of());
    }

    Workload(Kind kind, String namespace, String name, int masters, int pods, int gpus, String priorityClass,
             String queue, Integer minPods, boolean preemptable, boolean preempts) {
        this(kind, namespace, name, masters, pods, gpus, priorityClass, queue, minPods, preemptable, preempts, Placing.ANYWHERE,
                null, Timing.NONE);
    }

    static final String LABEL = "specs.arbiter.dev/workload";
    private static final String SCHEDULER = "volcano";

    enum Kind {
        PYTORCH_JOB("PyTorchJob"), LEADER_WORKER_SET("LeaderWorkerSet"), JOB("job"), POD("pod"), JOBS("jobs");

        final String word;

        Kind(String word) {
            this.word = word;
        }

        static Kind of(String word) {
            for (Kind k : values()) if (k.word.equalsIgnoreCase(word.trim())) return k;
            throw new IllegalArgumentException("unknown kind \"" + word + "\" (known: PyTorchJob, LeaderWorkerSet, job, pod, jobs)");
        }
    }

    Workload {
        if (pods < 0 || masters < 0 || gpus < 0) throw new IllegalArgumentException(name + ": counts cannot be negative");
        if (placing.groupKey() != null && kind != Kind.LEADER_WORKER_SET) {
            throw new IllegalArgumentException(name + ": only a LeaderWorkerSet has groups to keep within one " + placing.groupKey());
        }
        if (timing.every() > 0 && kind != Kind.JOBS) {
            throw new IllegalArgumentException(name + ": \"one every ...\" applies to jobs (\"<n> jobs ...\"), which arrive one by one");
        }
        if (groupPreemptable != null && kind != Kind.JOB && kind != Kind.JOBS) {
            throw new IllegalArgumentException(name + ": \"whose PodGroup is ...\" applies to jobs, whose PodGroup the"
                    + " scenario writes; for a " + kind.word + " write its PodGroup in a \"these manifests are applied:\" step");
        }
        if (minPods != null) {
            if (kind == Kind.LEADER_WORKER_SET) {
                throw new IllegalArgumentException(name + ": a LeaderWorkerSet group is always a whole gang; use "
                        + "the manifests: step with a named PodGroup for an elastic one");
            }
            if (kind == Kind.POD || kind == Kind.JOBS) {
                throw new IllegalArgumentException(name + ": a " + kind.word + " is a gang of one; \"needing at least\" does not apply");
            }
            if (minPods < 1 || minPods > masters + pods) {
                throw new IllegalArgumentException(name + ": needs at least " + minPods + " of its " + (masters + pods) + " pods?");
            }
        }
    }

    @Override
    public List<Map<String, Object>> render(String gpu, int batchArrival) {
        int arrival = batchArrival + timing.after();
        return switch (kind) {
            case PYTORCH_JOB -> List.of(pyTorchJob(gpu, arrival));
            case LEADER_WORKER_SET -> List.of(leaderWorkerSet(gpu, arrival));
            case JOB -> job(name, pods, gpu, arrival);
            case POD -> List.of(pod(name, null, gpu, arrival));
            case JOBS -> {
                List<Map<String, Object>> out = new ArrayList<>();
                for (int i = 1; i <= pods; i++) out.addAll(job(name + "-" + i, 1, gpu, arrival + (i - 1) * timing.every()));
                yield out;
            }
        };
    }

    private Map<String, Object> pyTorchJob(String gpu, int arrival) {
        Map<String, Object> job = SpecObject.object("kubeflow.org/v1", "PyTorchJob", name, namespace, arrival);
        Map<String, Object> spec = SpecObject.child(job, "spec");
        Map<String, Object> policy = SpecObject.child(SpecObject.child(spec, "runPolicy"), "schedulingPolicy");
        policy.put("queue", queue);
        if (priorityClass != null) policy.put("priorityClass", priorityClass);
        if (minPods != null) policy.put("minAvailable", minPods);
        Map<String, Object> replicas = SpecObject.child(spec, "pytorchReplicaSpecs");
        if (masters > 0) replicas.put("Master", replicaSpec(masters, gpu));
        if (pods > 0) replicas.put("Worker", replicaSpec(pods, gpu));
        return job;
    }

    private Map<String, Object> replicaSpec(int count, String gpu) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("replicas", count);
        r.put("restartPolicy", "OnFailure");
        r.put("template", template(gpu, Map.of()));
        return r;
    }

    private Map<String, Object> leaderWorkerSet(String gpu, int arrival) {
        Map<String, Object> lws = SpecObject.object("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", name, namespace, arrival);
        if (placing.groupKey() != null) {
            SpecObject.child(SpecObject.child(lws, "metadata"), "annotations")
                    .put("leaderworkerset.sigs.k8s.io/exclusive-topology", placing.groupKey());
        }
        Map<String, Object> spec = SpecObject.child(lws, "spec");
        spec.put("replicas", 1);
        Map<String, Object> templates = SpecObject.child(spec, "leaderWorkerTemplate");
        templates.put("size", pods);
        templates.put("workerTemplate", template(gpu, Map.of("scheduling.volcano.sh/queue-name", queue)));
        return lws;
    }

    private List<Map<String, Object>> job(String jobName, int count, String gpu, int arrival) {
        List<Map<String, Object>> out = new ArrayList<>();
        Map<String, Object> group = SpecObject.object("scheduling.volcano.sh/v1beta1", "PodGroup", jobName, namespace, arrival);
        Map<String, Object> spec = SpecObject.child(group, "spec");
        spec.put("queue", queue);
        spec.put("minMember", minPods == null ? count : minPods);
        if (priorityClass != null) spec.put("priorityClassName", priorityClass);
        if (groupPreemptable != null) {
            SpecObject.child(SpecObject.child(group, "metadata"), "annotations")
                    .put("volcano.sh/preemptable", groupPreemptable.toString());
        }
        out.add(group);
        for (int i = 0; i < count; i++) out.add(pod(jobName + "-" + i, jobName, gpu, arrival));
        return out;
    }

    /** A pod of this workload; {@code group} null makes it a gang of one in {@code queue}. */
    private Map<String, Object> pod(String podName, String group, String gpu, int arrival) {
        Map<String, Object> pod = SpecObject.object("v1", "Pod", podName, namespace, arrival);
        Map<String, Object> template = template(gpu, group == null ? Map.of("scheduling.volcano.sh/queue-name", queue)
                : Map.of("scheduling.k8s.io/group-name", group));
        @SuppressWarnings("unchecked")
        Map<String, Object> templateMeta = (Map<String, Object>) template.get("metadata");
        Map<String, Object> meta = SpecObject.child(pod, "metadata");
        meta.put("labels", templateMeta.get("labels"));
        Map<String, Object> annotations = SpecObject.child(meta, "annotations");
        @SuppressWarnings("unchecked")
        Map<String, Object> templateAnnotations = (Map<String, Object>) templateMeta.get("annotations");
        annotations.putAll(templateAnnotations);
        pod.put("spec", template.get("spec"));
        return pod;
    }

    /** The pod template every pod of this workload shares, with the given extra annotations. */
    private Map<String, Object> template(String gpu, Map<String, String> extraAnnotations) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("labels", Map.of(LABEL, name));
        Map<String, Object> annotations = new LinkedHashMap<>(extraAnnotations);
        if (timing.runs() >= 0) annotations.put(dev.arbiter.model.Runtimes.SIMULATED, timing.runs() + "s");
        if (timing.estimate() >= 0) annotations.put(dev.arbiter.model.Runtimes.ESTIMATE, timing.estimate() + "s");
        if (!preemptable) annotations.put("volcano.sh/preemptable", "false");
        if (placing.domainKey() != null) {
            annotations.put(placing.domainHard() ? dev.arbiter.model.NetworkTopology.KUEUE_REQUIRED
                    : dev.arbiter.model.NetworkTopology.KUEUE_PREFERRED, placing.domainKey());
        }
        meta.put("annotations", annotations);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("schedulerName", SCHEDULER);
        if (priorityClass != null) spec.put("priorityClassName", priorityClass);
        if (!preempts) spec.put("preemptionPolicy", "Never");
        Map<String, Object> affinity = new LinkedHashMap<>();
        if (placing.nodeLabel() != null) {
            affinity.put("nodeAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms",
                    List.of(Map.of("matchExpressions", List.of(Map.of("key", placing.nodeLabel(), "operator", "In",
                            "values", List.of(placing.nodeValue()))))))));
        }
        if (placing.onePerNode()) {
            affinity.put("podAntiAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution", List.of(Map.of(
                    "labelSelector", Map.of("matchLabels", Map.of(LABEL, name)), "topologyKey", "kubernetes.io/hostname"))));
        }
        if (!affinity.isEmpty()) spec.put("affinity", affinity);
        if (!placing.tolerations().isEmpty()) {
            List<Map<String, String>> tolerations = new java.util.ArrayList<>();
            for (String t : placing.tolerations()) {
                String[] keyRest = t.split("=", 2);
                String[] valueEffect = keyRest[1].split(":", 2);
                tolerations.add(Map.of("key", keyRest[0], "operator", "Equal", "value", valueEffect[0],
                        "effect", valueEffect[1]));
            }
            spec.put("tolerations", tolerations);
        }
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "main");
        container.put("image", "registry.example.com/" + namespace + "/" + name + ":latest");
        if (gpus > 0) {
            Map<String, String> amount = Map.of(gpu, Integer.toString(gpus));
            container.put("resources", Map.of("requests", amount, "limits", amount));
        }
        spec.put("containers", List.of(container));
        Map<String, Object> template = new LinkedHashMap<>();
        template.put("metadata", meta);
        template.put("spec", spec);
        return template;
    }
}
