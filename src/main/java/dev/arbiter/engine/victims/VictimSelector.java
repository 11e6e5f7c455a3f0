package dev.arbiter.engine.victims;

import dev.arbiter.decision.Refusal;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.policy.PolicySettings;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Finds the fewest victims that let one pending task run, on a copy of the cycle's numbers (nothing is changed
 * until the caller commits the plan). The rules decided who may be a victim (the {@code eligible} predicate built
 * from grants and {@code Protected} facts), the order ({@code victims.order} in the settings) and the floors (each
 * victim queue must still exceed its floor before each eviction). This class asks: it consults what earlier
 * searches found, runs the search when they do not answer, remembers its answer and words a failure.
 *
 * <p>It is the package's face. The search itself, its heuristic explained step by step, is {@link PlanSearch} (one
 * node's running numbers in {@link OneNodePlan}); what is remembered between searches is {@link SearchMemory}
 * (failures, plans, bounds, floors) and {@link VictimNodesCache} (where the victims are, within and across cycles);
 * why a search found no plan is gathered by {@link NoPlanRefusal}, from the {@link Tally} the search returns.
 */
public final class VictimSelector {
    /** The victims that let {@code task} run on {@code node}. */
    public record Plan(NodeState node, List<Task> victims) {}

    /**
     * Terms of one search: the candidate victims ({@code pool}, already limited to what the grant allows; evicted
     * ones are skipped), the test a task met on a node must pass to be a victim ({@code eligible}: the same test
     * that built the pool), the floors per victim queue (reclaim; empty for preemption), the queue whose capability
     * the victims must make room under ({@code capQueue}: the preemptor's own queue for preemption, or for reclaim a
     * capped ancestor it shares with victim queues; null when no capability binds) — victims inside its subtree free
     * room under it —, the preemptor's queue (victims are taken from the closest queues in the tree first), whether
     * hysteresis applies (no victim whose queue would then qualify to reclaim it straight back), a {@code key}
     * identifying terms that always give the same answer for the same task shape, so a failed search is not repeated
     * until capacity changes, and the preemptor's own job ({@code own}: its running members are never its victims;
     * null when no job is left out). {@code eligible} does not test {@code own}, so that every job of a key shares
     * what it allows ({@link #allowsAnyJob}). {@code overDeserved} names the victim queues whose grant judges victims
     * by {@link dev.arbiter.policy.VictimTest#OVER_DESERVED} instead of their floor.
     */
    public record Terms(List<Task> pool, Predicate<Task> eligible, Map<String, Resources> floors, QueueState capQueue,
                 QueueState preemptorQueue, boolean hysteresis, Object key, Job own, OverDeserved overDeserved) {
        /** Terms whose victims are judged against their queues' floors. */
        public Terms(List<Task> pool, Predicate<Task> eligible, Map<String, Resources> floors, QueueState capQueue,
              QueueState preemptorQueue, boolean hysteresis, Object key, Job own) {
            this(pool, eligible, floors, capQueue, preemptorQueue, hysteresis, key, own, OverDeserved.NONE);
        }

        /** Terms whose victims may come from any job ({@code own} null). */
        public Terms(List<Task> pool, Predicate<Task> eligible, Map<String, Resources> floors, QueueState capQueue,
              QueueState preemptorQueue, boolean hysteresis, Object key) {
            this(pool, eligible, floors, capQueue, preemptorQueue, hysteresis, key, null);
        }

        boolean allows(Task t) {
            return !t.evicted && t.job != own && eligible.test(t);
        }

        /** {@link #allows}, for a search whose preemptor is not {@code own}: what every job of the terms key shares. */
        boolean allowsAnyJob(Task t) {
            return !t.evicted && eligible.test(t);
        }

        /** The bound the victims must make room under. */
        Caps cap() {
            return capQueue == null ? Caps.UNLIMITED : capQueue.hardCap();
        }

        /** What the capability queue's subtree holds now. */
        Resources capAllocated() {
            return capQueue == null ? Resources.NONE : capQueue.allocated;
        }

        /** Whether the victim {@code t} frees room under the binding capability. */
        boolean freesCapability(Task t) {
            QueueState vq = capQueue == null ? null : t.job.queueState;
            return vq != null && vq.isWithin(capQueue);
        }

        /** These terms with {@code q}'s capability binding instead: another question, so another key. */
        public Terms bindingCapabilityOf(QueueState q) {
            if (q == capQueue) return this;
            return new Terms(pool, eligible, floors, q, preemptorQueue, hysteresis,
                    List.of(key, q == null ? "" : q.name()), own, overDeserved);
        }
    }

    private final NodeFitter fitter;
    private final SearchMemory memory;
    private final VictimNodesCache victimNodes;
    private final PlanSearch search;
    private final NoPlanRefusal noPlan;
    /** Why the last {@link #find} found no plan; null after a plan. */
    private Refusal.NoPlan lastRefusal;

    public VictimSelector(WorkingCluster state, NodeFitter fitter, PolicySettings.Victims victims) {
        this.fitter = fitter;
        this.memory = new SearchMemory(fitter);
        this.victimNodes = new VictimNodesCache(state, fitter);
        this.search = new PlanSearch(state, fitter, victims, memory, victimNodes);
        this.noPlan = new NoPlanRefusal(state, fitter);
    }

    /** Why the last {@link #find} that returned null found no plan. */
    public Refusal.NoPlan lastRefusal() {
        return lastRefusal;
    }

    /**
     * The victims that let {@code task} run, or null. Answers are remembered: a failure holds until capacity is given
     * back, a plan for the state it was found in (jobs refused by the eviction budget ask the same question again).
     */
    public Plan find(Task task, Terms terms) {
        return find(task, terms, Integer.MAX_VALUE);
    }

    /**
     * {@link #find(Task, Terms)} when a plan of more than {@code most} victims would be refused anyway (the cycle's
     * eviction budget is nearly spent): only nodes where that few victims could make room are searched. The answer is
     * the same plan whenever the best plan has at most {@code most} victims (fewer victims always win, and the
     * skipped nodes have no such plan); otherwise it is null or a plan with more than {@code most}, and
     * {@link #lastRefusal()} is null when the bound alone turned every node down.
     */
    public Plan find(Task task, Terms terms, int most) {
        SearchMemory.SearchKey key = memory.keyOf(task, terms);
        long version = fitter.stamp().version();
        Plan planned = memory.planIn(key, version);
        if (planned != null) return planned;
        // For a task whose fit depends on other pods, a failure holds only while the counts its affinity and spread
        // read are unchanged (placements can satisfy them), and is never confirmed from the touched nodes alone (an
        // eviction on another node of a domain can lift anti-affinity there).
        long counts = fitter.podRuleCounts(task.pod);
        SearchMemory.Failure failed = memory.failure(key);
        if (failed != null && fitter.stillFails(failed.at()) && failed.podRuleCounts() == counts) {
            lastRefusal = failed.why();
            return null;
        }
        if (failed != null && !fitter.dependsOnPods(task.pod)
                && memory.failsOnTouchedNodes(task, terms, failed, search)) {
            memory.failedAgain(key, failed, counts);
            lastRefusal = failed.why();
            return null;
        }
        boolean bounded = most < Integer.MAX_VALUE && !PlanSearch.capBinds(task, terms);
        boolean independent = !fitter.dependsOnPods(task.pod);
        SearchMemory.Reach known = bounded && independent ? memory.reach(key) : null;
        java.util.BitSet visit = known == null ? null : memory.withinReach(known, most);
        if (visit != null && visit.isEmpty()) {
            lastRefusal = null;
            return null;
        }
        int mark = fitter.touchMark();
        PlanSearch.Found found = search.run(task, terms, bounded ? most : Integer.MAX_VALUE, visit);
        Plan best = found.plan();
        if (bounded && independent && (known == null || visit == null || most >= known.most())) {
            memory.reached(key, new SearchMemory.Reach(most, mark, found.tally().within));
        }
        if (bounded && (best == null || best.victims().size() > most)) {
            // Not the unbounded answer: nothing to remember but which nodes came within the bound (above).
            lastRefusal = null;
            return best;
        }
        if (best == null) {
            lastRefusal = noPlan.of(task, terms, found.tally());
            memory.failed(key, PlanSearch.capBinds(task, terms), lastRefusal, counts);
        } else {
            lastRefusal = null;
            memory.planned(key, version, best);
        }
        return best;
    }

    /** A queue has spent its eviction budget for the cycle: the terms allow none of its tasks from now on. */
    public void queueBudgetSpent() {
        victimNodes.queueBudgetSpent();
    }

    /**
     * Takes up what the last cycle of a kept working copy left ({@code memory}, or null), as the cycle begins with the
     * rules' protections set on its running tasks ({@code protectedRunning}).
     */
    public void recall(VictimMemory memory, List<Task> protectedRunning) {
        victimNodes.recall(memory, protectedRunning);
    }

    /** What this cycle leaves the next one; call once its searches are over. */
    public VictimMemory remember() {
        return victimNodes.remember();
    }

    /** How many searches' victim nodes came from the last cycle's (for tests and benchmarks). */
    public int recalls() {
        return victimNodes.recalls();
    }
}
