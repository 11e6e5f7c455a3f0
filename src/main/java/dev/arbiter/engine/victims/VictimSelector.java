package dev.arbiter.engine.victims;

import dev.arbiter.engine.kept.VictimMemory;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.policy.BreakingGang;
import dev.arbiter.policy.GangBelowFloor;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.policy.VictimKey;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Finds the fewest victims that let one pending task run, on a copy of the cycle's numbers (nothing is changed
 * until the caller commits the plan). The rules decided who may be a victim (the {@code eligible} predicate built
 * from grants and {@code Protected} facts), the order ({@code victims.order} in the settings) and the floors (each victim queue must
 * still exceed its floor before each eviction). This class only searches.
 *
 * <p>The heuristic, per candidate node: take victims in policy order until the task fits — a victim whose gang would
 * drop below minMember brings its whole gang (never leave a broken gang holding GPUs) — then add back, in reverse
 * order, every victim that is not needed. Idle capacity counts first. Across nodes, the plan with the fewest
 * victims wins, then the one whose most important victim has the lowest priority, then the earlier node.
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
     * what it allows ({@link #allowsAnyJob}).
     */
    public record Terms(List<Task> pool, Predicate<Task> eligible, Map<String, Resources> floors, QueueState capQueue,
                 QueueState preemptorQueue, boolean hysteresis, Object key, Job own) {
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
                    List.of(key, q == null ? "" : q.name()), own);
        }
    }

    /**
     * What a search depends on besides the cycle's state: the task's shape and constraints, the terms, and the
     * preemptor's own job when it has running members (they are never its victims).
     */
    private record SearchKey(Resources request, Object constraints, Object terms, Job ownJob) {}

    /**
     * A search that found no plan: the state it was made in, the position in the fitter's log of touched nodes then,
     * and whether the preemptor queue's capability could bind then.
     */
    private record Failure(NodeFitter.Stamp at, int touchMark, boolean capBinds, String why, long podRuleCounts) {}

    private final WorkingCluster state;
    private final NodeFitter fitter;
    private final List<VictimKey> orderKeys;
    private final BreakingGang breakingGang;
    private final GangBelowFloor gangBelowFloor;
    private final VictimWords words;
    /** The last failed search per question, while no plan has been found for it since. */
    private final Map<SearchKey, Failure> failures = new HashMap<>();
    /**
     * Every plan found, by the exact state it was found in: an undone gang returns the cycle to an earlier state,
     * and the next job asking the same question there gets the same plan.
     */
    private final Map<PlanAt, Plan> plans = new HashMap<>();

    private record PlanAt(SearchKey key, long version) {}

    /**
     * A bounded search: its bound, the position in the fitter's log of touched nodes when it began, and the
     * candidates that came within {@code most} victims ({@link #roomWithAll} and {@link #roomWithLargestVictims}
     * let them through; empty when none did). Jobs refused by a nearly spent eviction budget ask the same few
     * questions again and again in a cycle, with the same or a smaller bound: see {@link #withinReach}.
     */
    private record Reach(int most, int touchMark, java.util.BitSet within) {}

    private final Map<SearchKey, Reach> reaches = new HashMap<>();
    /**
     * Set for a search's second pass ({@code victims.gangBelowFloor: evict}): a whole job larger than its queue's
     * floor may take the queue below it.
     */
    private boolean lastResort;
    /** Why the last {@link #find} found no plan, in words; null after a plan. */
    private String lastRefusal;
    /**
     * The victim order of the node search under way ({@link #searching}), and that order without the age keys (victims
     * it ranks equal are alike but for age); built on first use.
     */
    private Comparator<Task> planOrder, victimRank;
    private Search searching;

    public VictimSelector(WorkingCluster state, NodeFitter fitter, PolicySettings.Victims victims) {
        this.state = state;
        this.fitter = fitter;
        this.orderKeys = victims.order();
        this.breakingGang = victims.breakingGang();
        this.gangBelowFloor = victims.gangBelowFloor();
        this.words = new VictimWords(state, fitter);
    }

    /** Why the last {@link #find} that returned null found no plan (one line, no trailing period). */
    public String lastRefusal() {
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
        SearchKey key = new SearchKey(task.request(), fitter.constraintsKey(task.pod), terms.key(),
                task.job.running.isEmpty() ? null : task.job);
        PlanAt at = new PlanAt(key, fitter.stamp().version());
        Plan planned = plans.get(at);
        if (planned != null) return planned;
        // For a task whose fit depends on other pods, a failure holds only while the counts its affinity and spread
        // read are unchanged (placements can satisfy them), and is never confirmed from the touched nodes alone (an
        // eviction on another node of a domain can lift anti-affinity there).
        long counts = fitter.podRuleCounts(task.pod);
        Failure failed = failures.get(key);
        if (failed != null && fitter.stillFails(failed.at()) && failed.podRuleCounts() == counts) {
            lastRefusal = failed.why();
            return null;
        }
        if (failed != null && !fitter.dependsOnPods(task.pod) && failsOnTouchedNodes(task, terms, failed)) {
            failures.put(key, new Failure(fitter.stamp(), fitter.touchMark(), false, failed.why(), counts));
            lastRefusal = failed.why();
            return null;
        }
        boolean bounded = most < Integer.MAX_VALUE && !capBinds(task, terms);
        boolean independent = !fitter.dependsOnPods(task.pod);
        Reach known = bounded && independent ? reaches.get(key) : null;
        java.util.BitSet visit = known == null ? null : withinReach(known, most);
        if (visit != null && visit.isEmpty()) {
            lastRefusal = null;
            return null;
        }
        int mark = fitter.touchMark();
        Tally tally = new Tally();
        Plan best = search(task, terms, tally, bounded ? most : Integer.MAX_VALUE, visit);
        if (best == null && !tally.belowFloor.isEmpty() && gangBelowFloor == GangBelowFloor.EVICT) {
            // No plan leaves every victim queue at its floor, and a job larger than its queue's share could go whole:
            // as a last resort, it may (the lender gets back what was borrowed).
            Tally last = new Tally();
            lastResort = true;
            try {
                best = search(task, terms, last, bounded ? most : Integer.MAX_VALUE, visit);
            } finally {
                lastResort = false;
            }
            last.within.or(tally.within);
            tally = last;
        }
        if (bounded && independent && (known == null || visit == null || most >= known.most())) {
            reaches.put(key, new Reach(most, mark, tally.within));
        }
        if (bounded && (best == null || best.victims().size() > most)) {
            // Not the unbounded answer: nothing to remember but which nodes came within the bound (above).
            lastRefusal = null;
            return best;
        }
        if (best == null) {
            lastRefusal = words.noPlan(task, terms, tally);
            failures.put(key, new Failure(fitter.stamp(), fitter.touchMark(), capBinds(task, terms), lastRefusal, counts));
        } else {
            lastRefusal = null;
            failures.remove(key);
            plans.put(at, best);
        }
        return best;
    }

    /** At most this many touched nodes are added to a remembered {@link Reach}; more, and every candidate is searched. */
    private static final int REACH_RECHECK = 256;

    /**
     * The only candidates that can come within {@code most} victims, from an earlier bounded search of the same
     * question with a bound at least as large: those that came within its bound, and the nodes touched since. Null
     * when every candidate must be looked at. The bound's tests read a node's free room, which victims the terms allow
     * there (fewer as the cycle evicts and queues spend their budgets) and how many members taking each costs (which
     * only an eviction from its gang changes), and a smaller bound only lets fewer through: everything that could
     * let a node through that was turned down touches that node (a placement only takes room). The nodes are then
     * searched in node order as before, so the plan is the one a search of every candidate finds.
     */
    private java.util.BitSet withinReach(Reach known, int most) {
        if (most > known.most()) return null;
        java.util.Set<NodeState> touched = fitter.touchedSince(known.touchMark(), REACH_RECHECK);
        if (touched == null) return null;
        java.util.BitSet visit = (java.util.BitSet) known.within().clone();
        for (NodeState n : touched) visit.set(n.index);
        return visit;
    }

    /** {@link Search#unitFor}'s remembered answer for a gang that cannot go whole. */
    private static final List<Task> NO_UNIT = new ArrayList<>(0);

    /** An ancestor's floor: its deserved share, or its guarantee if larger (fixed for the cycle's eviction steps). */
    private Resources floorOf(QueueState q) {
        return ancestorFloors.computeIfAbsent(q, k -> k.deserved().max(k.effectiveGuarantee));
    }

    private final Map<QueueState, Resources> ancestorFloors = new java.util.IdentityHashMap<>();

    /**
     * {@link Search#floorAllows}: the unit may go; its queue is at its floor; its queue could reclaim it back; the unit
     * is a whole job larger than its queue's floor; the unit would take its queue below its floor.
     */
    static final int FLOOR_OK = 0, FLOOR_REACHED = 1, FLOOR_RETURNS = 2, FLOOR_GANG = 3, FLOOR_BELOW = 4;

    /** {@code "a", "b"} (the words of {@link VictimWords#quoted}, for the eviction phase's reasons). */
    public static String quoted(java.util.Collection<String> names) {
        return VictimWords.quoted(names);
    }

    /** e.g. {@code cpu 4, nvidia.com/gpu 10.7}, in each resource's own units ({@link VictimWords#lacks}). */
    public static String lacks(Resources r) {
        return VictimWords.lacks(r);
    }

    /** At most this many nodes given back room are searched again to confirm a failure; more, and all are. */
    private static final int RECHECK_LIMIT = 32;

    /**
     * Whether a search that failed still fails, judged from the nodes touched since (see {@link NodeFitter}). For
     * preemption (no floors, no hysteresis) while the queue's capability binds neither then nor now, a node's plan
     * depends only on that node and its victims' gangs: elsewhere placements only took room and victims only became
     * fewer. So if no plan fits on the touched nodes, none fits at all.
     */
    private boolean failsOnTouchedNodes(Task task, Terms terms, Failure failed) {
        if (!terms.floors().isEmpty() || terms.hysteresis() || failed.capBinds() || capBinds(task, terms)) return false;
        java.util.Set<NodeState> touched = fitter.touchedSince(failed.touchMark(), RECHECK_LIMIT);
        if (touched == null) return false;
        for (NodeState n : touched) {
            if (!fitter.isEligible(task.pod, n) || !hostsAllowedVictim(n, terms)) continue;
            if (roomWithAllVictims(n, task, terms) && planOn(n, task, terms, List.of(), new Tally()) != null) return false;
        }
        return true;
    }

    /** The capability could refuse the task however much its queue frees (for a search, it binds). */
    private static boolean capBinds(Task task, Terms terms) {
        return !terms.cap().admits(terms.capAllocated(), task.share());
    }

    private static boolean hostsAllowedVictim(NodeState n, Terms terms) {
        for (Task t : n.tasks) if (terms.allows(t)) return true;
        return false;
    }

    /**
     * Candidate nodes, in node order: those hosting an allowed victim, plus (when only the queue's capability is
     * short) the best idle node; only those in {@code visit}, when it is not null ({@link #withinReach}).
     */
    private Plan search(Task task, Terms terms, Tally tally, int most, java.util.BitSet visit) {
        boolean capBlocks = capBinds(task, terms);
        List<Task> queueWide = List.of();
        VictimNodes victimNodes = victimNodes(task, terms);
        java.util.BitSet candidates = victimNodes.among(fitter.eligibleIndexes(task.pod));
        if (capBlocks) {
            queueWide = new ArrayList<>();
            for (Task t : terms.pool()) if (terms.allows(t) && terms.freesCapability(t)) queueWide.add(t);
            NodeState idle = fitter.best(task.pod);
            if (idle != null) candidates.set(idle.index);
        }
        tally.candidates = candidates;
        java.util.BitSet scan = candidates;
        if (visit != null) {
            scan = (java.util.BitSet) candidates.clone();
            scan.and(visit);
        }
        Plan best = null;
        for (int i = scan.nextSetBit(0); i >= 0; i = scan.nextSetBit(i + 1)) {
            NodeState n = state.nodes.get(i);
            boolean room = victimNodes.nodes.get(i) ? victimNodes.roomWithAll(n, task.request())
                    : roomWithAllVictims(n, task, terms);
            if (!room) continue;
            if (most < Integer.MAX_VALUE && !roomWithLargestVictims(n, task, terms, most)) continue;
            tally.within.set(i);
            // A node where no plan has as few victims as the best so far cannot give the best plan: once a plan is
            // found, it bounds the rest of the search (nodes that could tie are still searched).
            if (best != null && best.victims().size() < most
                    && !roomWithLargestVictims(n, task, terms, best.victims().size())) {
                continue;
            }
            Plan p = planOn(n, task, terms, queueWide, tally);
            if (p == null) continue;
            if (best == null || p.victims().size() < best.victims().size()) {
                best = p;
                continue;
            }
            if (p.victims().size() > best.victims().size()) continue;
            if (better(p, best, task, terms)) best = p;
        }
        return best;
    }

    /**
     * Which tasks the terms allow changes only with evictions and their undoing (each touches the victim's node and its
     * gang's nodes, see {@link NodeFitter#touchMark}), when a queue spends its eviction budget (it then offers no
     * victims anywhere: {@link #queueBudgetSpent}) and, for a preemptor's own running members, with the job. So the
     * answer is kept per terms key, for every job that shares it ({@link Terms#allowsAnyJob}), and brought up to date
     * from the nodes touched since it was worked out: a new cycle's first evictions no longer make every later search
     * walk the whole victim pool again. A preemptor with running members of its own takes that answer with the nodes
     * they run on worked out again without them. It only narrows where {@link #planOn} looks.
     */
    private record VictimNodesFor(Object termsKey) {}

    /**
     * {@link VictimNodes} as of a position in the log of touched nodes and a {@link #spentBudgets} count; for a
     * preemptor's own, the shared answer it was made from ({@code from}).
     */
    private record KnownVictimNodes(VictimNodes nodes, int touchMark, int spentBudgets, VictimNodes from) {}

    /** At most this many touched nodes are brought up to date; more, and the victim nodes are worked out afresh. */
    private static final int VICTIM_NODES_UPDATE_LIMIT = 1024;

    private final Map<VictimNodesFor, KnownVictimNodes> victimNodes = new HashMap<>();
    /** How many times a queue has spent its eviction budget this cycle. */
    private int spentBudgets;

    /** A queue has spent its eviction budget for the cycle: the terms allow none of its tasks from now on. */
    public void queueBudgetSpent() {
        spentBudgets++;
    }

    private VictimNodes victimNodes(Task task, Terms terms) {
        VictimNodes shared = sharedVictimNodes(terms);
        Job own = terms.own();
        if (own == null || own.running.isEmpty()) return shared;
        // A gang's members ask one after another: the last job's answer is kept.
        if (ownNodes != null && ownNodes.from() == shared && ownNodesOf == own) return ownNodes.nodes();
        java.util.Set<NodeState> where = new java.util.LinkedHashSet<>();
        for (Task t : own.running) where.add(t.node);
        ownNodes = new KnownVictimNodes(shared.updated(where, terms::allows), -1, spentBudgets, shared);
        ownNodesOf = own;
        return ownNodes.nodes();
    }

    /** The last preemptor's {@link VictimNodes} without its own running members, and its job. */
    private KnownVictimNodes ownNodes;
    private Job ownNodesOf;

    /** {@link VictimNodes} for every job of the terms key. */
    private VictimNodes sharedVictimNodes(Terms terms) {
        VictimNodesFor key = new VictimNodesFor(terms.key());
        KnownVictimNodes known = victimNodes.get(key);
        int mark = fitter.touchMark();
        if (known != null && known.touchMark() == mark && known.spentBudgets() == spentBudgets) return known.nodes();
        java.util.Set<NodeState> touched = known == null || known.spentBudgets() != spentBudgets ? null
                : fitter.touchedSince(known.touchMark(), VICTIM_NODES_UPDATE_LIMIT);
        VictimNodes computed = touched != null ? known.nodes().updated(touched, terms::allowsAnyJob)
                : known == null && spentBudgets == 0 ? recalled(terms) : null;
        if (computed == null) computed = allVictimNodes(terms);
        if (known == null && victimNodes.size() >= 64) victimNodes.clear();
        victimNodes.put(key, new KnownVictimNodes(computed, mark, spentBudgets, null));
        // While no queue has spent its budget: exact as the cycle began except on the nodes it touched, for the next.
        if (protections != null && spentBudgets == 0
                && (made.size() < VictimMemory.MAX_ENTRIES || made.containsKey(terms.key()))) {
            made.put(terms.key(), computed);
        }
        return computed;
    }

    // ---- Across cycles (issue 17): see VictimMemory ---------------------------------------------------------------

    /** What the last cycle of the kept working copy left, and the nodes that may have changed since (null: none). */
    private VictimMemory carried;
    private java.util.BitSet stale;
    /** The protections of this cycle's running tasks, as {@link VictimMemory} compares them. */
    private java.util.IdentityHashMap<Task, Byte> protections;
    /** This cycle's victim nodes per terms key, for the next. */
    private final Map<Object, VictimNodes> made = new HashMap<>();
    /** The nodes touched this cycle, as of {@link #touchedUpTo} in the fitter's log. */
    private final java.util.BitSet touchedThisCycle = new java.util.BitSet();
    private int touchedUpTo;
    /** How many searches' victim nodes came from the last cycle's (for tests and benchmarks). */
    private int recalls;

    /**
     * Takes up what the last cycle of a kept working copy left ({@code memory}, or null), as the cycle begins with the
     * rules' protections set on its running tasks ({@code protectedRunning}).
     */
    public void recall(VictimMemory memory, List<Task> protectedRunning) {
        protections = VictimMemory.protections(protectedRunning);
        carried = memory;
        stale = memory == null ? null : memory.stale(state, protections);
    }

    /** What this cycle leaves the next one; call once its searches are over. */
    public VictimMemory remember() {
        return VictimMemory.next(state, protections, made, touchedThisCycle(), carried, stale);
    }

    public int recalls() {
        return recalls;
    }

    private java.util.BitSet touchedThisCycle() {
        touchedUpTo = fitter.touchedInto(touchedUpTo, touchedThisCycle);
        return touchedThisCycle;
    }

    /**
     * The last cycle's victim nodes for the terms, brought up to date from the nodes that may have changed since, or
     * null when there are none or when working them out afresh costs less (more nodes to look at again than hold a
     * victim).
     */
    private VictimNodes recalled(Terms terms) {
        if (stale == null) return null;
        VictimMemory.Entry e = carried.entry(terms.key());
        if (e == null) return null;
        java.util.BitSet again = (java.util.BitSet) e.dirty().clone();
        again.or(stale);
        again.or(touchedThisCycle());
        if (again.cardinality() > e.nodes().nodes.cardinality()) return null;
        recalls++;
        return e.nodes().updated(again, state.nodes, terms::allowsAnyJob);
    }

    /** The nodes hosting a task the terms allow any of their jobs, from the whole pool. */
    private VictimNodes allVictimNodes(Terms terms) {
        java.util.BitSet nodes = new java.util.BitSet(state.nodes.size());
        for (Task t : terms.pool()) if (!nodes.get(t.node.index) && terms.allowsAnyJob(t)) nodes.set(t.node.index);
        Resources[][] allowedSum = VictimNodes.chunks(state.nodes.size());
        java.util.BitSet own = new java.util.BitSet();
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            VictimNodes.setAllowedSum(allowedSum, own, i, VictimNodes.allowedOn(state.nodes.get(i), terms::allowsAnyJob));
        }
        return new VictimNodes(nodes, allowedSum);
    }

    /**
     * Whether plan {@code p} beats {@code best}, which has as many victims: the plan whose most precious victim comes
     * earlier in the policy's order leaving out age ({@code newest first}, {@code oldest first}) wins, so that across
     * nodes, too, leaders and higher priorities go last; then the plan that frees less beyond what the task needs
     * (gang-mates on other nodes count: they are freed too); then the full order, age included; then the earlier node.
     */
    private boolean better(Plan p, Plan best, Task task, Terms terms) {
        if (p.victims().isEmpty()) return p.node().index < best.node().index;
        Comparator<Task> rank = planOrder(p.node(), terms, false);
        int c = rank.compare(mostPrecious(p, rank), mostPrecious(best, rank));
        if (c != 0) return c < 0;
        c = Double.compare(freedCost(p.victims(), task), freedCost(best.victims(), task));
        if (c != 0) return c < 0;
        Comparator<Task> order = planOrder(p.node(), terms, true);
        c = order.compare(mostPrecious(p, order), mostPrecious(best, order));
        return c < 0 || (c == 0 && p.node().index < best.node().index);
    }

    /**
     * How much the victims free, in multiples of what the task asks: the sum, over the resources the task asks for, of
     * what they hold of it divided by what the task asks of it. Plans that make room free at least the ask in what the
     * node lacked, so the smaller sum frees less beyond need.
     */
    static double freedCost(List<Task> victims, Task task) {
        Resources want = task.share();
        double cost = 0;
        for (Task v : victims) {
            Resources r = v.share();
            for (int i = 0; i < want.size(); i++) {
                if (want.milliAt(i) > 0) cost += (double) r.milliInterned(want.name(i)) / want.milliAt(i);
            }
        }
        return cost;
    }

    /**
     * The order plans of equal size are compared in ({@link #better}), with or without the age keys: it depends on the
     * terms alone (no victim taken, no node preferred), so the searches of one job share it.
     */
    private Comparator<Task> planOrder(NodeState node, Terms terms, boolean withAge) {
        if (terms != comparedUnder) {
            Search s = new Search(node, null, terms);
            planComparison = victimComparator(() -> s, () -> null, true);
            planRank = victimComparator(() -> s, () -> null, false);
            comparedUnder = terms;
        }
        return withAge ? planComparison : planRank;
    }

    /** The orders {@link #planOrder} gives, and the terms they were made for. */
    private Comparator<Task> planComparison, planRank;
    private Terms comparedUnder;

    /** The last of the plan's victims in {@code order} (the first of equals), or null for a plan without victims. */
    private static Task mostPrecious(Plan p, Comparator<Task> order) {
        Task most = null;
        for (Task t : p.victims()) if (most == null || order.compare(t, most) > 0) most = t;
        return most;
    }

    /**
     * Whether the node could hold the task with at most {@code most} victims gone: in every dimension the task lacks
     * there, the {@code most} largest allowed victims on it would cover it. A bound, not a plan: a plan's victims on
     * its node never free more, so where this is false no plan has that few victims.
     */
    private boolean roomWithLargestVictims(NodeState node, Task task, Terms terms, int most) {
        if (most <= 0) return task.request().fitsIn(node.free());
        Resources request = task.request();
        Resources free = node.free();
        // The node's victims that could go within the bound, found once for every dimension the task lacks there.
        List<Task> usable = null;
        long[] largest = null;
        for (int i = 0; i < request.size(); i++) {
            String dim = request.name(i);
            long missing = request.milliAt(i) - free.milliInterned(dim);
            if (missing <= 0) continue;
            if (usable == null) {
                usable = new ArrayList<>();
                for (Task t : node.tasks) if (terms.allows(t) && leastUnit(t) <= most) usable.add(t);
                // Each gives at most one amount: slots beyond them would only ever hold zeros.
                largest = new long[Math.min(most, usable.size())];
            }
            java.util.Arrays.fill(largest, 0);
            for (Task t : usable) {
                long amount = t.request().milliInterned(dim);
                // keep the most largest amounts, smallest first
                if (amount <= largest[0]) continue;
                int k = 0;
                while (k + 1 < largest.length && largest[k + 1] < amount) {
                    largest[k] = largest[k + 1];
                    k++;
                }
                largest[k] = amount;
            }
            long cover = 0;
            for (long a : largest) cover = Resources.addSaturated(cover, a);
            if (cover < missing) return false;
        }
        return true;
    }

    /**
     * The fewest victims taking {@code t} costs, before any other member of its job is taken: one, or (as
     * {@link Search#unitFor} decides) its whole gang when it would break it; {@link Integer#MAX_VALUE} when it cannot
     * go at all.
     */
    private int leastUnit(Task t) {
        int live = t.job.liveMembers();
        if (live - 1 >= t.job.minMember) return 1;
        if (breakingGang == BreakingGang.SPARE) return Integer.MAX_VALUE;
        if (live <= 1) return 1;
        return t.job.bound > 0 ? Integer.MAX_VALUE : live;
    }

    /**
     * Whether the node would hold the task were every allowed victim on it gone: a plan on the node needs at least
     * that (victims elsewhere free only queue room), so nodes without it are not searched.
     */
    private static boolean roomWithAllVictims(NodeState node, Task task, Terms terms) {
        Resources request = task.request();
        Resources free = node.free();
        for (int i = 0; i < request.size(); i++) {
            String dim = request.name(i);
            long missing = request.milliAt(i) - free.milliInterned(dim);
            if (missing <= 0) continue;
            for (Task t : node.tasks) {
                if (missing <= 0) break;
                if (terms.allows(t)) missing -= t.request().milliInterned(dim);
            }
            if (missing > 0) return false;
        }
        return true;
    }

    private Plan planOn(NodeState node, Task task, Terms terms, List<Task> queueWide, Tally tally) {
        List<Task> pool = new ArrayList<>(node.tasks.size() + queueWide.size());
        for (Task t : node.tasks) if (terms.allows(t)) pool.add(t);
        for (Task t : queueWide) if (t.node != node) pool.add(t);
        Search s = new Search(node, task, terms);
        s.floorReached = tally.floorReached;
        s.floorPaths = tally.floorPaths;
        if (s.fits()) return new Plan(node, List.of());
        if (planOrder == null) {
            planOrder = victimComparator(() -> searching, () -> searching.node, true);
            victimRank = victimComparator(() -> searching, () -> searching.node, false);
        }
        searching = s;
        Comparator<Task> order = planOrder;
        while (!pool.isEmpty()) {
            int at = 0;
            for (int i = 1; i < pool.size(); i++) if (order.compare(pool.get(i), pool.get(at)) < 0) at = i;
            Task next = pool.remove(at);
            List<Task> unit = s.unitFor(next);
            if (unit == null) {
                tally.unbreakable.add(next.job.id);
                continue;
            }
            int floor = s.floorAllows(next.job.queue, unit);
            if (floor != FLOOR_OK) {
                switch (floor) {
                    case FLOOR_GANG -> tally.belowFloor.add(next.job.id);
                    case FLOOR_BELOW -> tally.wouldGoBelow.add(next.job.queue);
                    case FLOOR_REACHED -> tally.atFloor.add(next.job.queue);
                    default -> tally.wouldReturn.add(next.job.queue);
                }
                continue;
            }
            if (s.fitsAdding(unit)) {
                // The unit completes the plan: a victim the order ranks alike but for age that also completes it with
                // fewer pods, or as many that free less, goes instead (a 16-GPU pod is not taken for an 8-GPU one
                // because it is newer).
                s.take(leanestLike(s, next, unit, pool));
                return new Plan(node, s.trimmed());
            }
            s.take(unit);
            if (unit.size() > 1) pool.removeAll(unit);
        }
        return null;
    }

    /**
     * Among the candidates the order ranks equal to {@code next} but for age, the unit that completes the plan with
     * the fewest pods and then frees least ({@link #freedCost}); {@code unit} (next's) when none beats it.
     */
    private List<Task> leanestLike(Search s, Task next, List<Task> unit, List<Task> pool) {
        List<Task> best = unit;
        double bestCost = freedCost(unit, s.task);
        for (Task t : pool) {
            if (victimRank.compare(t, next) != 0 || unit.contains(t)) continue;
            List<Task> other = s.unitFor(t);
            if (other == null || other.size() > best.size()) continue;
            double cost = freedCost(other, s.task);
            if (other.size() == best.size() && cost >= bestCost) continue;
            if (s.floorAllows(t.job.queue, other) != FLOOR_OK || !s.fitsAdding(other)) continue;
            best = other;
            bestCost = cost;
        }
        return best;
    }

    /**
     * The policy's victim order, victims on {@code node} first; {@code search} and {@code node} are read at each
     * comparison, so one comparator serves every node's search.
     */
    private Comparator<Task> victimComparator(Supplier<Search> search, Supplier<NodeState> node, boolean withAge) {
        Comparator<Task> c = Comparator.comparing(t -> t.node == node.get() ? 0 : 1);
        for (VictimKey key : orderKeys) {
            if (!withAge && (key == VictimKey.NEWEST_FIRST || key == VictimKey.OLDEST_FIRST)) continue;
            Comparator<Task> k = switch (key) {
                case SURPLUS_FIRST -> Comparator.comparing(t -> search.get().isSurplus(t) ? 0 : 1);
                case CLOSEST_QUEUE_FIRST -> Comparator.comparingInt(t -> distanceFromPreemptor(search.get(), t));
                case QUEUE_SERVED_LAST_FIRST -> Comparator.<Task>comparingInt(t -> queuePriority(t))
                        .thenComparing(Comparator.<Task>comparingDouble(t -> queueShare(t)).reversed());
                case PRIORITY_ASC -> Comparator.comparingInt(t -> t.priority);
                case PRIORITY_DESC -> Comparator.<Task>comparingInt(t -> t.priority).reversed();
                case LEADER_LAST -> Comparator.comparing(t -> t.leader() ? 1 : 0);
                case NEWEST_FIRST -> Comparator.<Task>comparingLong(t -> t.creationOrder).reversed();
                case OLDEST_FIRST -> Comparator.comparingLong(t -> t.creationOrder);
            };
            c = c.thenComparing(k);
        }
        return withAge ? c.thenComparing(Task::id) : c;
    }

    private int distanceFromPreemptor(Search s, Task t) {
        QueueState from = s.terms == null ? null : s.terms.preemptorQueue();
        QueueState to = t.job.queueState;
        return from == null || to == null || from == to ? 0 : from.distanceTo(to);
    }

    private int queuePriority(Task t) {
        QueueState q = t.job.queueState;
        return q == null ? 0 : q.spec.priority();
    }

    private double queueShare(Task t) {
        QueueState q = t.job.queueState;
        return q == null ? 0 : q.share();
    }

    /**
     * The running numbers of one node's search: the units chosen so far, and what they free on the node (kept up to
     * date as units are taken), in the preemptor's queue and in the queues they come from (computed when asked).
     */
    private final class Search {
        private final NodeState node;
        private final Task task;
        private final Terms terms;
        private final List<List<Task>> units = new ArrayList<>();
        /** The search's {@link Tally#floorReached} and {@link Tally#floorPaths}. */
        private Map<QueueState, Boolean> floorReached;
        private Map<QueueState, List<QueueState>> floorPaths;
        /** The tasks chosen so far (few: a search takes victims until one task fits). */
        private final List<Task> takenTasks = new ArrayList<>();
        /** How many members of each job the search has chosen; null until it takes one. */
        private Map<Job, Integer> takenPerJob;
        /** Per queue asked about, what the chosen units take from its subtree allocation (until the next take). */
        private final Map<QueueState, Resources> freedFrom = new HashMap<>();
        private Resources freeOnNode;
        /**
         * The preemptor queue's capability admits the task even with nothing freed in the queue, so it admits it with
         * any victims gone: only room on the node matters.
         */
        private final boolean capFree;

        Search(NodeState node, Task task, Terms terms) {
            this.node = node;
            this.task = task;
            this.terms = terms;
            this.freeOnNode = node.free();
            this.capFree = task == null || !capBinds(task, terms);
        }

        /** How many of the job's members this search has chosen. */
        private int takenFrom(Job j) {
            return takenPerJob == null ? 0 : takenPerJob.getOrDefault(j, 0);
        }

        boolean isSurplus(Task t) {
            return t.job.liveMembers() - takenFrom(t.job) > t.job.minMember;
        }

        /** The task alone, or its whole remaining gang if taking it would break the gang; null if that is not allowed. */
        List<Task> unitFor(Task t) {
            int remaining = t.job.liveMembers() - takenFrom(t.job);
            if (remaining - 1 >= t.job.minMember) return List.of(t);
            // The member would break its gang: as the policy says, it is spared, or the whole gang goes.
            if (breakingGang == BreakingGang.SPARE) return null;
            if (remaining <= 1) return List.of(t);
            // Members bound this cycle cannot be evicted, so a gang that would break cannot go whole either.
            if (t.job.bound > 0) return null;
            if (gangUnits == null) gangUnits = new java.util.IdentityHashMap<>();
            List<Task> known = gangUnits.get(t.job);
            if (known != null) return known == NO_UNIT ? null : known;
            List<Task> gang = new ArrayList<>();
            for (Task m : t.job.running) {
                if (m.evicted || takenTasks.contains(m)) continue;
                if (!terms.allows(m)) {
                    gang = null;
                    break;
                }
                gang.add(m);
            }
            gangUnits.put(t.job, gang == null ? NO_UNIT : gang);
            return gang;
        }

        /**
         * Until the next {@link #take}, each gang's whole unit ({@link #NO_UNIT}: it cannot go whole) and what
         * {@link #floorAllows} said of it, by job: every member of the gang met on the node asks the same.
         */
        private Map<Job, List<Task>> gangUnits;
        private Map<Job, Integer> gangFloors;

        /**
         * Reclaim's floors, checked before taking {@code unit} from {@code queue}: that queue, and each ancestor the
         * preemptor's queue does not share, must still hold more than its floor (its deserved share, or guarantee if
         * larger) in a dimension that the unit frees and the preemptor's task needs (Volcano's reclaimable check).
         * With hysteresis, the victim queue must not end up so low that what the unit's job would need to start
         * again fits under its deserved share: the unit would reclaim its way straight back. (A unit of surplus
         * members leaves its job started, so it cannot come back that way; and while the floor is at least the
         * deserved share, a unit that passes the floor check cannot either — hysteresis matters for policies whose
         * floor is lower.)
         */
        int floorAllows(String queue, List<Task> unit) {
            Resources floor = terms.floors().get(queue);
            if (floor == null) return FLOOR_OK;
            QueueState victimQueue = unit.get(0).job.queueState; // the queue named queue
            List<QueueState> path = floorPaths.get(victimQueue);
            if (path == null) {
                path = victimQueue.pathUpTo(QueueState.commonAncestor(victimQueue, terms.preemptorQueue()));
                floorPaths.put(victimQueue, path);
            }
            // A queue already at its floor in every dimension the task needs turns down every unit of this search
            // (what it holds only falls as units are taken): asked once per search, not once per unit.
            Boolean atFloor = floorReached.get(victimQueue);
            if (atFloor == null) {
                atFloor = atFloorInAll(victimQueue, floor, path);
                if (units.isEmpty()) floorReached.put(victimQueue, atFloor);
            }
            if (atFloor) return FLOOR_REACHED;
            if (unit.size() == 1) return unitFloor(victimQueue, floor, path, unit);
            if (gangFloors == null) gangFloors = new java.util.IdentityHashMap<>();
            Integer known = gangFloors.get(unit.get(0).job);
            if (known == null) gangFloors.put(unit.get(0).job, known = unitFloor(victimQueue, floor, path, unit));
            return known;
        }

        private int unitFloor(QueueState victimQueue, Resources floor, List<QueueState> path, List<Task> unit) {
            Resources freed = unit.get(0).share();
            if (unit.size() > 1) {
                Resources.Sum sum = new Resources.Sum();
                for (Task t : unit) sum.add(t.share());
                freed = sum.toResources();
            }
            // The unit must free a dimension the task needs in which its queue (and each ancestor on the path) holds
            // more than its floor, and leave each of them at least at its floor in every dimension the task needs that
            // it held at or above its floor: after the whole plan, not only before this unit.
            if (withinFloors(victimQueue, floor, path, freed)) return FLOOR_REACHED;
            if (takesBelowFloor(victimQueue, floor, path, freed)) {
                // A whole job larger than its queue's floor can never run within its share: it runs on what its
                // queue borrowed. It is spared, or (victims.gangBelowFloor: evict) taken when no plan keeps every
                // victim queue at its floor.
                if (!wholeJob(unit) || !largerThan(freed, floor)) return FLOOR_BELOW;
                if (!lastResort) return FLOOR_GANG;
            }
            if (terms.hysteresis()) {
                Resources back = comesBack(unit);
                if (back != null) {
                    // What the victim queue holds once the unit is gone, plus what the unit's job needs to come back,
                    // still within its deserved share: it would reclaim its way straight back.
                    Resources now = allocatedNow(victimQueue);
                    Resources deserved = victimQueue.deserved();
                    boolean within = true;
                    for (int i = 0; i < back.size() && within; i++) {
                        if (back.milliAt(i) <= 0) continue;
                        String d = back.name(i);
                        long after = Resources.subtractSaturated(now.milliInterned(d), freed.milliInterned(d));
                        if (Resources.addSaturated(after, back.milliAt(i)) > deserved.milliInterned(d)) within = false;
                    }
                    if (within) return FLOOR_RETURNS;
                }
            }
            return FLOOR_OK;
        }

        /** Whether the unit is every live member of its job that the search has not taken. */
        private boolean wholeJob(List<Task> unit) {
            Job j = unit.get(0).job;
            return unit.size() == j.liveMembers() - takenFrom(j);
        }

        /** Whether {@code freed} holds more than {@code floor} in a dimension the task needs. */
        private boolean largerThan(Resources freed, Resources floor) {
            Resources want = task.share();
            for (int i = 0; i < freed.size(); i++) {
                String d = freed.name(i);
                if (want.milliInterned(d) != 0 && freed.milliAt(i) > floor.milliInterned(d)) return true;
            }
            return false;
        }

        /**
         * Whether taking {@code freed} (on top of what the search has chosen) would leave the victim queue, or an
         * ancestor on its path, below its floor in a dimension the task needs that the floor protects there: one the
         * queue holds more than its floor of, or exactly its floor of while it asks for more (its share of it is what
         * competition left it). A dimension it holds less than its floor of is not protected further; nor is one in
         * which it holds all it asks for (its deserved share there is its request: CPUs nobody lacks, say), or no
         * queue running at its request could ever give anything. A protected dimension stays protected through every
         * plan of the cycle: it never falls below the floor.
         */
        private boolean takesBelowFloor(QueueState victimQueue, Resources floor, List<QueueState> path, Resources freed) {
            Resources want = task.share();
            for (QueueState q : path) {
                Resources qFloor = q == victimQueue ? floor : floorOf(q);
                Resources now = allocatedNow(q);
                for (int i = 0; i < freed.size(); i++) {
                    String d = freed.name(i);
                    long take = freed.milliAt(i);
                    if (take <= 0 || want.milliInterned(d) == 0) continue;
                    long held = now.milliInterned(d), least = qFloor.milliInterned(d);
                    boolean protectedHere = held > least || (held == least && q.request.milliInterned(d) > held);
                    if (protectedHere && Resources.subtractSaturated(held, take) < least) return true;
                }
            }
            return false;
        }

        /**
         * Whether the victim queue, or an ancestor on its path, holds no more than its floor in any dimension the task
         * needs: then every unit from it is refused (the floor is checked in a subset of those dimensions).
         */
        private boolean atFloorInAll(QueueState victimQueue, Resources floor, List<QueueState> path) {
            return withinFloors(victimQueue, floor, path, task.share());
        }

        /**
         * Whether the victim queue, or an ancestor on its path, holds no more than its floor in every dimension that
         * {@code dims} frees (is positive in) and the task needs.
         */
        private boolean withinFloors(QueueState victimQueue, Resources floor, List<QueueState> path, Resources dims) {
            Resources want = task.share();
            for (QueueState q : path) {
                Resources qFloor = q == victimQueue ? floor : floorOf(q);
                Resources now = allocatedNow(q);
                boolean within = true;
                for (int i = 0; i < dims.size() && within; i++) {
                    String d = dims.name(i);
                    if (dims.milliAt(i) > 0 && want.milliInterned(d) != 0 && now.milliInterned(d) > qFloor.milliInterned(d)) within = false;
                }
                if (within) return true;
            }
            return false;
        }

        /**
         * What the unit's job would need to start again once the unit is gone, or null if it stays started (the unit
         * is surplus): the shares of its first {@code minMember} members in the unit — the whole gang comes back
         * pending and starts all-or-nothing.
         */
        private Resources comesBack(List<Task> unit) {
            Job j = unit.get(0).job;
            if (j.liveMembers() - takenFrom(j) - unit.size() >= Math.max(1, j.minMember)) return null;
            int n = Math.min(unit.size(), Math.max(1, j.minMember));
            if (n == 1) return unit.get(0).share();
            Resources.Sum sum = new Resources.Sum();
            for (int i = 0; i < n; i++) sum.add(unit.get(i).share());
            return sum.toResources();
        }

        /** The queue's subtree allocation less what this search has already chosen from it. */
        private Resources allocatedNow(QueueState q) {
            if (units.isEmpty()) return q.allocated;
            Resources freed = freedFrom.get(q);
            if (freed == null) {
                freed = Resources.NONE;
                for (Task t : takenTasks) {
                    for (QueueState a = t.job.queueState; a != null; a = a.parent) {
                        if (a == q) {
                            freed = freed.add(t.share());
                            break;
                        }
                    }
                }
                freedFrom.put(q, freed);
            }
            return q.allocated.subtract(freed);
        }

        void take(List<Task> unit) {
            units.add(unit);
            freedFrom.clear();
            if (gangUnits != null) gangUnits.clear();
            if (gangFloors != null) gangFloors.clear();
            for (Task t : unit) {
                takenTasks.add(t);
                if (takenPerJob == null) takenPerJob = new java.util.IdentityHashMap<>(4);
                takenPerJob.merge(t.job, 1, Integer::sum);
                if (t.node == node) freeOnNode = freeOnNode.add(t.request());
            }
        }

        /**
         * The task fits on the node, and under its queue's capability — or, when the queue is already past its
         * capability, its victims in the queue free at least what it takes: preemption swaps work inside a queue, it
         * does not evict a queue's surplus wholesale. With the victims gone, the node also passes the task's host
         * ports, spread, pod affinity and anti-affinity, and existing pods' anti-affinity (an eviction may lift a
         * conflict, or take away the pod an affinity needs).
         */
        boolean fits() {
            if (!task.request().fitsIn(freeOnNode)) return false;
            return (capFree || fitsWith(units)) && fitter.passesPodRules(task.pod, node, takenTasks);
        }

        private boolean fits(Resources freeOnNode, Resources queueAllocated, Resources queueFreed) {
            return task.request().fitsIn(freeOnNode) && (capFree
                    || terms.cap().admits(queueAllocated, task.share())
                    || task.share().fitsIn(queueFreed));
        }

        /** {@link #fits()} were {@code unit} taken as well (nothing is taken). */
        boolean fitsAdding(List<Task> unit) {
            Resources free = freeOnNode;
            for (Task t : unit) if (t.node == node) free = free.add(t.request());
            if (!task.request().fitsIn(free)) return false;
            if (!capFree) {
                List<List<Task>> chosen = new ArrayList<>(units);
                chosen.add(unit);
                if (!fitsWith(chosen)) return false;
            }
            List<Task> gone = new ArrayList<>(takenTasks);
            gone.addAll(unit);
            return fitter.passesPodRules(task.pod, node, gone);
        }

        /** {@link #fits()} had only {@code chosen} been taken. */
        private boolean fitsWith(List<List<Task>> chosen) {
            Resources free = node.free();
            Resources allocated = terms.capAllocated();
            Resources freed = Resources.NONE;
            for (List<Task> u : chosen) {
                for (Task t : u) {
                    if (t.node == node) free = free.add(t.request());
                    if (!capFree && terms.freesCapability(t)) {
                        allocated = allocated.subtract(t.share());
                        freed = freed.add(t.share());
                    }
                }
            }
            return fits(free, allocated, freed);
        }

        /** Drops, newest choice first (after the last), every unit the fit does not need and whose gangs stay whole. */
        List<Task> trimmed() {
            if (units.size() == 1) return new ArrayList<>(units.get(0));
            List<List<Task>> kept = new ArrayList<>(units);
            Map<Job, Integer> count = new HashMap<>();
            for (List<Task> u : kept) for (Task t : u) count.merge(t.job, 1, Integer::sum);
            Resources freeKept = freeOnNode;
            for (int i = kept.size() - 2; i >= 0; i--) {
                List<Task> unit = kept.get(i);
                Resources freeWithout = freeKept;
                for (Task t : unit) if (t.node == node) freeWithout = freeWithout.subtract(t.request());
                List<List<Task>> without = new ArrayList<>(kept);
                without.remove(i);
                boolean fitsWithout = (capFree ? task.request().fitsIn(freeWithout) : fitsWith(without))
                        && fitter.passesPodRules(task.pod, node, tasksOf(without));
                if (fitsWithout && gangsWholeWithout(unit, count)) {
                    kept = without;
                    freeKept = freeWithout;
                    for (Task t : unit) count.merge(t.job, -1, Integer::sum);
                }
            }
            Set<Task> out = new LinkedHashSet<>();
            kept.forEach(out::addAll);
            return new ArrayList<>(out);
        }

        private List<Task> tasksOf(List<List<Task>> chosen) {
            List<Task> out = new ArrayList<>();
            for (List<Task> u : chosen) out.addAll(u);
            return out;
        }

        /**
         * Whether the gangs of {@code unit} stay whole (all their members running, or at least minMember) if it is
         * given back. Every unit leaves its gangs whole, so only the gangs of the unit given back need a look.
         */
        private boolean gangsWholeWithout(List<Task> unit, Map<Job, Integer> count) {
            if (unit.size() == 1) return wholeWith(unit.get(0).job, count.get(unit.get(0).job) - 1);
            Map<Job, Integer> inUnit = new HashMap<>();
            for (Task t : unit) inUnit.merge(t.job, 1, Integer::sum);
            for (Map.Entry<Job, Integer> e : inUnit.entrySet()) {
                if (!wholeWith(e.getKey(), count.get(e.getKey()) - e.getValue())) return false;
            }
            return true;
        }

        /** The job's gang stays whole with {@code taken} of its members gone (none taken: nothing to check). */
        private static boolean wholeWith(Job j, int taken) {
            if (taken == 0) return true;
            int left = j.liveMembers() - taken;
            return left <= 0 || left >= j.minMember;
        }
    }
}
