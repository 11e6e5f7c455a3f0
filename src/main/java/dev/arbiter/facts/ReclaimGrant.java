package dev.arbiter.facts;

/**
 * Jobs of {@code reclaimer} may evict running tasks of {@code victimQueue} while the reclaimer's allocation, with what
 * the job (and each task) asks, fits under {@code reclaimerCeiling} as {@code fit} says (in every dimension the job
 * asks for, or in one), and each eviction only while the victim queue's allocation still exceeds {@code victimFloor}
 * in some dimension. {@code rule} is the name of the rule that inserted it.
 */
public record ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling,
                           dev.arbiter.model.Resources victimFloor, String rule, dev.arbiter.policy.ReclaimFit fit) {
    /** A grant whose job must fit under the ceiling in every dimension it asks for (Volcano's proportion plugin). */
    public ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling,
                        dev.arbiter.model.Resources victimFloor, String rule) {
        this(reclaimer, victimQueue, reclaimerCeiling, victimFloor, rule, dev.arbiter.policy.ReclaimFit.EVERY_NEEDED);
    }
}
