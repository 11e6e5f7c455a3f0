package dev.arbiter.facts;

/**
 * Churn control, as tunable policy rather than literals in rules:
 * <ul>
 *   <li>{@code minRuntimeSeconds}: a pod that has run for less is not a victim of reclaim (and, when
 *       {@code minRuntimeAgainstPreemption}, not of preemption either);</li>
 *   <li>{@code maxEvictionsPerCycle} / {@code maxEvictionsPerQueuePerCycle}: eviction budgets, cluster-wide and per
 *       victim queue (0 = unlimited); a gang whose victims would overspend a budget waits for a later cycle;</li>
 *   <li>{@code hysteresis}: reclaim never evicts work whose queue would then qualify to reclaim it straight back
 *       (no ping-pong between queues).</li>
 * </ul>
 * {@code rule} inserted it. Without a ChurnSettings fact there is no churn control.
 */
public record ChurnSettings(long minRuntimeSeconds, boolean minRuntimeAgainstPreemption, int maxEvictionsPerCycle,
                            int maxEvictionsPerQueuePerCycle, boolean hysteresis, String rule) {}
