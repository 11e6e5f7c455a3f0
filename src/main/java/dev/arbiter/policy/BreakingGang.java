package dev.arbiter.policy;

/** What a victim whose eviction would drop its gang below minMember means for the search. */
public enum BreakingGang implements Words.Worded {
    /** The whole remaining gang is the victim (never leave a broken gang holding GPUs). */
    EVICT_WHOLE_GANG("evict whole gang"),
    /** Such a member is not a victim at all (Volcano's gang plugin). */
    SPARE("spare");

    private final String word;

    BreakingGang(String word) {
        this.word = word;
    }

    @Override
    public String word() {
        return word;
    }
}
