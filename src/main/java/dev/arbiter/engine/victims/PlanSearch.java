package dev.arbiter.engine.victims;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.victims.VictimSelector.Plan;
import dev.arbiter.engine.victims.VictimSelector.Terms;

import dev.arbiter.policy.BreakingGang;
import dev.arbiter.policy.GangBelowFloor;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.policy.VictimKey;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

import static dev.arbiter.engine.victims.OneNodePlan.FLOOR_BELOW;
import static dev.arbiter.engine.victims.OneNodePlan.FLOOR_GANG;
import static dev.arbiter.engine.victims.OneNodePlan.FLOOR_OK;
import static dev.arbiter.engine.victims.OneNodePlan.FLOOR_REACHED;

/**
 * The victim search: the fewest victims that let one pending task run, worked out on the cycle's numbers without
 * changing them (victims are only counted as gone; the caller commits a plan or drops it). It returns data, a
 * {@link Plan} or none and a {@link Tally} of what turned candidates down, which {@link NoPlanRefusal} turns into a
 * refusal. The rules decided who may be a victim ({@link Terms#eligible}, built from grants and {@code Protected}
 * facts), the settings the victim order ({@code victims.order}) and what happens to gangs
 * ({@code victims.breakingGang}, {@code victims.gangBelowFloor}); this class only searches.
 *
 * <p>The heuristic, step by step:
 * <ol>
 * <li><b>Candidate nodes.</b> The nodes that pass the task's static predicates and host a victim the terms allow (not
 *     evicted, not of the preemptor's own job, eligible). When the capability of {@link Terms#capQueue} binds (it
 *     would refuse the task however much room a node had), victims in its subtree, on any node, free room under it:
 *     they join every node's candidates, and the best idle node becomes a candidate node too. Candidate nodes are searched in
 *     node order.</li>
 * <li><b>Bounds.</b> A node is not searched when it could not hold the task even with every allowed victim on it
 *     gone; under a bound of {@code most} victims (the cycle's eviction budget nearly spent), when its {@code most}
 *     largest allowed victims could not cover what the node lacks in some resource (a victim that would bring its
 *     gang counts only when the gang is small enough); and, once a plan with fewer than {@code most} victims is
 *     found, when as many largest victims as that plan has could not: no plan there could be smaller (nodes that
 *     could tie are still searched).</li>
 * <li><b>One node's plan</b> ({@link #planOn}). Idle room counts first: if the task already fits (room, the
 *     capability, its pod rules), the plan has no victims. Otherwise the candidates are taken one unit at a time in
 *     policy order: victims on the node first, then as the keys of {@code victims.order} rank them (surplus members,
 *     closest queue, queue served last, priority, leader last, age: those the settings name, in their order), then by
 *     pod id. A unit is the victim alone while its gang keeps {@code minMember} without it (or when it is the last
 *     member left). A victim that would break its gang is spared ({@code breakingGang: spare}) or brings every
 *     remaining member of its gang with it; a gang with a member bound this cycle, or one that may not be a victim,
 *     cannot go whole, and the victim is spared. A unit reclaim's floors turn down (step 4) is skipped. The unit that
 *     completes the fit is swapped for one the order ranks alike but for age that completes it with fewer pods, or
 *     as many that free less (a 16-GPU pod is not taken for an 8-GPU one because it is newer). Then every earlier
 *     unit is given back, newest first, if the task still fits without it and the gangs it took from stay whole (all
 *     gone, or at least {@code minMember} left). When the candidates run out before the task fits, the node has no
 *     plan.</li>
 * <li><b>Floors</b> (reclaim; preemption has none). Before a unit is taken, its queue and each ancestor the
 *     preemptor's queue does not share must hold more than its floor (its deserved share, or its guarantee if
 *     larger) in some resource the unit frees and the task needs, and must not fall below its floor in a resource
 *     the floor protects, counting every unit the plan has taken so far. A unit that would take a queue below its
 *     floor is spared. When it is a whole job larger than its queue's floor (it can never run within its share), and
 *     {@code gangBelowFloor} is {@code evict}, a second, last-resort search, run only when the first found no plan,
 *     lets it go. With hysteresis, a unit whose job could come straight back within its queue's deserved share is
 *     spared too.</li>
 * <li><b>The better plan.</b> Across nodes, fewer victims win. Between plans with as many: the one whose most
 *     precious victim is least precious by the victim order without its age keys (so leaders and higher priorities
 *     go last across nodes too), then the one that frees less beyond what the task asks ({@link #freedCost},
 *     gang-mates on other nodes included), then the full order, age included, then the earlier node.</li>
 * </ol>
 *
 * <p>What the {@link SearchMemory} and the {@link VictimNodesCache} remember only spares work: the plan is the one a
 * search of every node finds.
 */
final class PlanSearch {
    /** What a search found: the best plan, or null, and what turned candidates down. */
    record Found(Plan plan, Tally tally) {}

    private final WorkingCluster state;
    final NodeFitter fitter;
    /** The floors of ancestor queues, for {@link OneNodePlan#floorAllows}. */
    final SearchMemory memory;
    private final VictimNodesCache victimNodesCache;
    private final List<VictimKey> orderKeys;
    final BreakingGang breakingGang;
    private final GangBelowFloor gangBelowFloor;
    /**
     * Set for a search's second pass ({@code victims.gangBelowFloor: evict}): a whole job larger than its queue's
     * floor may take the queue below it.
     */
    boolean lastResort;
    /**
     * The victim order of the node search under way ({@link #searching}), and that order without the age keys (victims
     * it ranks equal are alike but for age); built on first use.
     */
    private Comparator<Task> planOrder, victimRank;
    private OneNodePlan searching;

    PlanSearch(WorkingCluster state, NodeFitter fitter, PolicySettings.Victims victims, SearchMemory memory,
               VictimNodesCache victimNodesCache) {
        this.state = state;
        this.fitter = fitter;
        this.memory = memory;
        this.victimNodesCache = victimNodesCache;
        this.orderKeys = victims.order();
        this.breakingGang = victims.breakingGang();
        this.gangBelowFloor = victims.gangBelowFloor();
    }

    /**
     * The best plan for {@code task} with at most {@code most} victims looked for ({@link Integer#MAX_VALUE}: no
     * bound), on the candidate nodes in {@code visit} only when it is not null ({@link SearchMemory#withinReach}).
     */
    Found run(Task task, Terms terms, int most, java.util.BitSet visit) {
        Tally tally = new Tally();
        Plan best = search(task, terms, tally, most, visit);
        if (best == null && !tally.belowFloor.isEmpty() && gangBelowFloor == GangBelowFloor.EVICT) {
            // No plan leaves every victim queue at its floor, and a job larger than its queue's share could go whole:
            // as a last resort, it may (the lender gets back what was borrowed).
            Tally last = new Tally();
            lastResort = true;
            try {
                best = search(task, terms, last, most, visit);
            } finally {
                lastResort = false;
            }
            last.within.or(tally.within);
            tally = last;
        }
        return new Found(best, tally);
    }

    /**
     * Candidate nodes, in node order: those hosting an allowed victim, plus (when only the queue's capability is
     * short) the best idle node; only those in {@code visit}, when it is not null ({@link SearchMemory#withinReach}).
     */
    private Plan search(Task task, Terms terms, Tally tally, int most, java.util.BitSet visit) {
        boolean capBlocks = capBinds(task, terms);
        List<Task> queueWide = List.of();
        VictimNodes victimNodes = victimNodesCache.victimNodes(task, terms);
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
     * One node's plan (step 3 above), or null when the node has none: its allowed victims and, when the capability
     * binds, the {@code queueWide} victims elsewhere are the candidates; what turned them down goes to {@code tally}.
     */
    Plan planOn(NodeState node, Task task, Terms terms, List<Task> queueWide, Tally tally) {
        List<Task> pool = new ArrayList<>(node.tasks.size() + queueWide.size());
        for (Task t : node.tasks) if (terms.allows(t)) pool.add(t);
        for (Task t : queueWide) if (t.node != node) pool.add(t);
        OneNodePlan s = new OneNodePlan(this, node, task, terms);
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
    private List<Task> leanestLike(OneNodePlan s, Task next, List<Task> unit, List<Task> pool) {
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
            OneNodePlan s = new OneNodePlan(this, node, null, terms);
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
     * {@link OneNodePlan#unitFor} decides) its whole gang when it would break it; {@link Integer#MAX_VALUE} when it cannot
     * go at all.
     */
    private int leastUnit(Task t) {
        int live = t.job.liveMembers();
        if (live - 1 >= t.job.victimFloor()) return 1;
        if (breakingGang == BreakingGang.SPARE) return Integer.MAX_VALUE;
        if (live <= 1) return 1;
        return t.job.bound > 0 ? Integer.MAX_VALUE : live;
    }

    /**
     * Whether the node would hold the task were every allowed victim on it gone: a plan on the node needs at least
     * that (victims elsewhere free only queue room), so nodes without it are not searched.
     */
    static boolean roomWithAllVictims(NodeState node, Task task, Terms terms) {
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

    /** The capability could refuse the task however much its queue frees (for a search, it binds). */
    static boolean capBinds(Task task, Terms terms) {
        return !terms.cap().admits(terms.capAllocated(), task.share());
    }

    static boolean hostsAllowedVictim(NodeState n, Terms terms) {
        for (Task t : n.tasks) if (terms.allows(t)) return true;
        return false;
    }

    /**
     * The policy's victim order, victims on {@code node} first; {@code search} and {@code node} are read at each
     * comparison, so one comparator serves every node's search.
     */
    private Comparator<Task> victimComparator(Supplier<OneNodePlan> search, Supplier<NodeState> node, boolean withAge) {
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

    private int distanceFromPreemptor(OneNodePlan s, Task t) {
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
}
