package dev.arbiter.manifest;

import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.QueueUsage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Legal but likely mistakes, made loud: each check gives one notice line naming the object and the field, with a
 * "did you mean" ({@link DidYouMean}) where one name is clearly meant. Every such wording lives here.
 *
 * <ul>
 *   <li>{@link #unknownFields}: a field the object's schema does not have (Volcano PodGroup, Queue, Job and
 *       HyperNode; Kubeflow PyTorchJob and MPIJob; LeaderWorkerSet), which the API server would drop;
 *   <li>{@link #nearMissKeys}: an annotation or label key close to one Arbiter reads, e.g.
 *       {@code scheduling.volcano.sh/queue} for {@code scheduling.volcano.sh/queue-name};
 *   <li>{@link #crossReferences}: pods naming a PodGroup that exists only in another namespace, and PodGroups or pods
 *       naming a queue that does not exist;
 *   <li>{@link #skippedFiles} and {@link #noObject}: what a folder walk left out, and a path with no object at all.
 * </ul>
 */
public final class Mistakes {
    private Mistakes() {}

    // ---- unknown fields ----

    private static final Set<String> RUN_POLICY = Set.of("cleanPodPolicy", "ttlSecondsAfterFinished",
            "activeDeadlineSeconds", "backoffLimit", "schedulingPolicy", "suspend", "managedBy");
    private static final Set<String> SCHEDULING_POLICY = Set.of("minAvailable", "queue", "minResources",
            "priorityClass", "scheduleTimeoutSeconds");
    private static final Set<String> REPLICA_SPEC = Set.of("replicas", "template", "restartPolicy");
    private static final Set<String> NETWORK_TOPOLOGY = Set.of("mode", "highestTierAllowed", "highestTierName");
    private static final Set<String> LIFECYCLE_POLICY = Set.of("action", "event", "events", "exitCode", "timeout");

    /**
     * The fields each kind's schema has ({@code apiVersion kind} → path pattern → field names), by path pattern:
     * {@code a.b} a mapping, {@code a[]} each item of a list, {@code a.*} each value of a mapping keyed by name. Only the
     * parts of the objects their own API defines: standard metadata, pod templates, label selectors and
     * PersistentVolumeClaims are the API server's to check.
     *
     * <p>Taken from the upstream schemas (CRD {@code openAPIV3Schema}, checked against the Go types): Volcano's
     * {@code config/crd/volcano/bases/*.yaml} and {@code volcano-sh/apis} ({@code scheduling/v1beta1/types.go},
     * {@code batch/v1alpha1/job.go}, {@code topology/v1alpha1/hypernode_types.go}); Kubeflow's PyTorchJob CRD
     * ({@code kubeflow/training-operator} {@code manifests/base/crds/kubeflow.org_pytorchjobs.yaml}, the last v1 one)
     * and MPIJob v2beta1 ({@code kubeflow/mpi-operator} {@code manifests/base/kubeflow.org_mpijobs.yaml}); LWS
     * ({@code kubernetes-sigs/lws} {@code api/leaderworkerset/v1/leaderworkerset_types.go}). {@code
     * UpstreamSchemaFieldsTest} lists a manifest of each kind with every field.
     */
    private static final Map<String, Map<String, Set<String>>> SCHEMAS = Map.of(
            "scheduling.volcano.sh/v1beta1 PodGroup", Map.of(
                    "spec", Set.of("minMember", "minResources", "minTaskMember", "networkTopology", "priorityClassName",
                            "queue", "subGroupPolicy"),
                    "spec.networkTopology", NETWORK_TOPOLOGY,
                    "spec.subGroupPolicy[]", Set.of("name", "networkTopology", "subGroupSize", "minSubGroups",
                            "labelSelector", "matchLabelKeys"),
                    "spec.subGroupPolicy[].networkTopology", NETWORK_TOPOLOGY),
            "scheduling.volcano.sh/v1beta1 Queue", Map.of(
                    "spec", Set.of("affinity", "capability", "dequeueStrategy", "deserved", "extendClusters", "guarantee",
                            "parent", "priority", "reclaimable", "type", "weight"),
                    "spec.guarantee", Set.of("resource"),
                    "spec.extendClusters[]", Set.of("name", "weight", "capacity")),
            "topology.volcano.sh/v1alpha1 HyperNode", Map.of(
                    "spec", Set.of("members", "tier", "tierName"),
                    "spec.members[]", Set.of("type", "selector"),
                    "spec.members[].selector", Set.of("exactMatch", "regexMatch", "labelMatch"),
                    "spec.members[].selector.exactMatch", Set.of("name"),
                    "spec.members[].selector.regexMatch", Set.of("pattern")),
            "batch.volcano.sh/v1alpha1 Job", Map.of(
                    "spec", Set.of("schedulerName", "minAvailable", "volumes", "tasks", "policies", "plugins",
                            "runningEstimate", "queue", "maxRetry", "ttlSecondsAfterFinished", "priorityClassName",
                            "minSuccess", "networkTopology"),
                    "spec.volumes[]", Set.of("mountPath", "volumeClaimName", "volumeClaim"),
                    "spec.policies[]", LIFECYCLE_POLICY,
                    "spec.tasks[]", Set.of("name", "replicas", "minAvailable", "template", "policies", "topologyPolicy",
                            "maxRetry", "dependsOn", "partitionPolicy"),
                    "spec.tasks[].policies[]", LIFECYCLE_POLICY,
                    "spec.tasks[].dependsOn", Set.of("name", "iteration"),
                    "spec.tasks[].partitionPolicy", Set.of("totalPartitions", "partitionSize", "networkTopology",
                            "minPartitions"),
                    "spec.tasks[].partitionPolicy.networkTopology", NETWORK_TOPOLOGY,
                    "spec.networkTopology", NETWORK_TOPOLOGY),
            "kubeflow.org/v1 PyTorchJob", Map.of(
                    "spec", Set.of("runPolicy", "elasticPolicy", "pytorchReplicaSpecs", "nprocPerNode"),
                    "spec.runPolicy", RUN_POLICY,
                    "spec.runPolicy.schedulingPolicy", SCHEDULING_POLICY,
                    "spec.pytorchReplicaSpecs.*", REPLICA_SPEC,
                    "spec.elasticPolicy", Set.of("minReplicas", "maxReplicas", "rdzvBackend", "rdzvPort", "rdzvHost",
                            "rdzvId", "rdzvConf", "standalone", "nProcPerNode", "maxRestarts", "metrics"),
                    "spec.elasticPolicy.rdzvConf[]", Set.of("key", "value")),
            "kubeflow.org/v2beta1 MPIJob", Map.of(
                    "spec", Set.of("slotsPerWorker", "runLauncherAsWorker", "runPolicy", "mpiReplicaSpecs",
                            "sshAuthMountPath", "launcherCreationPolicy", "mpiImplementation"),
                    "spec.runPolicy", RUN_POLICY,
                    "spec.runPolicy.schedulingPolicy", SCHEDULING_POLICY,
                    "spec.mpiReplicaSpecs.*", REPLICA_SPEC),
            "leaderworkerset.x-k8s.io/v1 LeaderWorkerSet", Map.of(
                    "spec", Set.of("replicas", "leaderWorkerTemplate", "rolloutStrategy", "startupPolicy",
                            "networkConfig"),
                    "spec.leaderWorkerTemplate", Set.of("leaderTemplate", "workerTemplate", "size", "restartPolicy",
                            "subGroupPolicy", "volumeClaimTemplates", "persistentVolumeClaimRetentionPolicy"),
                    "spec.leaderWorkerTemplate.subGroupPolicy", Set.of("subGroupPolicyType", "subGroupSize"),
                    "spec.leaderWorkerTemplate.persistentVolumeClaimRetentionPolicy", Set.of("whenDeleted", "whenScaled"),
                    "spec.rolloutStrategy", Set.of("type", "rollingUpdateConfiguration"),
                    "spec.rolloutStrategy.rollingUpdateConfiguration", Set.of("partition", "maxUnavailable", "maxSurge"),
                    "spec.networkConfig", Set.of("subdomainPolicy")));

    /**
     * One notice per field of {@code object} (of {@code type}, "apiVersion kind": Volcano PodGroup, Queue, Job and
     * HyperNode, Kubeflow PyTorchJob and MPIJob, LeaderWorkerSet) that its schema does not have; nothing for other kinds.
     */
    static void unknownFields(String type, Field object, Consumer<String> notices) {
        Map<String, Set<String>> schema = SCHEMAS.get(type);
        if (schema != null) walk(object.get("spec"), "spec", schema, notices);
    }

    private static void walk(Field f, String pattern, Map<String, Set<String>> schema, Consumer<String> notices) {
        if (!f.isMapping()) return;
        Set<String> known = schema.get(pattern);
        for (Map.Entry<String, Field> e : f.entries().entrySet()) {
            String key = e.getKey();
            Field value = e.getValue();
            if (known != null && !known.contains(key)) {
                notices.accept(unknownField(value, DidYouMean.among(key, known)));
                continue;
            }
            String child = pattern + "." + key;
            if (schema.containsKey(child)) walk(value, child, schema, notices);
            if (schema.containsKey(child + "[]") && value.isList()) {
                for (Field item : value.items()) walk(item, child + "[]", schema, notices);
            }
            if (schema.containsKey(child + ".*") && value.isMapping()) {
                for (Field named : value.entries().values()) walk(named, child + ".*", schema, notices);
            }
        }
    }

    /** {@code a.yaml:4: PodGroup team-a/train: spec.minMemeber: unknown field, ignored (did you mean minMember?)}. */
    static String unknownField(Field field, String suggestion) {
        return field.notice("unknown field, ignored" + (suggestion == null ? "" : " (did you mean " + suggestion + "?)"));
    }

    // ---- annotation and label keys ----

    /** The annotation and label keys Arbiter reads, or that the controllers it stands in for set. */
    static final Set<String> KNOWN_KEYS = Set.of(PodSpec.GROUP_ANNOTATION, PodSpec.QUEUE_ANNOTATION,
            PodSpec.TASK_SPEC_ANNOTATION, PodSpec.PREEMPTABLE, NetworkTopology.KUEUE_REQUIRED,
            NetworkTopology.KUEUE_PREFERRED, ManifestLoader.ARRIVAL_CYCLE_ANNOTATION, QueueSpec.LENDING_LIMIT,
            QueueUsage.ANNOTATION, BatchJobExpander.MIN_MEMBER_ANNOTATION, VolcanoJobExpander.JOB_NAME,
            VolcanoJobExpander.JOB_NAMESPACE, VolcanoJobExpander.QUEUE_NAME, VolcanoJobExpander.TASK_INDEX,
            "volcano.sh/template-uid", "volcano.sh/job-version", "volcano.sh/job-retry-count",
            PyTorchJobExpander.JOB_NAME_LABEL, PyTorchJobExpander.REPLICA_TYPE_LABEL,
            PyTorchJobExpander.REPLICA_INDEX_LABEL, PyTorchJobExpander.JOB_ROLE_LABEL, "training.kubeflow.org/operator-name",
            LeaderWorkerSetExpander.NAME_LABEL, LeaderWorkerSetExpander.GROUP_INDEX_LABEL,
            LeaderWorkerSetExpander.WORKER_INDEX_LABEL, LeaderWorkerSetExpander.GROUP_KEY_LABEL,
            LeaderWorkerSetExpander.EXCLUSIVE_TOPOLOGY, dev.arbiter.model.Runtimes.ESTIMATE,
            dev.arbiter.model.Runtimes.SIMULATED);

    /** Keys already judged (label and annotation keys repeat across pods): key → the key meant, or "" for none. */
    private static final Map<String, String> JUDGED = new java.util.concurrent.ConcurrentHashMap<>();

    /** The key Arbiter reads that {@code key} likely means, or null when it is one or is not near one. */
    static String nearMiss(String key) {
        if (KNOWN_KEYS.contains(key)) return null;
        String judged = JUDGED.get(key);
        if (judged == null) {
            if (JUDGED.size() > 10_000) JUDGED.clear();
            String meant = judge(key);
            judged = meant == null ? "" : meant;
            JUDGED.put(key, judged);
        }
        return judged.isEmpty() ? null : judged;
    }

    private static String judge(String key) {
        String close = DidYouMean.among(key, KNOWN_KEYS);
        if (close != null) return close;
        int slash = key.indexOf('/');
        if (slash <= 0) return null;
        String prefix = key.substring(0, slash + 1);
        String name = key.substring(slash + 1);
        String found = null;
        for (String known : KNOWN_KEYS) {
            if (!known.startsWith(prefix)) continue;
            String knownName = known.substring(prefix.length());
            boolean cut = name.length() >= 4 && knownName.startsWith(name) && knownName.charAt(name.length()) == '-';
            if (cut) {
                if (found != null) return null;
                found = known;
            }
        }
        return found;
    }

    /**
     * One notice per annotation or label key in any {@code metadata} of {@code object} (its own, its templates') that is
     * close to a key Arbiter reads but is not one.
     */
    static void nearMissKeys(Field object, boolean withTemplates, Consumer<String> notices) {
        if (withTemplates) {
            visitMetadata(object, notices, 0);
        } else if (object.isMapping()) {
            checkKeys(object.get("metadata"), notices);
        }
    }

    private static void visitMetadata(Field f, Consumer<String> notices, int depth) {
        if (depth > 12) return;
        if (f.isList()) {
            for (Field item : f.items()) visitMetadata(item, notices, depth + 1);
            return;
        }
        if (!f.isMapping()) return;
        for (Map.Entry<String, Field> e : f.entries().entrySet()) {
            if (e.getKey().equals("metadata") && e.getValue().isMapping()) {
                checkKeys(e.getValue(), notices);
            } else if (e.getValue().isMapping() || e.getValue().isList()) {
                visitMetadata(e.getValue(), notices, depth + 1);
            }
        }
    }

    private static void checkKeys(Field metadata, Consumer<String> notices) {
        if (!metadata.isMapping()) return;
        for (String which : List.of("annotations", "labels")) {
            Field map = metadata.get(which);
            if (!map.isMapping()) continue;
            for (Map.Entry<String, Field> k : map.entries().entrySet()) {
                String meant = nearMiss(k.getKey());
                if (meant != null) notices.accept(nearMissKey(k.getValue(), which, meant));
                Field v = k.getValue();
                String bad = which.equals("annotations") && !v.isMapping() && !v.isList() ? badDuration(k.getKey(), v.string()) : null;
                if (bad != null) notices.accept(k.getValue().notice(bad));
            }
        }
    }

    /**
     * What is wrong with the value of a duration annotation ({@link dev.arbiter.model.Runtimes}: the runtime estimate,
     * the simulated runtime), or null when {@code key} is neither or the value reads: e.g. {@code "2hours" is not a
     * duration such as 45m, 2h, 1h30m or 1d, ignored (the job has no runtime estimate of its own)}.
     */
    static String badDuration(String key, String value) {
        boolean estimate = dev.arbiter.model.Runtimes.ESTIMATE.equals(key);
        if (!estimate && !dev.arbiter.model.Runtimes.SIMULATED.equals(key)) return null;
        if (value == null || dev.arbiter.model.Runtimes.readable(value)) return null;
        return "\"" + value + "\" is not a duration such as 45m, 2h, 1h30m or 1d (at most 366d), ignored"
                + (estimate ? " (the job has no runtime estimate of its own)" : " (the pod runs to the end of the run)");
    }

    /** {@code a.yaml:6: Pod team-a/p1: metadata.annotations[scheduling.volcano.sh/queue]: not an annotation ...}. */
    static String nearMissKey(Field keyValue, String which, String meant) {
        return keyValue.notice(keyProblem(which, meant));
    }

    private static String keyProblem(String which, String meant) {
        String noun = which.equals("labels") ? "a label" : "an annotation";
        return "not " + noun + " Arbiter reads, ignored (did you mean " + meant + "?)";
    }

    /**
     * Live mode's check of an object's own annotation and label keys: one line per near miss, e.g.
     * {@code metadata.annotations[scheduling.volcano.sh/queue]: not an annotation Arbiter reads, ignored (did you mean
     * scheduling.volcano.sh/queue-name?)}; empty when none.
     */
    public static List<String> nearMissKeys(Map<String, String> annotations, Map<String, String> labels) {
        List<String> out = new ArrayList<>();
        for (String which : List.of("annotations", "labels")) {
            Map<String, String> keys = which.equals("labels") ? labels : annotations;
            if (keys == null) continue;
            for (Map.Entry<String, String> k : keys.entrySet()) {
                String key = k.getKey();
                String meant = nearMiss(key);
                if (meant != null) out.add("metadata." + which + "[" + key + "]: " + keyProblem(which, meant));
                String bad = which.equals("annotations") ? badDuration(key, k.getValue()) : null;
                if (bad != null) out.add("metadata." + which + "[" + key + "]: " + bad);
            }
        }
        return out;
    }

    /**
     * The engine's reason for a job whose queue does not exist, with the queue meant: {@code queue "reserch" does not
     * exist (did you mean research?)}; {@code reason} unchanged when the queue exists or none is clearly meant.
     */
    public static String withQueueSuggestion(String reason, String queue, Collection<String> queues) {
        if (queue == null || reason == null || queues.contains(queue)) return reason;
        String hint = queueSuggestion(queue, queues);
        if (hint.isEmpty()) return reason;
        String missing = "queue \"" + queue + "\" does not exist";
        return reason.contains(missing) ? reason.replace(missing, missing + hint) : missing + hint + "; " + reason;
    }

    /** A PodGroup name → the namespaces that have a PodGroup of that name. */
    public static Map<String, Set<String>> namespacesByPodGroupName(Collection<PodGroupSpec> groups) {
        Map<String, Set<String>> out = new java.util.HashMap<>();
        for (PodGroupSpec g : groups) out.computeIfAbsent(g.name(), k -> new TreeSet<>()).add(g.namespace());
        return out;
    }

    // ---- cross references ----

    /**
     * Where a field naming another object is: {@code file:line}, the object that holds it (null: the object named in
     * the notice; else, for what a Job or LeaderWorkerSet was expanded into, that workload, e.g. {@code Job ml/vj}) and
     * the field's path (null when the workload holds it in one of several places).
     */
    record Reference(String location, String holder, String path) {
        /** {@code m.yaml:9: PodGroup team-a/train: spec.queue}, or {@code m.yaml:6: Job ml/vj} for an expanded one. */
        String where(String subject) {
            return location + ": " + (holder == null ? subject + (path == null ? "" : ": " + path) : holder);
        }
    }

    /** Where {@code object} ("Pod ns/p") names its {@code which} ("group", "queue"), {@code path} when not recorded. */
    @FunctionalInterface
    interface References {
        Reference of(String object, String which, String path);
    }

    private static final String GROUP_PATH = "metadata.annotations[" + PodSpec.GROUP_ANNOTATION + "]";
    private static final String QUEUE_PATH = "metadata.annotations[" + PodSpec.QUEUE_ANNOTATION + "]";

    /**
     * What a complete set of manifests refers to but lacks, each at the line that names it: pods naming a PodGroup that
     * their namespace lacks (another namespace having one of that name, or none at all, with the name meant), and
     * PodGroups or lone pods naming a queue that does not exist. Pods naming one missing PodGroup share one line.
     */
    static List<String> crossReferences(List<PodSpec> pods, List<PodGroupSpec> groups, Collection<String> queueNames,
                                        References at) {
        List<String> out = new ArrayList<>();
        Map<String, Set<String>> namespacesOf = namespacesByPodGroupName(groups);
        Map<String, Set<String>> namesIn = podGroupNamesByNamespace(groups);
        Set<String> groupKeys = new java.util.HashSet<>();
        for (PodGroupSpec g : groups) groupKeys.add(g.key());
        Map<String, List<PodSpec>> strays = new LinkedHashMap<>();
        for (PodSpec p : pods) {
            String group = p.groupName();
            if (group == null || groupKeys.contains(p.namespace() + "/" + group)) continue;
            strays.computeIfAbsent(p.namespace() + "/" + group, k -> new ArrayList<>()).add(p);
        }
        strays.forEach((key, members) -> {
            PodSpec first = members.get(0);
            Reference where = at.of("Pod " + first.key(), "group", GROUP_PATH);
            String problem = podGroupProblem(first, namespacesOf, namesIn, members.size() > 1);
            out.add(where.where(podsNamed(members)) + ": " + problem);
        });
        Set<String> queues = new TreeSet<>(queueNames);
        for (PodGroupSpec g : groups) {
            if (queues.contains(g.queue())) continue;
            Reference where = at.of("PodGroup " + g.key(), "queue", "spec.queue");
            out.add(missingQueue(where.where("PodGroup " + g.key()), g.queue(), queues));
        }
        for (PodSpec p : pods) {
            String q = p.annotations().get(PodSpec.QUEUE_ANNOTATION);
            if (p.groupName() == null && q != null && !q.isEmpty() && !queues.contains(q)) {
                Reference where = at.of("Pod " + p.key(), "queue", QUEUE_PATH);
                out.add(missingQueue(where.where("Pod " + p.key()), q, queues, false));
            }
        }
        return out;
    }

    /** {@code Pod ns/p1}, {@code Pods ns/p1, ns/p2}, {@code Pods ns/p1, ns/p2, ns/p3 and 4 more}. */
    private static String podsNamed(List<PodSpec> pods) {
        List<String> shown = pods.stream().limit(3).map(PodSpec::key).toList();
        return (pods.size() == 1 ? "Pod " : "Pods ") + String.join(", ", shown)
                + (pods.size() > 3 ? " and " + (pods.size() - 3) + " more" : "");
    }

    /** A namespace → the names of its PodGroups. */
    public static Map<String, Set<String>> podGroupNamesByNamespace(Collection<PodGroupSpec> groups) {
        Map<String, Set<String>> out = new java.util.HashMap<>();
        for (PodGroupSpec g : groups) out.computeIfAbsent(g.namespace(), k -> new TreeSet<>()).add(g.name());
        return out;
    }

    /**
     * Why a pod whose namespace has no PodGroup of the name it gives waits: {@code PodGroup team-a/train does not exist:
     * a PodGroup train exists only in namespace team-b, ...} when another namespace has one, else {@code PodGroup
     * "trian" does not exist (did you mean train?); it stays pending}, the name meant among its namespace's PodGroups.
     */
    private static String podGroupProblem(PodSpec pod, Map<String, Set<String>> namespacesByName,
                                          Map<String, Set<String>> namesByNamespace, boolean several) {
        String group = pod.groupName();
        Set<String> elsewhere = namespacesByName.get(group);
        if (elsewhere != null) {
            return "PodGroup " + pod.namespace() + "/" + group + " does not exist: " + inOtherNamespaces(group, elsewhere);
        }
        String meant = DidYouMean.among(group, namesByNamespace.getOrDefault(pod.namespace(), Set.of()));
        return "PodGroup \"" + group + "\" does not exist" + (meant == null ? "" : " (did you mean " + meant + "?)")
                + (several ? "; they stay pending" : "; it stays pending");
    }

    /**
     * Why a pending pod naming a PodGroup its namespace lacks waits, as {@code explain} and live mode's events say it
     * first: {@code PodGroup "trian" does not exist (did you mean train?); it stays pending}, or where a PodGroup of that
     * name is (another namespace); null when its PodGroup exists or it names none.
     */
    public static String podGroupMissing(PodSpec pod, Map<String, Set<String>> namespacesByName,
                                         Map<String, Set<String>> namesByNamespace) {
        String group = pod.groupName();
        if (group == null || namesByNamespace.getOrDefault(pod.namespace(), Set.of()).contains(group)) return null;
        return podGroupProblem(pod, namespacesByName, namesByNamespace, false);
    }

    /** {@link #podGroupMissing(PodSpec, Map, Map)} against {@code groups}. */
    public static String podGroupMissing(PodSpec pod, Collection<PodGroupSpec> groups) {
        if (pod.groupName() == null) return null;
        return podGroupMissing(pod, namespacesByPodGroupName(groups), podGroupNamesByNamespace(groups));
    }

    private static String inOtherNamespaces(String group, Set<String> namespaces) {
        return "a PodGroup " + group + " exists only in namespace" + (namespaces.size() == 1 ? " " : "s ")
                + String.join(", ", namespaces) + ", and a PodGroup gathers the pods of its own namespace alone,"
                + " so they stay pending";
    }

    /** {@code PodGroup team-a/train: spec.queue: queue "reserch" does not exist (did you mean research?); ...}. */
    public static String missingQueue(String where, String queue, Collection<String> queues) {
        return missingQueue(where, queue, queues, true);
    }

    /**
     * As {@link #missingQueue(String, String, Collection)}, of a PodGroup ({@code ...; its pods stay pending}) or of a
     * pod without one ({@code ...; it stays pending}).
     */
    public static String missingQueue(String where, String queue, Collection<String> queues, boolean ofPodGroup) {
        return where + ": queue \"" + queue + "\" does not exist" + queueSuggestion(queue, queues)
                + (ofPodGroup ? "; its pods stay pending" : "; it stays pending");
    }

    /** {@code " (did you mean research?)"} when one queue is clearly meant, else "". */
    public static String queueSuggestion(String queue, Collection<String> queues) {
        String meant = DidYouMean.among(queue, queues);
        return meant == null ? "" : " (did you mean " + meant + "?)";
    }

    // ---- folders ----

    /** {@code deploy/x: skipped 2 .json files (only *.yaml and *.yml files are read)}, one per kind of file. */
    static String skippedFiles(java.nio.file.Path dir, String kind, int count) {
        String files = count == 1 ? " file" : " files";
        String what = kind.equals("binary") ? count + " binary" + files
                : kind.isEmpty() ? count + files + " without an extension" : count + " " + kind + files;
        return dir + ": skipped " + what + " (only *.yaml and *.yml files are read)";
    }

    /** The error for a path that holds no Kubernetes object. */
    static ManifestException noObject(java.nio.file.Path path, boolean folder) {
        return new ManifestException(path + ": no Kubernetes object (" + (folder
                ? "no *.yaml or *.yml file in it has a document with apiVersion and kind"
                : "no document with apiVersion and kind") + ")");
    }
}
