package dev.arbiter.model;

import java.util.List;
import java.util.Map;

/**
 * A pod: the unit the scheduler binds (Volcano's task). {@code nodeName} is null while pending.
 * {@code requests} already includes {@code pods: 1}. {@code priority} is the resolved {@code spec.priority}
 * when the manifest carried one, else null (the rules resolve it from the PriorityClass).
 * {@code creationOrder} is a total order of creation (manifest order in the simulator, creationTimestamp live).
 * {@code terminating} is true once the pod has a deletionTimestamp: it still holds its node's resources until it is
 * gone, but it is neither pending nor a possible victim. {@code startedAt} is when the pod started running, in
 * seconds on the snapshot's clock ({@code status.startTime} live, the bind cycle in simulation), or
 * {@link #UNKNOWN_START} when unknown. {@code placement} holds its affinity, anti-affinity, topology spread and host
 * ports ({@link Placement#NONE} when it states none).
 */
public record PodSpec(String namespace, String name, String schedulerName, String nodeName, String phase,
                      String priorityClassName, Integer priority, String preemptionPolicy, Resources requests,
                      Map<String, String> nodeSelector, List<Toleration> tolerations,
                      Map<String, String> labels, Map<String, String> annotations,
                      int arrivalCycle, long creationOrder, boolean terminating, long startedAt,
                      Placement placement) {
    public static final String GROUP_ANNOTATION = "scheduling.k8s.io/group-name";
    public static final String QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name";
    public static final String TASK_SPEC_ANNOTATION = "volcano.sh/task-spec";
    public static final String PREEMPTABLE = "volcano.sh/preemptable";

    public static final long UNKNOWN_START = Long.MIN_VALUE;

    /** A pod whose start time is unknown. */
    public PodSpec(String namespace, String name, String schedulerName, String nodeName, String phase,
                   String priorityClassName, Integer priority, String preemptionPolicy, Resources requests,
                   Map<String, String> nodeSelector, List<Toleration> tolerations,
                   Map<String, String> labels, Map<String, String> annotations,
                   int arrivalCycle, long creationOrder, boolean terminating) {
        this(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority, preemptionPolicy, requests,
                nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder, terminating, UNKNOWN_START);
    }

    /** A pod without placement constraints beyond nodeSelector and tolerations. */
    public PodSpec(String namespace, String name, String schedulerName, String nodeName, String phase,
                   String priorityClassName, Integer priority, String preemptionPolicy, Resources requests,
                   Map<String, String> nodeSelector, List<Toleration> tolerations,
                   Map<String, String> labels, Map<String, String> annotations,
                   int arrivalCycle, long creationOrder, boolean terminating, long startedAt) {
        this(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority, preemptionPolicy, requests,
                nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder, terminating, startedAt,
                Placement.NONE);
    }

    public PodSpec {
        nodeSelector = Map.copyOf(nodeSelector);
        tolerations = List.copyOf(tolerations);
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        if (placement == null) placement = Placement.NONE;
    }

    public String key() {
        return namespace + "/" + name;
    }

    public boolean isBound() {
        return nodeName != null;
    }

    /** The PodGroup named by the group-name annotation, or null for a pod that is a gang of one. */
    public String groupName() {
        return annotations.get(GROUP_ANNOTATION);
    }

    /**
     * The PodGroup name the pod belongs to: the group-name annotation, or for a pod without one its implicit gang of
     * one, {@code podgroup-<pod>} (as Volcano's controller names it, but never written as an object).
     */
    public String groupOrImplicit() {
        String g = groupName();
        return g != null ? g : "podgroup-" + name;
    }

    /** The job the pod belongs to, {@code namespace/} its {@linkplain #groupOrImplicit() PodGroup or implicit gang}. */
    public String jobId() {
        return namespace + "/" + groupOrImplicit();
    }

    /**
     * The task role: Volcano's {@code volcano.sh/task-spec} annotation, else the label of the same name (Volcano's job
     * controller writes both), or "" when the pod names none.
     */
    public String taskRole() {
        String role = annotations.get(TASK_SPEC_ANNOTATION);
        if (role == null || role.isEmpty()) role = labels.get(TASK_SPEC_ANNOTATION);
        return role == null ? "" : role;
    }

    /** False when the {@code volcano.sh/preemptable} annotation or label is "false". */
    public boolean preemptableMarker() {
        String v = annotations.getOrDefault(PREEMPTABLE, labels.get(PREEMPTABLE));
        return v == null || !v.trim().equalsIgnoreCase("false");
    }

    /**
     * True for the pod that leads its gang: a PyTorchJob master ({@code volcano.sh/task-spec: master} or the
     * {@code training.kubeflow.org/job-role: master} label), an MPIJob launcher ({@code job-role: launcher}) or a
     * LeaderWorkerSet leader (worker index 0).
     * Victim selection evicts leaders last.
     */
    public boolean isLeader() {
        String role = taskRole();
        return role.equals("master") || role.equals("leader")
                || "master".equals(labels.get("training.kubeflow.org/job-role"))
                || "launcher".equals(labels.get("training.kubeflow.org/job-role"))
                || "0".equals(labels.get("leaderworkerset.sigs.k8s.io/worker-index"));
    }

    /** This pod with other placement constraints. */
    public PodSpec withPlacement(Placement p) {
        return new PodSpec(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder,
                terminating, startedAt, p);
    }

    public PodSpec withCreationOrder(long order) {
        return new PodSpec(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations, arrivalCycle, order, terminating, startedAt, placement);
    }

    public PodSpec withNode(String node, String newPhase) {
        return new PodSpec(namespace, name, schedulerName, node, newPhase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder,
                terminating, startedAt, placement);
    }

    /** This pod with a deletionTimestamp: it holds its node until gone, but is neither pending nor a victim. */
    public PodSpec withTerminating() {
        return new PodSpec(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder,
                true, startedAt, placement);
    }

    /** This pod, started at {@code second} on the snapshot clock. */
    public PodSpec withStartedAt(long second) {
        return new PodSpec(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder,
                terminating, second, placement);
    }
}
