package dev.arbiter.model;

/**
 * What a {@code scheduling.k8s.io/v1beta1} PodGroup (the upstream Workload API, KEP-4671) says beyond what it shares
 * with a Volcano PodGroup: whether it is a gang ({@code spec.schedulingPolicy.gang}; {@code basic} is none), its
 * integer {@code spec.priority} (null when unset; the API server's priority admission fills it from the class),
 * whether it may preempt ({@code spec.preemptionPolicy: Never} says not), and whether its pods go together when one
 * of them is a victim ({@code spec.disruptionMode: all}). Its {@code spec.schedulingConstraints.topology} and
 * {@code spec.parentCompositePodGroupName} are read only to say that they are not honoured ({@code ignored}).
 */
public record WorkloadApiTerms(boolean gang, Integer priority, boolean neverPreempts, boolean disruptAll,
                               String ignored) {
    /** The API group whose PodGroups these are. */
    public static final String GROUP = "scheduling.k8s.io";
}
