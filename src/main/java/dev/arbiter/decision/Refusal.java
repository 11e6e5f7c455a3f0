package dev.arbiter.decision;

import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;

/**
 * Why a job does not start, as data: what was short and by how much, where, which budget was spent, which domain came
 * closest, which rule's words forbade it. The cycle's steps return these; {@link ReasonWords} is the one place that
 * turns them into the words pod conditions, events, {@code explain} and the report show. The rule behind a refusal is
 * named beside it ({@link PodGroupStatus#rule()}), not inside it.
 *
 * <p>A refusal is a value: two equal refusals read the same. Composite ones ({@link Because}, {@link Also},
 * {@link Attempted}) hold others, so a test can ask what a reason is made of rather than compare its text.
 */
public sealed interface Refusal {

    /** Whether this refusal is {@code part} or holds it (in a {@link Because}, {@link Also} or {@link Attempted}). */
    default boolean holds(Refusal part) {
        if (equals(part)) return true;
        if (this instanceof Also a) return a.first().holds(part) || a.then().holds(part);
        if (this instanceof Attempted a) return a.why().holds(part);
        if (this instanceof Because b) return b.what().holds(part) || b.cause().holds(part);
        return false;
    }

    // ---- composition -------------------------------------------------------------------------------------------

    /** {@code what}, and what caused it: {@code gang of 4 needs 4 tasks, 2 placeable: 0/3 nodes are available: ...}. */
    record Because(Refusal what, Refusal cause) implements Refusal {}

    /** Two refusals one after the other: the allocation step's, then an eviction step's. */
    record Also(Refusal first, Refusal then) implements Refusal {}

    /** An action (preempt, reclaim, both) was tried for the job and refused: {@code preempt: ...}. */
    record Attempted(String action, Refusal why) implements Refusal {}

    // ---- a rule's own words --------------------------------------------------------------------------------------

    /** A rule said why, in its own words (an {@code AdmissionDenied}'s reason). */
    record RuleSaid(String words) implements Refusal {}

    /** A rule said the job may never take victims ({@code NoPreemption}), in its own words. */
    record Never(String words) implements Refusal {}

    // ---- admission -----------------------------------------------------------------------------------------------

    /** No admission rule grants the queue (or an ancestor) a budget. */
    record NoAdmissionBudget(String queue) implements Refusal {}

    /** The job's minimum resources do not fit the admission room of the queue (or an ancestor): short by {@code shortOf}. */
    record AdmissionExhausted(String queue, Resources shortOf) implements Refusal {}

    /** In a fifo queue the head job could not go on, and this one is behind it. */
    record BehindHead(String queue, String head) implements Refusal {}

    // ---- allocation ------------------------------------------------------------------------------------------------

    /** The queue is not open: it allocates nothing. */
    record QueueNotOpen(String queue) implements Refusal {}

    /** The queue's allocation already covers its deserved share. */
    record Overused(String queue, Resources allocated, Resources deserved) implements Refusal {}

    /** No rule states the job's gang requirement (its PodGroup is unknown to the rules). */
    record NoGangRule() implements Refusal {}

    /** The gang is short of members: {@code minMember} asked, {@code placeable} could run. */
    record GangShort(int minMember, int placeable) implements Refusal {}

    /** A role of the gang is short of members ({@code minTaskMember}). */
    record RoleShort(String role, int needs, int placeable) implements Refusal {}

    /** The queue's (or an ancestor's) capability leaves no room for a task: short by {@code shortOf}. */
    record CapabilityReached(String queue, Resources shortOf) implements Refusal {}

    /**
     * The free room left is what lending queues keep for themselves ({@code lenders}, by name): the task would take its
     * queue past its deserved share into it, short by {@code shortOf}.
     */
    record KeptByLenders(String queue, List<String> lenders, Resources shortOf) implements Refusal {}

    /**
     * No node holds the pod: of {@code nodes}, how many failed each filter, in kube-scheduler's words for the filter
     * (each node counted under the first it fails).
     */
    record NoNodeFits(int nodes, Map<String, Integer> failedFilters) implements Refusal {}

    /** The pod may not be placed at all: its scheduling gates, or needs Arbiter does not evaluate. */
    record Blocked(String pod, Block block, List<String> what) implements Refusal {}

    /** What keeps a {@link Blocked} pod from every node. */
    enum Block { SCHEDULING_GATES, NOT_EVALUATED }

    // ---- network domains -------------------------------------------------------------------------------------------

    /** One domain's free and allocatable amount of the gang's scarcest resource {@code dim}, and what it needs. */
    record DomainRoom(String domain, String dim, long freeMilli, long allocatableMilli, long needMilli) {}

    /** A hard gang fits in no allowed domain: the first it tried had room on paper ({@code room}), {@code but} ... */
    record NoDomainTried(NetworkTopology want, DomainRoom room, Refusal but) implements Refusal {}

    /** A hard gang fits in no allowed domain; the closest is {@code closest}. */
    record NoDomainClose(NetworkTopology want, DomainRoom closest) implements Refusal {}

    /** A hard gang has no allowed domain at all, for want of {@code missing}. */
    record NoDomainAllowed(NetworkTopology want, Missing missing) implements Refusal {}

    /**
     * Why no domain is allowed: no node has the level's label, the cluster has none, none has a tier low enough, or the
     * running members span several.
     */
    enum Missing { LABEL, ANY_DOMAIN, TIER, ONE_DOMAIN }

    // ---- reservation ---------------------------------------------------------------------------------------------

    /**
     * The job, its queue's head, has {@code nodes} reserved for it from {@code start} (seconds on the snapshot's clock;
     * see {@link Reservation}); worded before why it has not started yet ({@link Because}).
     */
    record Reserving(List<String> nodes, long start) implements Refusal {}

    /**
     * Nodes reserved for {@code job} from {@code start} are kept from this job: backfill is off, it has no runtime
     * estimate ({@code estimate} -1), or its estimate (seconds) ends after {@code start}.
     */
    record KeptOffReserved(String job, long start, long estimate, boolean backfill) implements Refusal {}

    // ---- eviction budgets ------------------------------------------------------------------------------------------

    /** The cycle's eviction budget ({@code perCycle} pods) is spent. */
    record BudgetSpent(int perCycle) implements Refusal {}

    /** The queue's eviction budget ({@code perQueue} pods) is spent. */
    record QueueBudgetSpent(int perQueue, String queue) implements Refusal {}

    /**
     * With the victims the budget still allows ({@code more}), no node makes room for the job's pending task
     * {@code task}: {@code already} evicted this cycle, {@code forJob} chosen for this job.
     */
    record BudgetExceeded(int perCycle, int already, int forJob, String task, int more) implements Refusal {}

    /** The victims a plan needs ({@code needed} so far) would pass the cycle's budget ({@code already} spent). */
    record BudgetWouldPass(int perCycle, int already, int needed) implements Refusal {}

    /** The victims a plan needs would pass the queue's budget. */
    record QueueBudgetWouldPass(int perQueue, String queue) implements Refusal {}

    // ---- preempt ---------------------------------------------------------------------------------------------------

    /** Nothing runs in the preemptor's queue. */
    record NothingRuns(String queue) implements Refusal {}

    /**
     * No job of lower priority runs in the queue, nor one of the preemptor's priority that would still hold at least the
     * preemptor's dominant resource share without one of its pods (Volcano's {@code drf} preemptable rule).
     */
    record NoShareGap(String queue) implements Refusal {}

    /** No work of lower priority (or, {@code lowerPriorityOnly} false, no other work) runs in the queue. */
    record NoLowerWork(String queue, boolean lowerPriorityOnly, int priority) implements Refusal {}

    /**
     * Every candidate is protected: {@code whose} pods, by each rule ({@code by}); {@code firstEndsIn}: seconds until
     * the first protection that ends by itself ends, or -1.
     */
    record AllProtected(Whose whose, List<ProtectedBy> by, long firstEndsIn) implements Refusal {}

    /** Whose pods an {@link AllProtected} speaks of. */
    sealed interface Whose {}

    /** The pods of the preemptor's queue (lower-priority ones, or all others). */
    record QueuePods(String queue, boolean lowerPriorityOnly) implements Whose {}

    /** The pods of the queues above their deserved share. */
    record AboveDeservedPods(List<String> queues) implements Whose {}

    /** {@code count} pods protected by {@code rule} (or by the Eviction API), one of them for {@code example}. */
    record ProtectedBy(String rule, boolean evictionApi, int count, String example) {}

    /** The API server refused to evict pods the job could have taken: the first two in its words, how many more. */
    record VictimsRefused(List<String> refusals, int more) implements Refusal {}

    // ---- reclaim ---------------------------------------------------------------------------------------------------

    /** The queue already holds the deserved share it may reclaim up to. */
    record HoldsDeserved(String queue, Resources deserved) implements Refusal {}

    /** No other queue holds more than its deserved share. */
    record NoQueueAbove() implements Refusal {}

    /** The queues above their deserved share are not reclaimable. */
    record NotReclaimable(List<String> queues) implements Refusal {}

    /** No rule grants the queue reclaim from the queues above their share. */
    record NoReclaimGrant(String queue, List<String> above) implements Refusal {}

    /** The gang needs more to start than its queue deserves, in the dimensions shown (empty: none). */
    record TooLarge(String queue, Resources needs, Resources deserves, Resources holds) implements Refusal {}

    /** The victim queues have given back down to their floors this cycle. */
    record DownToFloors(List<String> queues) implements Refusal {}

    /** The queues above their deserved share run no pod of this scheduler. */
    record NoVictimPods() implements Refusal {}

    /** The task would take its queue past the deserved share it may reclaim up to. */
    record WouldPassDeserved(String queue, Resources deserved) implements Refusal {}

    /** No one domain of the gang's hard network topology makes room for all of it with the victims allowed. */
    record NoSingleDomain(NetworkTopology want) implements Refusal {}

    // ---- the victim search -----------------------------------------------------------------------------------------

    /**
     * No set of victims makes room for {@code task}: the queues hysteresis spared, those at their floor, those no
     * victim leaves at it, the jobs too large for their queues' floors, how many gangs could not go whole, and
     * {@code closest}: the node that came closest, or why no node could.
     */
    record NoPlan(String task, List<String> wouldReturn, List<String> atFloor, List<String> wouldGoBelow,
                  List<String> belowFloor, int unbreakable, Refusal closest) implements Refusal {}

    /** No node suits the pod at all, and why. */
    record NoNodeSuits(Refusal why) implements Refusal {}

    /** No pod the search may evict runs on a node that suits the pod. */
    record NoVictimOnSuitableNode() implements Refusal {}

    /** The node would hold the pod with every allowed victim gone (other limits refused). */
    record RoomWithVictimsGone(String node) implements Refusal {}

    /** The closest node lacks {@code lacks} with every allowed victim gone. */
    record ClosestNode(String node, Resources lacks) implements Refusal {}

    // ---- a job that started with victims, and its victims ----------------------------------------------------------

    /** The job waits for {@code pods} evicted pods to leave (0: another job's victims). */
    record WaitingForEvicted(int pods, String action) implements Refusal {}

    /** The job waits for pods already terminating to leave {@code nodes} nodes. */
    record WaitingForTerminating(int nodes) implements Refusal {}

    /** The job's pods were evicted by {@code action} for {@code job}. */
    record EvictedFor(String action, String job) implements Refusal {}

    // ---- status ----------------------------------------------------------------------------------------------------

    /** The job is not running and has no pending pods. */
    record NoPendingPods() implements Refusal {}

    /** The job has pending pods no step has yet refused. */
    record NotYetScheduled() implements Refusal {}
}
