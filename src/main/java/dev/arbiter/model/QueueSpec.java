package dev.arbiter.model;

/**
 * A Volcano Queue. {@code capability} null means unlimited; {@code guarantee} is empty when unset;
 * {@code state} is Open unless the manifest says Closed/Closing; {@code parent} is null for a top-level queue.
 */
public record QueueSpec(String name, int weight, int priority, Resources capability, Resources guarantee,
                        boolean reclaimable, String state, String parent, int arrivalCycle) {
    public static final String DEFAULT = "default";

    public static QueueSpec defaultQueue() {
        return new QueueSpec(DEFAULT, 1, 0, null, Resources.NONE, true, "Open", null, 0);
    }
}
