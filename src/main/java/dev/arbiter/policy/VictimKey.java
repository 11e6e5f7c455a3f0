package dev.arbiter.policy;

/** The order victims are taken in. */
public enum VictimKey implements Words.Worded {
    SURPLUS_FIRST("surplus first"), CLOSEST_QUEUE_FIRST("closest queue first"),
    QUEUE_SERVED_LAST_FIRST("queue served last first"), PRIORITY_ASC("priority asc"),
    PRIORITY_DESC("priority desc"), LEADER_LAST("leader last"), NEWEST_FIRST("newest first"),
    OLDEST_FIRST("oldest first");

    private final String word;

    VictimKey(String word) {
        this.word = word;
    }

    @Override
    public String word() {
        return word;
    }
}
