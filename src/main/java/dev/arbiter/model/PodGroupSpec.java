package dev.arbiter.model;

import java.util.Map;

/**
 * A Volcano PodGroup (a job, a gang). {@code minResources} may be null, in which case the scheduler derives it from
 * the requests of the first {@code minMember} tasks. {@code phase} is the status phase carried by the manifest
 * (Pending when absent). {@code networkTopology} is {@code spec.networkTopology} (null: the job states none, though its
 * pods may carry Kueue's topology annotations). {@code preemptable} is the PodGroup's {@code volcano.sh/preemptable}
 * (annotation, else label): whether its pods may be victims, over what each pod says; null when it says nothing.
 * {@code workloadApi} is null for a Volcano PodGroup; for a {@code scheduling.k8s.io/v1beta1} PodGroup (the upstream
 * Workload API) it holds what that API says beyond the rest ({@link WorkloadApiTerms}). Both kinds share one key,
 * {@code namespace/name}: a pod names either through its group ({@link PodSpec#groupName}).
 */
public record PodGroupSpec(String namespace, String name, String queue, int minMember,
                           Map<String, Integer> minTaskMember, Resources minResources, String priorityClassName,
                           String phase, int arrivalCycle, long creationOrder, NetworkTopology networkTopology,
                           Boolean preemptable, WorkloadApiTerms workloadApi) {
    public PodGroupSpec {
        minTaskMember = Map.copyOf(minTaskMember);
        if (queue != null) queue = queue.intern(); // the same string as its queue's name (QueueSpec)
    }

    /** A Volcano PodGroup. */
    public PodGroupSpec(String namespace, String name, String queue, int minMember, Map<String, Integer> minTaskMember,
                        Resources minResources, String priorityClassName, String phase, int arrivalCycle,
                        long creationOrder, NetworkTopology networkTopology, Boolean preemptable) {
        this(namespace, name, queue, minMember, minTaskMember, minResources, priorityClassName, phase, arrivalCycle,
                creationOrder, networkTopology, preemptable, null);
    }

    /** A PodGroup that says nothing of its pods' preemptability. */
    public PodGroupSpec(String namespace, String name, String queue, int minMember, Map<String, Integer> minTaskMember,
                        Resources minResources, String priorityClassName, String phase, int arrivalCycle,
                        long creationOrder, NetworkTopology networkTopology) {
        this(namespace, name, queue, minMember, minTaskMember, minResources, priorityClassName, phase, arrivalCycle,
                creationOrder, networkTopology, null);
    }

    /** A PodGroup without a network topology. */
    public PodGroupSpec(String namespace, String name, String queue, int minMember, Map<String, Integer> minTaskMember,
                        Resources minResources, String priorityClassName, String phase, int arrivalCycle,
                        long creationOrder) {
        this(namespace, name, queue, minMember, minTaskMember, minResources, priorityClassName, phase, arrivalCycle,
                creationOrder, null);
    }

    /** This PodGroup arriving at {@code cycle}, created in {@code order}. */
    public PodGroupSpec withArrival(int cycle, long order) {
        return new PodGroupSpec(namespace, name, queue, minMember, minTaskMember, minResources, priorityClassName, phase,
                cycle, order, networkTopology, preemptable, workloadApi);
    }

    /** This PodGroup in status phase {@code phase}, created in {@code order}; the rest as it is. */
    public PodGroupSpec withPhase(String phase, long order) {
        return new PodGroupSpec(namespace, name, queue, minMember, minTaskMember, minResources, priorityClassName, phase,
                arrivalCycle, order, networkTopology, preemptable, workloadApi);
    }

    /** This PodGroup with another network topology (null: none). */
    public PodGroupSpec withNetworkTopology(NetworkTopology t) {
        return new PodGroupSpec(namespace, name, queue, minMember, minTaskMember, minResources, priorityClassName, phase,
                arrivalCycle, creationOrder, t, preemptable, workloadApi);
    }

    /** Whether this is a {@code scheduling.k8s.io} PodGroup of the upstream Workload API (else a Volcano one). */
    public boolean isWorkloadApi() {
        return workloadApi != null;
    }

    public String key() {
        return namespace + "/" + name;
    }
}
