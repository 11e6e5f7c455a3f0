/**
 * The fact vocabulary of the rules in {@code rules/}: the one typed boundary between the rules and the Java engine.
 * Every fact here is immutable: rules derive new facts from others, they never change one.
 *
 * <p>Dependencies point one way: this package uses only {@code model} (resources, caps) and {@code policy} (the typed
 * policy words), and knows nothing of {@code engine}. The engine builds the input facts and reads back the policy
 * facts; the rules import this package and nothing of the engine.
 *
 * <ul>
 *   <li><b>Input facts</b>, built by the engine from the cluster snapshot and inserted before the rules fire:
 *       {@link PriorityClassFact} and {@link PriorityLookup} (one per priority class name in use) for the
 *       {@code classify} phase; {@link ClusterFact}, {@link Clock}, {@link QueueFact}, {@link JobFact} and
 *       {@link TaskFact} (running pods) from {@code fair-share} on; and {@link QueueShare}, each queue's fair share
 *       as the Java fair-share step computed it, for the {@code policy} phase.</li>
 *   <li><b>Policy facts</b>, inserted by rules, each naming the rule that inserted it so that every decision can say
 *       which sentence of policy caused it:
 *       <ul>
 *         <li>{@code classify}: {@link PriorityOf}, {@link PriorityFromPods};</li>
 *         <li>{@code fair-share}: {@link ShareTerms} or {@link DeservedShare}, and {@link LendingLimit}, from which
 *             Java computes the {@link QueueShare}s;</li>
 *         <li>{@code policy}: {@link AdmissionBudget}, {@link AdmissionDenied}, {@link AdmissionGrant},
 *             {@link AllocationLimit}, {@link GangPolicy}, {@link GangRequirement}, {@link DequeuePolicy},
 *             {@link PreemptGrant}, {@link ReclaimGrant}, {@link Protected} and {@link NoPreemption}, which the Java
 *             mechanism obeys; and {@link LowestRunningPriority} and {@link ReclaimAtOnce}, steps of the rules' own
 *             reasoning that the engine does not read.</li>
 *       </ul></li>
 * </ul>
 * Facts never reference nodes: no rule joins pods with nodes; node fitting is Java.
 */
package dev.arbiter.facts;
