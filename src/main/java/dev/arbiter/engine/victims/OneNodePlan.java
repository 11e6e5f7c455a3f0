package dev.arbiter.engine.victims;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.VictimSelector.Terms;

import dev.arbiter.policy.BreakingGang;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The running numbers of one node's search ({@link PlanSearch#planOn}): the units chosen so far, and what they free on
 * the node (kept up to date as units are taken), in the preemptor's queue and in the queues they come from (computed
 * when asked). It decides what one victim costs ({@link #unitFor}: the victim alone, or its whole gang), whether
 * reclaim's floors let a unit go ({@link #floorAllows}), whether the task fits with the units gone ({@link #fits},
 * {@link #fitsAdding}), and which units the fit does not need ({@link #trimmed}). Nothing is evicted: the units are
 * only counted as gone.
 */
final class OneNodePlan {
    /** {@link #unitFor}'s remembered answer for a gang that cannot go whole. */
    private static final List<Task> NO_UNIT = new ArrayList<>(0);

    /**
     * {@link #floorAllows}: the unit may go; its queue is at its floor; its queue could reclaim it back; the unit
     * is a whole job larger than its queue's floor; the unit would take its queue below its floor.
     */
    static final int FLOOR_OK = 0, FLOOR_REACHED = 1, FLOOR_RETURNS = 2, FLOOR_GANG = 3, FLOOR_BELOW = 4;

    private final PlanSearch owner;
    final NodeState node;
    final Task task;
    final Terms terms;
    private final List<List<Task>> units = new ArrayList<>();
    /** The search's {@link Tally#floorReached} and {@link Tally#floorPaths}. */
    Map<QueueState, Boolean> floorReached;
    Map<QueueState, List<QueueState>> floorPaths;
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

    OneNodePlan(PlanSearch owner, NodeState node, Task task, Terms terms) {
        this.owner = owner;
        this.node = node;
        this.task = task;
        this.terms = terms;
        this.freeOnNode = node.free();
        this.capFree = task == null || !PlanSearch.capBinds(task, terms);
    }

    /** How many of the job's members this search has chosen. */
    private int takenFrom(Job j) {
        return takenPerJob == null ? 0 : takenPerJob.getOrDefault(j, 0);
    }

    boolean isSurplus(Task t) {
        return t.job.liveMembers() - takenFrom(t.job) > t.job.victimFloor();
    }

    /** The task alone, or its whole remaining gang if taking it would break the gang; null if that is not allowed. */
    List<Task> unitFor(Task t) {
        int remaining = t.job.liveMembers() - takenFrom(t.job);
        if (remaining - 1 >= t.job.victimFloor()) return List.of(t);
        // The member would break its gang: as the policy says, it is spared, or the whole gang goes.
        if (owner.breakingGang == BreakingGang.SPARE) return null;
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
        if (terms.overDeserved().contains(queue)) {
            return overDeservedAllows(victimQueue, unit);
        }
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
        Resources freed = sharesOf(unit);
        // The unit must free a dimension the task needs in which its queue (and each ancestor on the path) holds
        // more than its floor, and leave each of them at least at its floor in every dimension the task needs that
        // it held at or above its floor: after the whole plan, not only before this unit.
        if (withinFloors(victimQueue, floor, path, freed)) return FLOOR_REACHED;
        if (takesBelowFloor(victimQueue, floor, path, freed)) {
            // A whole job larger than its queue's floor can never run within its share: it runs on what its
            // queue borrowed. It is spared, or (victims.gangBelowFloor: evict) taken when no plan keeps every
            // victim queue at its floor.
            if (!wholeJob(unit) || !largerThan(freed, floor)) return FLOOR_BELOW;
            if (!owner.lastResort) return FLOOR_GANG;
        }
        return returns(victimQueue, unit, freed) ? FLOOR_RETURNS : FLOOR_OK;
    }

    /**
     * With hysteresis, whether the victim queue would end up so low that what the unit's job needs to start again
     * fits under its deserved share: it would reclaim its way straight back.
     */
    private boolean returns(QueueState victimQueue, List<Task> unit, Resources freed) {
        if (!terms.hysteresis()) return false;
        Resources back = comesBack(unit);
        if (back == null) return false;
        // What the victim queue holds once the unit is gone, plus what the unit's job needs to come back, still
        // within its deserved share.
        Resources now = allocatedNow(victimQueue);
        Resources deserved = victimQueue.deserved();
        for (int i = 0; i < back.size(); i++) {
            if (back.milliAt(i) <= 0) continue;
            String d = back.name(i);
            long after = Resources.subtractSaturated(now.milliInterned(d), freed.milliInterned(d));
            if (Resources.addSaturated(after, back.milliAt(i)) > deserved.milliInterned(d)) return false;
        }
        return true;
    }

    /**
     * {@link dev.arbiter.policy.VictimTest#OVER_DESERVED}, the test of Volcano's capacity plugin, before taking
     * {@code unit} (counting the units the plan has taken so far): the unit must free a resource the task needs; its
     * queue must keep its whole guarantee once the unit is gone; and the queue must hold more than its deserved share
     * in a resource the unit asks for that the deserved share names — unless the unit asks for none it names, when
     * it goes at once. With ancestor levels ({@link OverDeserved#levels}), each ancestor of the victim's queue up to
     * that many levels that the reclaiming queue does not share at the same level must pass the same test (or be
     * asked for nothing it names); and a unit that would go at once is spared when the two queues share an ancestor
     * within those levels and the task asks for nothing its own queue's deserved share names (no real contention
     * there). Nothing keeps the queue at its deserved share afterwards. Hysteresis, a churn setting, still applies.
     */
    private int overDeservedAllows(QueueState victimQueue, List<Task> unit) {
        Resources freed = sharesOf(unit);
        Resources want = task.share();
        if (!names(want, freed)) return FLOOR_REACHED;
        Resources now = allocatedNow(victimQueue);
        Resources guarantee = victimQueue.effectiveGuarantee;
        for (int i = 0; i < guarantee.size(); i++) {
            String d = guarantee.name(i);
            if (Resources.subtractSaturated(now.milliInterned(d), freed.milliInterned(d)) < guarantee.milliAt(i)) {
                return FLOOR_BELOW;
            }
        }
        boolean atOnce = !names(victimQueue.deserved(), freed);
        if (!atOnce && !overIn(now, victimQueue.deserved(), freed)) return FLOOR_REACHED;
        int levels = terms.overDeserved().levels();
        if (levels > 0) {
            QueueState reclaimer = terms.preemptorQueue();
            if (atOnce && sharesAncestorWithin(reclaimer, victimQueue, levels) && !names(reclaimer.deserved(), want)) {
                return FLOOR_REACHED;
            }
            for (int level = 1; level <= levels; level++) {
                QueueState a = ancestorAt(victimQueue, level);
                if (a == null || a == ancestorAt(reclaimer, level) || !names(a.deserved(), freed)) continue;
                if (!overIn(allocatedNow(a), a.deserved(), freed)) return FLOOR_REACHED;
            }
        }
        return returns(victimQueue, unit, freed) ? FLOOR_RETURNS : FLOOR_OK;
    }

    /** Whether {@code asked} asks for a resource {@code named} holds some of. */
    private static boolean names(Resources named, Resources asked) {
        for (int i = 0; i < asked.size(); i++) {
            if (asked.milliAt(i) > 0 && named.milliInterned(asked.name(i)) > 0) return true;
        }
        return false;
    }

    /** Whether {@code held} is more than {@code deserved} in a resource {@code asked} asks for and it names. */
    private static boolean overIn(Resources held, Resources deserved, Resources asked) {
        for (int i = 0; i < asked.size(); i++) {
            if (asked.milliAt(i) <= 0) continue;
            String d = asked.name(i);
            long share = deserved.milliInterned(d);
            if (share > 0 && held.milliInterned(d) > share) return true;
        }
        return false;
    }

    /** The queue's ancestor {@code level} levels up (1: its parent); null past the top (the implicit root). */
    private static QueueState ancestorAt(QueueState q, int level) {
        QueueState a = q;
        for (int i = 0; i < level && a != null; i++) a = a.parent;
        return a;
    }

    /** Whether the two queues share an ancestor (not the implicit root) within {@code levels} levels of each. */
    private static boolean sharesAncestorWithin(QueueState a, QueueState b, int levels) {
        for (int i = 1; i <= levels; i++) {
            QueueState x = ancestorAt(a, i);
            if (x == null) break;
            for (int k = 1; k <= levels; k++) {
                QueueState y = ancestorAt(b, k);
                if (y == null) break;
                if (x == y) return true;
            }
        }
        return false;
    }

    /** What the unit's tasks hold of queue shares, together. */
    private static Resources sharesOf(List<Task> unit) {
        if (unit.size() == 1) return unit.get(0).share();
        Resources.Sum sum = new Resources.Sum();
        for (Task t : unit) sum.add(t.share());
        return sum.toResources();
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
            Resources qFloor = q == victimQueue ? floor : owner.memory.floorOf(q);
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
            Resources qFloor = q == victimQueue ? floor : owner.memory.floorOf(q);
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
        return (capFree || fitsWith(units)) && owner.fitter.passesPodRules(task.pod, node, takenTasks);
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
        return owner.fitter.passesPodRules(task.pod, node, gone);
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
                    && owner.fitter.passesPodRules(task.pod, node, tasksOf(without));
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
     * Whether the gangs of {@code unit} stay whole (all their members running, or at least minMember; every member
     * for disruptionMode all, {@link Job#victimFloor}) if it is
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
        return left <= 0 || left >= j.victimFloor();
    }
}
