package dev.arbiter.policy;

/**
 * Which running tasks of a victim queue a reclaim grant lets go, as its rule states it.
 *
 * <ul>
 *   <li>{@link #ABOVE_FLOOR} (the shipped policy, after Volcano's {@code proportion} plugin): the victim queue must
 *   hold more than its floor ({@code max(deserved, guarantee)}) in a resource the victim frees and the reclaiming
 *   task needs, and keep at least its floor there after the whole plan.</li>
 *   <li>{@link #OVER_DESERVED} (Volcano's {@code capacity} plugin): a victim sharing a resource with the reclaiming
 *   task goes while its queue holds more than its deserved share in some resource the victim asks for and the
 *   deserved share names, or at once when the victim asks for none the deserved share names; and only while the
 *   queue keeps its whole guarantee. There is no floor: the queue may end below its deserved share.</li>
 * </ul>
 */
public enum VictimTest {
    ABOVE_FLOOR, OVER_DESERVED
}
