package dev.arbiter.manifest;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.WorkloadApiTerms;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@code scheduling.k8s.io/v1beta1} PodGroup (the upstream Workload API, KEP-4671; {@code v1alpha3} has the
 * same PodGroup) into the same {@link PodGroupSpec} a Volcano PodGroup becomes, with {@link WorkloadApiTerms} for what
 * only this API says. kube-scheduler's {@code GangScheduling} plugin reads the PodGroup alone (never its Workload): so
 * does Arbiter.
 */
final class WorkloadPodGroupReader {
    /** kube-scheduler's condition: True once the group was first scheduled, and never False again. */
    static final String INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled";

    private WorkloadPodGroupReader() {}

    /**
     * <ul>
     * <li>{@code spec.schedulingPolicy}: exactly one of {@code gang} ({@code minCount}, a positive integer, is the
     *     gang's minMember) and {@code basic} (no gang: minMember 1), as the API server validates it;</li>
     * <li>{@code spec.priorityClassName}, {@code spec.priority} (the PodGroup's priority, over its pods');</li>
     * <li>{@code spec.preemptionPolicy}: PreemptLowerPriority (default) or Never;</li>
     * <li>{@code spec.disruptionMode}: {@code single} (default) or {@code all}, not both;</li>
     * <li>the queue: the PodGroup's {@code scheduling.volcano.sh/queue-name} annotation, else the default queue (the
     *     API has no queue);</li>
     * <li>the phase: Running once the {@code PodGroupInitiallyScheduled} condition is True, else Pending;</li>
     * <li>{@code volcano.sh/preemptable} as on a Volcano PodGroup.</li>
     * </ul>
     * {@code spec.schedulingConstraints.topology}, {@code spec.parentCompositePodGroupName} and
     * {@code spec.resourceClaims} are not honoured: {@link WorkloadApiTerms#ignored} names those present.
     */
    static PodGroupSpec read(Field podGroup, Metadata meta, long creationOrder) {
        Field spec = podGroup.get("spec");
        Field policy = spec.get("schedulingPolicy");
        Field gang = policy.get("gang");
        Field basic = policy.get("basic");
        if (gang.isPresent() == basic.isPresent()) {
            throw policy.error("must set exactly one of basic and gang");
        }
        int minMember = gang.isPresent()
                ? gang.get("minCount").integer(0, m -> m >= 1, "must be a positive integer")
                : 1;
        if (gang.isPresent() && !gang.get("minCount").isPresent()) throw gang.get("minCount").error("is required");
        Field priority = spec.get("priority");
        Integer priorityValue = priority.isPresent()
                ? priority.integer(0, p -> p <= 1_000_000_000, "must be at most 1000000000") : null;
        String preemptionPolicy = PodReader.preemptionPolicy(spec.get("preemptionPolicy"), null);
        Field disruption = spec.get("disruptionMode");
        boolean all = disruption.get("all").isPresent();
        if (all && disruption.get("single").isPresent()) {
            throw disruption.error("must set exactly one of single and all");
        }
        WorkloadApiTerms terms = new WorkloadApiTerms(gang.isPresent(), priorityValue, "Never".equals(preemptionPolicy),
                all, ignored(spec));
        return new PodGroupSpec(meta.namespaceOrDefault(), meta.name(),
                meta.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT),
                minMember, Map.of(), null, spec.get("priorityClassName").string(),
                initiallyScheduled(podGroup.get("status", "conditions")) ? "Running" : PodGroupReader.PENDING,
                meta.arrivalCycleOr(0), creationOrder, null, PodGroupReader.preemptable(meta), terms);
    }

    /** Whether the conditions hold {@code PodGroupInitiallyScheduled} with status True. */
    static boolean initiallyScheduled(Field conditions) {
        for (Field c : conditions.items()) {
            if (INITIALLY_SCHEDULED.equals(c.get("type").string()) && "True".equals(c.get("status").string())) return true;
        }
        return false;
    }

    /** The fields present that Arbiter does not honour, as one phrase, or null when none is. */
    private static String ignored(Field spec) {
        List<String> out = new ArrayList<>();
        if (!spec.get("schedulingConstraints", "topology").items().isEmpty()) out.add("schedulingConstraints.topology");
        if (spec.get("parentCompositePodGroupName").string() != null) out.add("parentCompositePodGroupName");
        if (!spec.get("resourceClaims").items().isEmpty()) out.add("resourceClaims");
        return out.isEmpty() ? null : String.join(", ", out);
    }
}
