package dev.arbiter.model;

/**
 * What a job asks of the network between its pods. {@code hard}: the whole gang inside one domain, else it waits;
 * soft: one domain preferred, spreading allowed. The domain is bounded either by {@code highestTier} (Volcano's
 * {@code spec.networkTopology.highestTierAllowed}: any domain of that tier or lower) or by {@code level} (a node label
 * key, as Kueue's {@code podset-required-topology} and {@code podset-preferred-topology} name one: any one value of
 * that label). Exactly one of the two is set: {@code level} null means {@code highestTier} applies.
 */
public record NetworkTopology(boolean hard, int highestTier, String level) {
    /** Volcano's default for {@code highestTierAllowed} when a PodGroup states a mode without one. */
    public static final int DEFAULT_HIGHEST_TIER = 1;

    public static final String KUEUE_REQUIRED = "kueue.x-k8s.io/podset-required-topology";
    public static final String KUEUE_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology";

    /** Volcano's form: a mode and the highest tier allowed. */
    public static NetworkTopology tiers(boolean hard, int highestTier) {
        return new NetworkTopology(hard, highestTier, null);
    }

    /** Kueue's form: a node label level. */
    public static NetworkTopology level(boolean hard, String labelKey) {
        return new NetworkTopology(hard, 0, labelKey);
    }

    /** The pod's Kueue topology annotation as a constraint (required wins over preferred), or null without one. */
    public static NetworkTopology fromKueue(java.util.Map<String, String> annotations) {
        String required = annotations.get(KUEUE_REQUIRED);
        if (required != null && !required.isBlank()) return level(true, required.trim());
        String preferred = annotations.get(KUEUE_PREFERRED);
        if (preferred != null && !preferred.isBlank()) return level(false, preferred.trim());
        return null;
    }

    /** e.g. {@code hard, tier <= 2} or {@code soft, one rack}. */
    @Override
    public String toString() {
        return (hard ? "hard" : "soft") + ", " + (level != null ? "one " + level : "tier <= " + highestTier);
    }
}
