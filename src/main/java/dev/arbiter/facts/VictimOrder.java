package dev.arbiter.facts;

/**
 * The order in which victims are removed, most significant key first. Known keys: {@code surplus first} (members above their job's minMember), {@code queue served last first} (for reclaim: lower queue priority, then higher share), {@code priority asc}, {@code leader last}, {@code newest first}.
 * {@code rule} is the name of the rule that inserted it.
 */
public record VictimOrder(java.util.List<String> keys, String rule) {
    public VictimOrder {
        keys = java.util.List.copyOf(keys);
    }
}
