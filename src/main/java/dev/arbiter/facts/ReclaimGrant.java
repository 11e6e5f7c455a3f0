package dev.arbiter.facts;

/**
 * Jobs of {@code reclaimer} may evict running tasks of {@code victimQueue} while the reclaimer's allocation has not reached {@code reclaimerCeiling} in the job's dimensions, and each eviction only while the victim queue's allocation still exceeds {@code victimFloor} in some dimension.
 * {@code rule} is the name of the rule that inserted it.
 */
public record ReclaimGrant(String reclaimer, String victimQueue, dev.arbiter.model.Resources reclaimerCeiling, dev.arbiter.model.Resources victimFloor, String rule) {
}
