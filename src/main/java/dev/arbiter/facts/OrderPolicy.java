package dev.arbiter.facts;

/**
 * The sort keys for one scope ({@code queue}, {@code job} or {@code task}), most significant first, e.g. {@code ["priority desc", "share asc"]}. The Java loops know these keys: queue: priority, share, name; job: priority, creation, name; task: priority, leader, creation, name.
 * {@code rule} is the name of the rule that inserted it.
 */
public record OrderPolicy(String scope, java.util.List<String> keys, String rule) {
    public OrderPolicy {
        keys = java.util.List.copyOf(keys);
    }
}
