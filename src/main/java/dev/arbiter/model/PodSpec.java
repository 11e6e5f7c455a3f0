package dev.arbiter.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;

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
 *
 * <p>Immutable, with the value semantics of a record of these components ({@code equals}, {@code hashCode} and
 * {@code toString} as a record's). It is a class so that it can keep what it derives from its own fields — its key,
 * its job's id, whether it leads its gang, its task role — worked out once: a snapshot shares an unchanged pod's
 * object with the next, and a scheduling cycle asks these of every pod.
 */
public final class PodSpec {
    private final String namespace;
    private final String name;
    private final String schedulerName;
    private final String nodeName;
    private final String phase;
    private final String priorityClassName;
    private final Integer priority;
    private final String preemptionPolicy;
    private final Resources requests;
    private final Map<String, String> nodeSelector;
    private final List<Toleration> tolerations;
    private final Map<String, String> labels;
    private final Map<String, String> annotations;
    private final int arrivalCycle;
    private final long creationOrder;
    private final boolean terminating;
    private final long startedAt;
    private final Placement placement;

    /** Derived from the fields above when first asked (see the class comment); racing threads derive the same. */
    private String key;
    private String jobId;
    /** 0 not yet known, 1 leads its gang, 2 does not. */
    private byte leader;
    /** {@link #taskRole()}, once read (every eviction shape reads it of every pending pod). */
    private String taskRole;

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

    public PodSpec(String namespace, String name, String schedulerName, String nodeName, String phase,
                   String priorityClassName, Integer priority, String preemptionPolicy, Resources requests,
                   Map<String, String> nodeSelector, List<Toleration> tolerations,
                   Map<String, String> labels, Map<String, String> annotations,
                   int arrivalCycle, long creationOrder, boolean terminating, long startedAt,
                   Placement placement) {
        this.namespace = namespace;
        this.name = name;
        this.schedulerName = schedulerName;
        this.nodeName = nodeName;
        this.phase = phase;
        this.priorityClassName = priorityClassName;
        this.priority = priority;
        this.preemptionPolicy = preemptionPolicy;
        // Shared: the engine compares these pod by pod, and equal ones then compare by identity.
        this.requests = requests == null ? null : Shared.of(requests);
        this.nodeSelector = Shared.of(Map.copyOf(nodeSelector));
        this.tolerations = Shared.of(List.copyOf(tolerations));
        this.labels = Map.copyOf(labels);
        this.annotations = Map.copyOf(annotations);
        this.arrivalCycle = arrivalCycle;
        this.creationOrder = creationOrder;
        this.terminating = terminating;
        this.startedAt = startedAt;
        this.placement = placement == null ? Placement.NONE : placement;
    }

    /** {@code namespace/name}. */
    public String key() {
        String k = key;
        if (k == null) key = k = namespace + "/" + name;
        return k;
    }

    /**
     * Whether this pod asks the same of a node as {@code other}: neither states a placement rule, and they have the
     * same request, node selector and tolerations (the node fitter answers such pods alike in the same state).
     */
    public boolean asksAlikeOf(PodSpec other) {
        return placement() == Placement.NONE && other.placement() == Placement.NONE
                && nodeSelector().equals(other.nodeSelector()) && tolerations().equals(other.tolerations())
                && requests().equals(other.requests());
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
        String j = jobId;
        if (j == null) jobId = j = namespace + "/" + groupOrImplicit();
        return j;
    }

    /**
     * The task role: Volcano's {@code volcano.sh/task-spec} annotation, else the label of the same name (Volcano's job
     * controller writes both), or "" when the pod names none.
     */
    public String taskRole() {
        String role = taskRole;
        if (role == null) {
            role = annotations.get(TASK_SPEC_ANNOTATION);
            if (role == null || role.isEmpty()) role = labels.get(TASK_SPEC_ANNOTATION);
            taskRole = role = role == null ? "" : role;
        }
        return role;
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
        byte l = leader;
        if (l == 0) leader = l = leads() ? (byte) 1 : (byte) 2;
        return l == 1;
    }

    private boolean leads() {
        String role = taskRole();
        return role.equals("master") || role.equals("leader")
                || "master".equals(labels.get("training.kubeflow.org/job-role"))
                || "launcher".equals(labels.get("training.kubeflow.org/job-role"))
                || "0".equals(labels.get("leaderworkerset.sigs.k8s.io/worker-index"));
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

    /** This pod with these annotations instead of its own. */
    public PodSpec withAnnotations(Map<String, String> newAnnotations) {
        return new PodSpec(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, newAnnotations, arrivalCycle, creationOrder,
                terminating, startedAt, placement);
    }

    /** This pod, started at {@code second} on the snapshot clock. */
    public PodSpec withStartedAt(long second) {
        return new PodSpec(namespace, name, schedulerName, nodeName, phase, priorityClassName, priority,
                preemptionPolicy, requests, nodeSelector, tolerations, labels, annotations, arrivalCycle, creationOrder,
                terminating, second, placement);
    }

    public String namespace() {
        return namespace;
    }

    public String name() {
        return name;
    }

    public String schedulerName() {
        return schedulerName;
    }

    public String nodeName() {
        return nodeName;
    }

    public String phase() {
        return phase;
    }

    public String priorityClassName() {
        return priorityClassName;
    }

    public Integer priority() {
        return priority;
    }

    public String preemptionPolicy() {
        return preemptionPolicy;
    }

    public Resources requests() {
        return requests;
    }

    public Map<String, String> nodeSelector() {
        return nodeSelector;
    }

    public List<Toleration> tolerations() {
        return tolerations;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public Map<String, String> annotations() {
        return annotations;
    }

    public int arrivalCycle() {
        return arrivalCycle;
    }

    public long creationOrder() {
        return creationOrder;
    }

    public boolean terminating() {
        return terminating;
    }

    /**
     * Whether the pod Succeeded or Failed: it holds nothing on its node (the kubelet released it) and is never
     * scheduled again.
     */
    public boolean finished() {
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    public long startedAt() {
        return startedAt;
    }

    public Placement placement() {
        return placement;
    }

    @Override
    public boolean equals(Object other) {
        return other == this || other instanceof PodSpec o
                && Objects.equals(namespace, o.namespace)
                && Objects.equals(name, o.name)
                && Objects.equals(schedulerName, o.schedulerName)
                && Objects.equals(nodeName, o.nodeName)
                && Objects.equals(phase, o.phase)
                && Objects.equals(priorityClassName, o.priorityClassName)
                && Objects.equals(priority, o.priority)
                && Objects.equals(preemptionPolicy, o.preemptionPolicy)
                && Objects.equals(requests, o.requests)
                && Objects.equals(nodeSelector, o.nodeSelector)
                && Objects.equals(tolerations, o.tolerations)
                && Objects.equals(labels, o.labels)
                && Objects.equals(annotations, o.annotations)
                && arrivalCycle == o.arrivalCycle
                && creationOrder == o.creationOrder
                && terminating == o.terminating
                && startedAt == o.startedAt
                && Objects.equals(placement, o.placement);
    }

    /** As a record's: each component's hash in turn, {@code 31 * h + hash}. */
    @Override
    public int hashCode() {
        int h = 0;
        h = 31 * h + Objects.hashCode(namespace);
        h = 31 * h + Objects.hashCode(name);
        h = 31 * h + Objects.hashCode(schedulerName);
        h = 31 * h + Objects.hashCode(nodeName);
        h = 31 * h + Objects.hashCode(phase);
        h = 31 * h + Objects.hashCode(priorityClassName);
        h = 31 * h + Objects.hashCode(priority);
        h = 31 * h + Objects.hashCode(preemptionPolicy);
        h = 31 * h + Objects.hashCode(requests);
        h = 31 * h + Objects.hashCode(nodeSelector);
        h = 31 * h + Objects.hashCode(tolerations);
        h = 31 * h + Objects.hashCode(labels);
        h = 31 * h + Objects.hashCode(annotations);
        h = 31 * h + Integer.hashCode(arrivalCycle);
        h = 31 * h + Long.hashCode(creationOrder);
        h = 31 * h + Boolean.hashCode(terminating);
        h = 31 * h + Long.hashCode(startedAt);
        h = 31 * h + Objects.hashCode(placement);
        return h;
    }

    @Override
    public String toString() {
        return "PodSpec[namespace=" + namespace + ", name=" + name + ", schedulerName=" + schedulerName
                + ", nodeName=" + nodeName + ", phase=" + phase + ", priorityClassName=" + priorityClassName
                + ", priority=" + priority + ", preemptionPolicy=" + preemptionPolicy + ", requests=" + requests
                + ", nodeSelector=" + nodeSelector + ", tolerations=" + tolerations + ", labels=" + labels
                + ", annotations=" + annotations + ", arrivalCycle=" + arrivalCycle + ", creationOrder=" + creationOrder
                + ", terminating=" + terminating + ", startedAt=" + startedAt + ", placement=" + placement + "]";
    }
}
