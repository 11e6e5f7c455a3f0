package dev.arbiter.bench;

import dev.arbiter.bench.RefState.Job;
import dev.arbiter.bench.RefState.Node;
import dev.arbiter.bench.RefState.Queue;
import dev.arbiter.bench.RefState.Task;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The fewest victims that let one pending task run (docs/architecture.md, "Victim search"), computed on numbers only.
 *
 * <p>Per candidate node: idle capacity counts first; victims are taken one unit at a time in victim order (this
 * node's tasks before tasks elsewhere; surplus gang members first; the closest queue; then the queue served last —
 * lowest queue priority, then highest share; lowest priority; leaders last; newest first), where a unit is the task
 * alone or, if taking it would leave its gang running below minMember, every remaining member of the gang (and none if
 * one of them may not be evicted). Reclaim floors hold after the whole plan: a unit from a queue with a floor is taken
 * only if that queue is still above its floor in a dimension the unit frees and the task needs, and taking it leaves
 * the queue at least at its floor in every such dimension it held more than its floor of (or its floor, asking for
 * more); and (hysteresis) not so far that the
 * queue could reclaim it back. The one exception is a whole job (every member still live) larger than its queue's
 * floor in a dimension the task needs: it runs only on what its queue borrowed, and may take its queue below the floor
 * in a second search, made only when the first found no plan and turned such a job down (victims.gangBelowFloor:
 * evict). When the next unit would complete the plan, a unit ranked alike but for age that completes it too with
 * fewer pods, or as many that free less, goes instead. Once the task fits, every unit but the last is dropped again,
 * latest first, if the task still fits without it and no gang is left broken. Across nodes: fewest victims; then the
 * plan whose most precious victim, ranked without age, is least precious; then the plan that frees least (in
 * multiples of what the task asks); then the most precious victim in the full order; then the earlier node.
 */
final class VictimSearch {
    record Plan(Node node, List<Task> victims) {}

    private final RefState state;
    private final NodeIndex index;
    private final RefRules rules;

    VictimSearch(RefState state, NodeIndex index, RefRules rules) {
        this.state = state;
        this.index = index;
        this.rules = rules;
    }

    /**
     * @param eligible who may be evicted (already excludes evicted tasks)
     * @param floors per victim queue, the share it must stay above before each eviction
     * @param cap the preemptor queue's bound ({@link Caps#UNLIMITED} for reclaim)
     */
    Plan find(Task task, Predicate<Task> eligible, Map<String, Resources> floors, Caps cap, boolean hysteresis) {
        Queue own = state.queues.get(task.job.queueName);
        boolean capBlocks = !cap.admits(own.allocated, task.share);
        List<Task> queueWide = new ArrayList<>();
        if (capBlocks) {
            for (Job j : own.jobs) for (Task t : j.running) if (eligible.test(t)) queueWide.add(t);
        }
        // Candidate nodes: those hosting a possible victim, and, when only the queue's capability is short, the best
        // node with idle room (its plan frees the capability queue-wide).
        java.util.TreeMap<Integer, Node> candidates = new java.util.TreeMap<>();
        for (Node n : index.eligibleNodes(task.pod)) {
            for (Task t : n.tasks) if (eligible.test(t)) { candidates.put(n.index, n); break; }
        }
        if (capBlocks) {
            Node idle = index.best(task.pod);
            if (idle != null) candidates.putIfAbsent(idle.index, idle);
        }
        Search first = new Search(task, eligible, floors, cap, own, queueWide, hysteresis, false);
        Plan best = first.over(candidates.values());
        if (best == null && first.refusedWholeJob) {
            // No plan keeps every victim queue at its floor; a whole job larger than its queue's floor may go.
            best = new Search(task, eligible, floors, cap, own, queueWide, hysteresis, true).over(candidates.values());
        }
        return best;
    }

    /** One pass over the candidate nodes; {@code lastResort}: a whole job larger than its floor may go below it. */
    private final class Search {
        final Task task;
        final Predicate<Task> eligible;
        final Map<String, Resources> floors;
        final Caps cap;
        final Queue own;
        final List<Task> queueWide;
        final boolean hysteresis;
        final boolean lastResort;
        /** Some node's search turned down a whole job only because it would take its queue below its floor. */
        boolean refusedWholeJob;

        Search(Task task, Predicate<Task> eligible, Map<String, Resources> floors, Caps cap, Queue own,
               List<Task> queueWide, boolean hysteresis, boolean lastResort) {
            this.task = task;
            this.eligible = eligible;
            this.floors = floors;
            this.cap = cap;
            this.own = own;
            this.queueWide = queueWide;
            this.hysteresis = hysteresis;
            this.lastResort = lastResort;
        }

        Plan over(Iterable<Node> nodes) {
            Plan best = null;
            for (Node n : nodes) {
                Plan p = onNode(n);
                if (p != null && (best == null || better(p, best, own, task))) best = p;
            }
            return best;
        }

        private Plan onNode(Node node) {
            List<Task> pool = new ArrayList<>();
            for (Task t : node.tasks) if (eligible.test(t)) pool.add(t);
            for (Task t : queueWide) if (t.node != node) pool.add(t);
            Attempt a = new Attempt(node, task, cap, own);
            if (a.fits(a.units)) return new Plan(node, List.of());
            while (!pool.isEmpty()) {
                Comparator<Task> order = order(a.taken, node, own, true);
                Task next = pool.get(0);
                for (Task t : pool) if (order.compare(t, next) < 0) next = t;
                pool.remove(next);
                List<Task> unit = a.unitOf(next, eligible);
                if (unit == null) continue;
                Floor floor = a.floor(next.job.queueName, unit, floors, hysteresis, lastResort);
                if (floor == Floor.WHOLE_JOB_BELOW) refusedWholeJob = true;
                if (floor != Floor.OK) continue;
                if (a.fits(with(a.units, unit))) {
                    a.take(leanestLike(a, next, unit, pool));
                    return new Plan(node, a.trimmed());
                }
                a.take(unit);
                pool.removeAll(unit);
            }
            return null;
        }

        /**
         * The unit that completes the plan: {@code unit} (next's), or one of the pool's tasks that the order without age
         * ranks equal to {@code next} whose unit also completes it (floors allowing) with fewer pods, or as many pods
         * that free less; the first such in pool order wins ties.
         */
        private List<Task> leanestLike(Attempt a, Task next, List<Task> unit, List<Task> pool) {
            Comparator<Task> alike = order(a.taken, a.node, own, false);
            List<Task> best = unit;
            double bestCost = freedCost(unit, task);
            for (Task t : pool) {
                if (unit.contains(t) || alike.compare(t, next) != 0) continue;
                List<Task> other = a.unitOf(t, eligible);
                if (other == null || other.size() > best.size()) continue;
                double cost = freedCost(other, task);
                if (other.size() == best.size() && cost >= bestCost) continue;
                if (a.floor(t.job.queueName, other, floors, hysteresis, lastResort) != Floor.OK) continue;
                if (!a.fits(with(a.units, other))) continue;
                best = other;
                bestCost = cost;
            }
            return best;
        }
    }

    private static List<List<Task>> with(List<List<Task>> units, List<Task> unit) {
        List<List<Task>> all = new ArrayList<>(units);
        all.add(unit);
        return all;
    }

    /**
     * Plans of equal size: the most precious victim in the order without age first, then what they free beyond the
     * task's need, then the most precious victim in the full order, then the earlier node.
     */
    private boolean better(Plan a, Plan b, Queue own, Task task) {
        if (a.victims().size() != b.victims().size()) return a.victims().size() < b.victims().size();
        if (a.victims().isEmpty()) return a.node().index < b.node().index;
        Comparator<Task> rank = order(Map.of(), null, own, false);
        int c = rank.compare(mostPrecious(a, rank), mostPrecious(b, rank));
        if (c != 0) return c < 0;
        c = Double.compare(freedCost(a.victims(), task), freedCost(b.victims(), task));
        if (c != 0) return c < 0;
        Comparator<Task> order = order(Map.of(), null, own, true);
        c = order.compare(mostPrecious(a, order), mostPrecious(b, order));
        if (c != 0) return c < 0;
        return a.node().index < b.node().index;
    }

    /**
     * What the victims free in multiples of the task's ask: the sum, victim by victim, over each resource the task asks
     * for (in name order), of the victim's share of it divided by the task's.
     */
    static double freedCost(List<Task> victims, Task task) {
        double cost = 0;
        for (Task v : victims) {
            for (int i = 0; i < task.share.size(); i++) {
                long want = task.share.milliAt(i);
                if (want > 0) cost += (double) v.share.milli(task.share.name(i)) / want;
            }
        }
        return cost;
    }

    private static Task mostPrecious(Plan p, Comparator<Task> order) {
        Task m = null;
        for (Task t : p.victims()) if (m == null || order.compare(t, m) > 0) m = t;
        return m;
    }

    /**
     * Victim order; {@code taken} counts, per job, members already chosen (for "surplus"). Without {@code age}, the
     * order stops before its age key and the final tie-break: the victims it ranks equal are alike but for age.
     */
    private Comparator<Task> order(Map<Job, Integer> taken, Node node, Queue own, boolean age) {
        Comparator<Task> c = node == null ? (x, y) -> 0 : Comparator.comparingInt(t -> t.node == node ? 0 : 1);
        c = c.thenComparingInt((Task t) -> t.job.members() - taken.getOrDefault(t.job, 0) > t.job.minMember ? 0 : 1)
                // Closest queue first: with top-level queues only, the preemptor's own queue, then every other.
                .thenComparingInt((Task t) -> t.job.queueName.equals(own.name()) ? 0 : 1)
                .thenComparingInt((Task t) -> queuePriority(t))
                .thenComparing(Comparator.comparingDouble((Task t) -> queueShare(t)).reversed())
                .thenComparingInt(t -> t.priority)
                .thenComparingInt(t -> t.leader ? 1 : 0);
        if (!age) return c;
        return c.thenComparing(Comparator.comparingLong((Task t) -> t.pod.creationOrder()).reversed())
                .thenComparing(Task::id);
    }

    private int queuePriority(Task t) {
        Queue q = state.queues.get(t.job.queueName);
        return q == null ? 0 : q.spec.priority();
    }

    private double queueShare(Task t) {
        Queue q = state.queues.get(t.job.queueName);
        return q == null ? 0 : q.share();
    }

    /** What a victim queue's floor says of a unit ({@link Attempt#floor}). */
    enum Floor { OK, AT_FLOOR, BELOW, WHOLE_JOB_BELOW, COMES_BACK }

    /** One node's search: the units chosen so far. */
    private final class Attempt {
        final Node node;
        final Task task;
        final Caps cap;
        final Queue own;
        final List<List<Task>> units = new ArrayList<>();
        final Map<Job, Integer> taken = new HashMap<>();

        Attempt(Node node, Task task, Caps cap, Queue own) {
            this.node = node;
            this.task = task;
            this.cap = cap;
            this.own = own;
        }

        List<Task> unitOf(Task t, Predicate<Task> eligible) {
            int left = t.job.members() - taken.getOrDefault(t.job, 0);
            if (left <= 1 || left - 1 >= t.job.minMember) return List.of(t);
            if (t.job.boundCount > 0) return null; // members bound this cycle cannot go, so neither can the gang
            List<Task> gang = new ArrayList<>();
            for (Task m : t.job.running) {
                if (m.evicted || chosen(m)) continue;
                if (!eligible.test(m)) return null;
                gang.add(m);
            }
            return gang;
        }

        private boolean chosen(Task t) {
            for (List<Task> u : units) if (u.contains(t)) return true;
            return false;
        }

        /**
         * Reclaim's floor for taking {@code unit} from {@code queue} (after the units already chosen):
         * <ul>
         * <li>the queue must still hold more than its floor in some dimension that the unit frees and the task needs
         * ({@link Floor#AT_FLOOR} otherwise);
         * <li>in every dimension the unit frees and the task needs in which the queue holds more than its floor, or
         * exactly its floor while it asks for more, it must keep at least its floor ({@link Floor#BELOW}) — unless the unit is the job's every remaining live member and
         * frees more than the floor in some dimension the task needs: such a job can never run within its share, and
         * goes below the floor, but only in the last-resort search ({@link Floor#WHOLE_JOB_BELOW} in the first);
         * <li>with hysteresis, what it keeps afterwards plus what the unit's job would need to start again (when the
         * unit leaves it unable to run) must not fit under its deserved share, else the unit could reclaim its way
         * straight back ({@link Floor#COMES_BACK}).
         * </ul>
         */
        Floor floor(String queue, List<Task> unit, Map<String, Resources> floors, boolean hysteresis, boolean lastResort) {
            Resources floor = floors.get(queue);
            if (floor == null) return Floor.OK;
            Queue victimQueue = state.queues.get(queue);
            Resources freed = Resources.NONE;
            for (Task t : unit) freed = freed.add(t.share);
            Resources needed = freed.onlyDimensionsOf(task.share);
            if (needed.isEmpty()) return Floor.AT_FLOOR;
            Resources now = victimQueue.allocated;
            for (List<Task> u : units) for (Task t : u) if (t.job.queueName.equals(queue)) now = now.subtract(t.share);
            if (now.withinIn(floor, needed)) return Floor.AT_FLOOR;
            boolean goesBelow = false;
            boolean largerThanFloor = false;
            for (int i = 0; i < needed.size(); i++) {
                String d = needed.name(i);
                long take = needed.milliAt(i), held = now.milli(d), least = floor.milli(d);
                if (take <= 0) continue;
                // Protected: held above the floor, or at it while the queue asks for more (its share there is what
                // competition left it, not its request).
                boolean protects = held > least || (held == least && victimQueue.request.milli(d) > held);
                if (protects && held - take < least) goesBelow = true;
                if (take > least) largerThanFloor = true;
            }
            if (goesBelow) {
                Job j = unit.get(0).job;
                boolean wholeJob = unit.size() == j.members() - taken.getOrDefault(j, 0);
                if (!wholeJob || !largerThanFloor) return Floor.BELOW;
                if (!lastResort) return Floor.WHOLE_JOB_BELOW;
            }
            if (hysteresis) {
                Resources after = now.subtract(freed);
                Job j = unit.get(0).job;
                if (j.members() - taken.getOrDefault(j, 0) - unit.size() < Math.max(1, j.minMember)) {
                    Resources back = Resources.NONE;
                    for (int i = 0; i < Math.min(unit.size(), Math.max(1, j.minMember)); i++) back = back.add(unit.get(i).share);
                    if (after.add(back).withinIn(victimQueue.deserved, back)) return Floor.COMES_BACK;
                }
            }
            return Floor.OK;
        }

        void take(List<Task> unit) {
            units.add(unit);
            for (Task t : unit) taken.merge(t.job, 1, Integer::sum);
        }

        /**
         * The task fits the node, and under the queue's capability, or at least replaces as much as it takes; and with
         * the chosen victims gone it passes its host ports, spread, affinity and anti-affinity and existing pods'
         * anti-affinity there.
         */
        boolean fits(List<List<Task>> chosen) {
            Resources free = node.free;
            Resources ownAllocated = own.allocated;
            Resources ownFreed = Resources.NONE;
            for (List<Task> u : chosen) {
                for (Task t : u) {
                    if (t.node == node) free = free.add(t.req);
                    if (t.job.queueName.equals(task.job.queueName)) {
                        ownAllocated = ownAllocated.subtract(t.share);
                        ownFreed = ownFreed.add(t.share);
                    }
                }
            }
            if (!task.req.fitsIn(free) || !(cap.admits(ownAllocated, task.share) || task.share.fitsIn(ownFreed))) return false;
            if (!rules.dependsOnPods(task.pod)) return true;
            List<Task> gone = new ArrayList<>();
            for (List<Task> u : chosen) gone.addAll(u);
            return rules.passes(task.pod, node, gone);
        }

        List<Task> trimmed() {
            List<List<Task>> kept = new ArrayList<>(units);
            for (int i = kept.size() - 2; i >= 0; i--) {
                List<List<Task>> without = new ArrayList<>(kept);
                without.remove(i);
                if (fits(without) && noBrokenGang(without)) kept = without;
            }
            LinkedHashSet<Task> out = new LinkedHashSet<>();
            for (List<Task> u : kept) out.addAll(u);
            return new ArrayList<>(out);
        }

        private boolean noBrokenGang(List<List<Task>> chosen) {
            Map<Job, Integer> count = new HashMap<>();
            for (List<Task> u : chosen) for (Task t : u) count.merge(t.job, 1, Integer::sum);
            for (Map.Entry<Job, Integer> e : count.entrySet()) {
                int left = e.getKey().members() - e.getValue();
                if (left > 0 && left < e.getKey().minMember) return false;
            }
            return true;
        }
    }
}
