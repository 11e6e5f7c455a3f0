package dev.arbiter.policy;

/**
 * What reclaim does with a job larger than its queue's floor (its deserved share, or guarantee if larger), a strict
 * gang that runs on borrowed resources, when no plan leaves every victim queue at its floor.
 */
public enum GangBelowFloor implements Words.Worded {
    /** The job is no victim: every floor holds, and the lender waits for the job to end. */
    SPARE("spare"),
    /**
     * As a last resort the job goes whole (the shipped setting): the lender gets back what was borrowed, and the
     * victim queue ends below its share, which the job could never have run within.
     */
    EVICT("evict");

    private final String word;

    GangBelowFloor(String word) {
        this.word = word;
    }

    @Override
    public String word() {
        return word;
    }
}
