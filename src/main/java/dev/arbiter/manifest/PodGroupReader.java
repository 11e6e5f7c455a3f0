package dev.arbiter.manifest;

import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads a {@code scheduling.volcano.sh/v1beta1} PodGroup. */
final class PodGroupReader {
    static final String PENDING = "Pending";

    private PodGroupReader() {}

    /**
     * {@code spec.queue} (default "default"; an unknown queue is left for the scheduler to report),
     * {@code spec.minMember} (default 1, not negative), {@code spec.minTaskMember}, {@code spec.minResources}
     * (null when unset), {@code spec.priorityClassName}, {@code status.phase} (default Pending) and
     * {@code volcano.sh/preemptable} ({@link #preemptable}).
     */
    static PodGroupSpec read(Field podGroup, Metadata meta, long creationOrder) {
        Field spec = podGroup.get("spec");
        return new PodGroupSpec(meta.namespaceOrDefault(), meta.name(),
                spec.get("queue").string(QueueSpec.DEFAULT),
                spec.get("minMember").integer(1, m -> m >= 0, "must be a non-negative integer"),
                minTaskMember(spec.get("minTaskMember")),
                spec.get("minResources").resources(),
                spec.get("priorityClassName").string(),
                podGroup.get("status", "phase").string(PENDING),
                meta.arrivalCycleOr(0),
                creationOrder,
                networkTopology(spec.get("networkTopology")),
                preemptable(meta));
    }

    /**
     * The PodGroup's {@code volcano.sh/preemptable}, its annotation, else its label, as Volcano's {@code
     * GetJobPreemptable} reads it: Go's boolean words ({@code true}, {@code 1}, {@code t}, ... {@code false}, ...); a value
     * that is none of them counts as {@code false} (Volcano's choice: when in doubt, not a victim); null when neither is
     * set (its pods' own markers decide).
     */
    static Boolean preemptable(Metadata meta) {
        String v = meta.annotations().get(PodSpec.PREEMPTABLE);
        if (v == null) v = meta.labels().get(PodSpec.PREEMPTABLE);
        if (v == null) return null;
        return switch (v) {
            case "1", "t", "T", "TRUE", "true", "True" -> Boolean.TRUE;
            default -> Boolean.FALSE;
        };
    }

    /**
     * Volcano's {@code spec.networkTopology}: {@code mode} hard or soft (default hard, as Volcano's CRD), and
     * {@code highestTierAllowed} (a positive integer, default {@value NetworkTopology#DEFAULT_HIGHEST_TIER}); null when
     * absent.
     */
    private static NetworkTopology networkTopology(Field t) {
        if (!t.isPresent()) return null;
        Field modeField = t.get("mode");
        String mode = modeField.string("hard");
        if (!mode.equals("hard") && !mode.equals("soft")) throw modeField.error("must be hard or soft, got " + mode);
        int highest = t.get("highestTierAllowed").integer(NetworkTopology.DEFAULT_HIGHEST_TIER, v -> v >= 1,
                "must be a positive integer");
        return NetworkTopology.tiers(mode.equals("hard"), highest);
    }

    private static Map<String, Integer> minTaskMember(Field map) {
        Map<String, Integer> out = new LinkedHashMap<>();
        map.entries().forEach((role, count) ->
                out.put(role, count.integer(0, m -> m >= 0, "must be a non-negative integer")));
        return out;
    }
}
