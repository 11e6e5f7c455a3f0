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
 * one of them may not be evicted); a unit from a queue with a floor is taken only while that queue is still above the
 * floor in a dimension the unit frees, and (hysteresis) not so far that the queue could reclaim it back. Once the
 * task fits, every unit but the last is dropped again, latest first, if the task still fits without it and no gang is
 * left broken. Across nodes: fewest victims, then the plan whose most precious victim is least precious, then the
 * earlier node.
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
        Plan best = null;
        for (Node n : candidates.values()) {
            Plan p = searchNode(n, task, eligible, floors, cap, own, queueWide, hysteresis);
            if (p != null && (best == null || better(p, best, own))) best = p;
        }
        return best;
    }

    private Plan searchNode(Node node, Task task, Predicate<Task> eligible, Map<String, Resources> floors, Caps cap,
                            Queue own, List<Task> queueWide, boolean hysteresis) {
        List<Task> pool = new ArrayList<>();
        for (Task t : node.tasks) if (eligible.test(t)) pool.add(t);
        for (Task t : queueWide) if (t.node != node) pool.add(t);
        Attempt a = new Attempt(node, task, cap, own);
        if (a.fits(a.units)) return new Plan(node, List.of());
        while (!pool.isEmpty()) {
            Comparator<Task> order = order(a.taken, node, own);
            Task next = pool.get(0);
            for (Task t : pool) if (order.compare(t, next) < 0) next = t;
            pool.remove(next);
            List<Task> unit = a.unitOf(next, eligible);
            if (unit == null || !a.floorAllows(next.job.queueName, unit, floors, hysteresis)) continue;
            a.take(unit);
            pool.removeAll(unit);
            if (a.fits(a.units)) return new Plan(node, a.trimmed());
        }
        return null;
    }

    private boolean better(Plan a, Plan b, Queue own) {
        if (a.victims().size() != b.victims().size()) return a.victims().size() < b.victims().size();
        Comparator<Task> order = order(Map.of(), null, own);
        int c = order.compare(mostPrecious(a, order), mostPrecious(b, order));
        if (c != 0) return c < 0;
        return a.node().index < b.node().index;
    }

    private static Task mostPrecious(Plan p, Comparator<Task> order) {
        Task m = null;
        for (Task t : p.victims()) if (m == null || order.compare(t, m) > 0) m = t;
        return m;
    }

    /** Victim order; {@code taken} counts, per job, members already chosen (for "surplus"). */
    private Comparator<Task> order(Map<Job, Integer> taken, Node node, Queue own) {
        Comparator<Task> c = node == null ? (x, y) -> 0 : Comparator.comparingInt(t -> t.node == node ? 0 : 1);
        return c.thenComparingInt((Task t) -> t.job.members() - taken.getOrDefault(t.job, 0) > t.job.minMember ? 0 : 1)
                // Closest queue first: with top-level queues only, the preemptor's own queue, then every other.
                .thenComparingInt((Task t) -> t.job.queueName.equals(own.name()) ? 0 : 1)
                .thenComparingInt((Task t) -> queuePriority(t))
                .thenComparing(Comparator.comparingDouble((Task t) -> queueShare(t)).reversed())
                .thenComparingInt(t -> t.priority)
                .thenComparingInt(t -> t.leader ? 1 : 0)
                .thenComparing(Comparator.comparingLong((Task t) -> t.pod.creationOrder()).reversed())
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
         * Reclaim's floor for taking {@code unit} from {@code queue}: the queue must still hold more than its floor in
         * some dimension that the unit frees and the task needs; with hysteresis, what it keeps afterwards plus what the
         * unit's job would need to start again (when the unit leaves it unable to run) must not fit under its deserved
         * share (else the unit could reclaim its way straight back).
         */
        boolean floorAllows(String queue, List<Task> unit, Map<String, Resources> floors, boolean hysteresis) {
            Resources floor = floors.get(queue);
            if (floor == null) return true;
            Queue victimQueue = state.queues.get(queue);
            Resources freed = Resources.NONE;
            for (Task t : unit) freed = freed.add(t.share);
            Resources needed = freed.onlyDimensionsOf(task.share);
            if (needed.isEmpty()) return false;
            Resources now = victimQueue.allocated;
            for (List<Task> u : units) for (Task t : u) if (t.job.queueName.equals(queue)) now = now.subtract(t.share);
            if (now.withinIn(floor, needed)) return false;
            if (hysteresis) {
                Resources after = now.subtract(freed);
                Job j = unit.get(0).job;
                if (j.members() - taken.getOrDefault(j, 0) - unit.size() < Math.max(1, j.minMember)) {
                    Resources back = Resources.NONE;
                    for (int i = 0; i < Math.min(unit.size(), Math.max(1, j.minMember)); i++) back = back.add(unit.get(i).share);
                    if (after.add(back).withinIn(victimQueue.deserved, back)) return false;
                }
            }
            return true;
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
