package dev.arbiter.policy;

/**
 * Which topology domain a constrained gang goes to among those where it fits (the policy's {@code topology.choice}).
 */
public enum DomainChoice implements Words.Worded {
    /**
     * The fullest domain where the whole gang fits (least free of the gang's scarcest resource), the lower tier on a
     * tie: leaves whole domains free for the next large gang (Volcano's HyperNode binpack, Kueue's BestFit).
     */
    BEST_FIT("best fit"),
    /** The lowest tier that holds the gang, and within it the fullest domain (Volcano's tier-by-tier search). */
    LOWEST_TIER_FIRST("lowest tier first"),
    /** The emptiest domain where the gang fits: spreads gangs over domains, leaving room to grow in each. */
    SPREAD("spread");

    private final String word;

    DomainChoice(String word) {
        this.word = word;
    }

    @Override
    public String word() {
        return word;
    }
}
