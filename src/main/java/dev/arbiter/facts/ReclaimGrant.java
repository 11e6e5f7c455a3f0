package dev.arbiter.facts;

/**
 * Jobs of {@code reclaimer} may evict running tasks of {@code victimQueue} while the reclaimer's allocation, with what
 * the job (and each task) asks, fits under {@code reclaimerCeiling} as {@code fit} says (in every dimension the job
 * asks for, or in one), and each eviction only while the victim queue's allocation still exceeds {@code victimFloor}
 * in some dimension, or as {@code victims} says otherwise ({@link dev.arbiter.policy.VictimTest}). With
 * {@code ancestorLevels} above 0 (Volcano's capacity plugin's {@code ancestorReclaimLevel}), the reclaimer's ancestors
 * up to that many levels up may admit the job under their own deserved shares, and an
 * {@link dev.arbiter.policy.VictimTest#OVER_DESERVED} victim's ancestors up to that many levels (those the reclaimer
 * does not share) must be over theirs too. {@code rule} is the name of the rule that inserted it.
 */
public record ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling,
                           dev.arbiter.model.Resources victimFloor, String rule, dev.arbiter.policy.ReclaimFit fit,
                           dev.arbiter.policy.VictimTest victims, int ancestorLevels) {
    /** A grant that asks no ancestor. */
    public ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling,
                        dev.arbiter.model.Resources victimFloor, String rule, dev.arbiter.policy.ReclaimFit fit,
                        dev.arbiter.policy.VictimTest victims) {
        this(reclaimer, victimQueue, reclaimerCeiling, victimFloor, rule, fit, victims, 0);
    }

    /** A grant whose victims are judged against the victim queue's floor (Volcano's proportion plugin). */
    public ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling,
                        dev.arbiter.model.Resources victimFloor, String rule, dev.arbiter.policy.ReclaimFit fit) {
        this(reclaimer, victimQueue, reclaimerCeiling, victimFloor, rule, fit, dev.arbiter.policy.VictimTest.ABOVE_FLOOR);
    }

    /** A grant whose job must fit under the ceiling in every dimension it asks for (Volcano's proportion plugin). */
    public ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling,
                        dev.arbiter.model.Resources victimFloor, String rule) {
        this(reclaimer, victimQueue, reclaimerCeiling, victimFloor, rule, dev.arbiter.policy.ReclaimFit.EVERY_NEEDED);
    }
}
