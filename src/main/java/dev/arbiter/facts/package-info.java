/**
 * The fact vocabulary the rules in {@code rules/} see. Two kinds:
 * <ul>
 *   <li><b>Cluster facts</b> ({@link QueueFact}, {@link JobFact}, {@link TaskFact}, {@link PriorityClassFact},
 *       {@link ClusterFact}) are built by Java from the immutable snapshot; classification rules may fill in their
 *       derived fields (priority, deserved share, overused).</li>
 *   <li><b>Policy facts</b> ({@link AdmissionBudget}, {@link AdmissionDenied}, {@link GangRequirement},
 *       {@link OrderPolicy}, {@link PreemptGrant}, {@link ReclaimGrant}, {@link Protected}, {@link VictimOrder},
 *       {@link AllocationLimit}) are inserted by rules and obeyed by the Java mechanism. Each names the rule that
 *       made it, so every decision can say which sentence of policy caused it.</li>
 * </ul>
 * Facts never reference nodes: no rule joins pods with nodes; node fitting is Java.
 */
package dev.arbiter.facts;
