package dev.arbiter.engine;

import dev.arbiter.facts.VictimOrder;
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

/**
 * Finds the fewest victims that let one pending task run, on a copy of the cycle's numbers (nothing is changed
 * until the caller commits the plan). The rules decided who may be a victim (the {@code eligible} predicate built
 * from grants and {@code Protected} facts), the order ({@link VictimOrder}) and the floors (each victim queue must
 * still exceed its floor before each eviction). This class only searches.
 *
 * <p>The heuristic, per candidate node: take victims in policy order until the task fits — a victim whose gang would
 * drop below minMember brings its whole gang (never leave a broken gang holding GPUs) — then add back, in reverse
 * order, every victim that is not needed. Idle capacity counts first. Across nodes, the plan with the fewest
 * victims wins, then the one whose most important victim has the lowest priority, then the earlier node.
 */
final class VictimSelector {
    /** The victims that let {@code task} run on {@code node}. */
    record Plan(NodeState node, List<Task> victims) {}

    /**
     * Terms of one search: the candidate victims ({@code pool}, already limited to what the grant allows; evicted
     * ones are skipped), the test a task met on a node must pass to be a victim ({@code eligible}: the same test
     * that built the pool), the floors per victim queue (reclaim; empty for preemption), the preemptor
     * queue's capability (it binds only for preemption, whose victims free the same queue) and that queue's
     * allocation, the preemptor's queue (victims are taken from the closest queues in the tree first), whether
     * hysteresis applies (no victim whose queue would then qualify to reclaim it straight back), and a {@code key}
     * identifying terms that always give the same answer for the same task shape, so a failed search is not repeated
     * until capacity changes.
     */
    record Terms(List<Task> pool, Predicate<Task> eligible, Map<String, Resources> floors, Caps preemptorCap,
                 Resources preemptorAllocated, QueueState preemptorQueue, boolean hysteresis, Object key) {
        boolean allows(Task t) {
            return !t.evicted && eligible.test(t);
        }

        Terms withAllocated(Resources allocated) {
            return new Terms(pool, eligible, floors, preemptorCap, allocated, preemptorQueue, hysteresis, key);
        }
    }

    private record FailureKey(Resources request, Object constraints, Object terms) {}

    private final CycleState state;
    private final NodeFitter fitter;
    private final List<String> orderKeys;
    private final Map<FailureKey, Long> failedAtEpoch = new HashMap<>();
    private final Map<QueueState, java.util.Set<Resources>> pendingShapes = new HashMap<>();

    VictimSelector(CycleState state, NodeFitter fitter, VictimOrder order) {
        this.state = state;
        this.fitter = fitter;
        this.orderKeys = order == null ? List.of("newest first") : order.keys();
    }

    /** The distinct shares of a queue's pending tasks, computed once per cycle (for hysteresis). */
    private java.util.Set<Resources> pendingShapes(QueueState q) {
        return pendingShapes.computeIfAbsent(q, x -> {
            java.util.Set<Resources> out = new java.util.LinkedHashSet<>();
            for (Job j : x.jobs) for (Task p : j.pending) out.add(p.share());
            return out;
        });
    }

    Plan find(Task task, Terms terms) {
        FailureKey fk = new FailureKey(task.request(), fitter.constraintsKey(task.pod), terms.key());
        Long failed = failedAtEpoch.get(fk);
        if (failed != null && failed == fitter.epoch()) return null;
        Plan best = search(task, terms);
        if (best == null) failedAtEpoch.put(fk, fitter.epoch());
        return best;
    }

    /** Candidate nodes: those hosting an allowed victim, plus (when only the queue's capability is short) the best idle node. */
    private Plan search(Task task, Terms terms) {
        boolean capBlocks = !terms.preemptorCap().admits(terms.preemptorAllocated().add(task.share()));
        List<Task> queueWide = List.of();
        java.util.TreeMap<Integer, NodeState> candidates = new java.util.TreeMap<>();
        for (Task t : terms.pool()) {
            if (terms.allows(t) && fitter.isEligible(task.pod, t.node)) candidates.putIfAbsent(t.node.index, t.node);
        }
        if (capBlocks) {
            queueWide = new ArrayList<>();
            for (Task t : terms.pool()) if (terms.allows(t) && t.job.queue.equals(task.job.queue)) queueWide.add(t);
            NodeState idle = fitter.best(task.pod);
            if (idle != null) candidates.putIfAbsent(idle.index, idle);
        }
        Plan best = null;
        for (NodeState n : candidates.values()) {
            Plan p = planOn(n, task, terms, queueWide);
            if (p != null && (best == null || better(p, best, terms))) best = p;
        }
        return best;
    }

    /**
     * Fewer victims first; among equal counts, the plan whose most precious victim (the last in victim order) comes
     * earlier in that order, so that across nodes, too, leaders go last and the newest go first.
     */
    private boolean better(Plan a, Plan b, Terms terms) {
        if (a.victims().size() != b.victims().size()) return a.victims().size() < b.victims().size();
        Comparator<Task> order = victimComparator(new Search(a.node(), null, terms), null);
        int c = order.compare(mostPrecious(a, order), mostPrecious(b, order));
        if (c != 0) return c < 0;
        return a.node().index < b.node().index;
    }

    private static Task mostPrecious(Plan p, Comparator<Task> order) {
        return p.victims().stream().max(order).orElse(null);
    }

    private Plan planOn(NodeState node, Task task, Terms terms, List<Task> queueWide) {
        List<Task> pool = new ArrayList<>();
        for (Task t : node.tasks) if (terms.allows(t)) pool.add(t);
        for (Task t : queueWide) if (t.node != node) pool.add(t);
        Search s = new Search(node, task, terms);
        if (s.fits()) return new Plan(node, List.of());
        while (!pool.isEmpty()) {
            Task next = pool.stream().min(victimComparator(s, node)).orElseThrow();
            pool.remove(next);
            List<Task> unit = s.unitFor(next);
            if (unit == null || !s.floorAllows(next.job.queue, unit)) continue;
            s.take(unit);
            pool.removeAll(unit);
            if (s.fits()) return new Plan(node, s.trimmed());
        }
        return null;
    }

    private Comparator<Task> victimComparator(Search s, NodeState node) {
        Comparator<Task> c = node == null ? (x, y) -> 0 : Comparator.comparing(t -> t.node == node ? 0 : 1);
        for (String key : orderKeys) {
            Comparator<Task> k = switch (key.trim()) {
                case "surplus first" -> Comparator.comparing(t -> s.isSurplus(t) ? 0 : 1);
                case "closest queue first" -> Comparator.comparingInt(t -> distanceFromPreemptor(s, t));
                case "queue served last first" -> Comparator.<Task>comparingInt(t -> queuePriority(t))
                        .thenComparing(Comparator.<Task>comparingDouble(t -> queueShare(t)).reversed());
                case "priority asc" -> Comparator.comparingInt(t -> t.priority);
                case "priority desc" -> Comparator.<Task>comparingInt(t -> t.priority).reversed();
                case "leader last" -> Comparator.comparing(t -> t.pod.isLeader() ? 1 : 0);
                case "newest first" -> Comparator.<Task>comparingLong(t -> t.pod.creationOrder()).reversed();
                case "oldest first" -> Comparator.comparingLong(t -> t.pod.creationOrder());
                default -> throw new PolicyException("victim order key \"" + key + "\" is unknown (known: surplus first,"
                        + " closest queue first, queue served last first, priority asc|desc, leader last, newest first,"
                        + " oldest first)");
            };
            c = c.thenComparing(k);
        }
        return c.thenComparing(Task::id);
    }

    private int distanceFromPreemptor(Search s, Task t) {
        QueueState from = s.terms == null ? null : s.terms.preemptorQueue();
        QueueState to = state.queues.get(t.job.queue);
        return from == null || to == null || from == to ? 0 : from.distanceTo(to);
    }

    private int queuePriority(Task t) {
        QueueState q = state.queues.get(t.job.queue);
        return q == null ? 0 : q.spec.priority();
    }

    private double queueShare(Task t) {
        QueueState q = state.queues.get(t.job.queue);
        return q == null ? 0 : q.share();
    }

    /** The running numbers of one node's search: what the chosen units free, on the node and per queue. */
    private final class Search {
        private final NodeState node;
        private final Task task;
        private final Terms terms;
        private final List<List<Task>> units = new ArrayList<>();
        private final Map<Job, Integer> taken = new HashMap<>();

        Search(NodeState node, Task task, Terms terms) {
            this.node = node;
            this.task = task;
            this.terms = terms;
        }

        boolean isSurplus(Task t) {
            return t.job.liveMembers() - taken.getOrDefault(t.job, 0) > t.job.minMember;
        }

        /** The task alone, or its whole remaining gang if taking it would break the gang; null if that is not allowed. */
        List<Task> unitFor(Task t) {
            int remaining = t.job.liveMembers() - taken.getOrDefault(t.job, 0);
            if (remaining - 1 >= t.job.minMember || remaining <= 1) return List.of(t);
            // Members bound this cycle cannot be evicted, so a gang that would break cannot go whole either.
            if (t.job.bound > 0) return null;
            List<Task> gang = new ArrayList<>();
            for (Task m : t.job.running) {
                if (m.evicted || isTaken(m)) continue;
                if (!terms.allows(m)) return null;
                gang.add(m);
            }
            return gang;
        }

        private boolean isTaken(Task t) {
            for (List<Task> u : units) if (u.contains(t)) return true;
            return false;
        }

        /**
         * Reclaim's floors, checked before taking {@code unit} from {@code queue}: that queue, and each ancestor the
         * preemptor's queue does not share, must still be above its floor (its deserved share, or guarantee if larger)
         * in a dimension the unit frees; with hysteresis, the victim queue must not end up so low that one of the
         * unit's tasks, or one of its pending tasks, would qualify to reclaim straight back.
         */
        boolean floorAllows(String queue, List<Task> unit) {
            Resources floor = terms.floors().get(queue);
            if (floor == null) return true;
            QueueState victimQueue = state.queues.get(queue);
            Resources freed = Resources.NONE;
            for (Task t : unit) freed = freed.add(t.share());
            QueueState stop = QueueState.commonAncestor(victimQueue, terms.preemptorQueue());
            for (QueueState q : victimQueue.pathUpTo(stop)) {
                Resources qFloor = q == victimQueue ? floor
                        : q.fact == null ? Resources.NONE : q.fact.getDeserved().max(q.fact.getGuarantee());
                Resources now = allocatedNow(q);
                if (now.withinIn(qFloor, freed)) return false;
            }
            if (terms.hysteresis()) {
                Resources after = allocatedNow(victimQueue).subtract(freed);
                Resources deserved = victimQueue.deserved();
                for (Task t : unit) if (after.add(t.share()).withinIn(deserved, t.share())) return false;
                for (Resources p : pendingShapes(victimQueue)) if (after.add(p).withinIn(deserved, p)) return false;
            }
            return true;
        }

        /** The queue's subtree allocation less what this search has already chosen from it. */
        private Resources allocatedNow(QueueState q) {
            Resources now = q.allocated;
            for (List<Task> u : units) {
                for (Task t : u) {
                    for (QueueState a = state.queues.get(t.job.queue); a != null; a = a.parent) {
                        if (a == q) {
                            now = now.subtract(t.share());
                            break;
                        }
                    }
                }
            }
            return now;
        }

        void take(List<Task> unit) {
            units.add(unit);
            for (Task t : unit) taken.merge(t.job, 1, Integer::sum);
        }

        boolean fits() {
            return fitsWith(units);
        }

        /**
         * The task fits on the node, and under its queue's capability — or, when the queue is already past its
         * capability, its victims in the queue free at least what it takes: preemption swaps work inside a queue, it
         * does not evict a queue's surplus wholesale.
         */
        private boolean fitsWith(List<List<Task>> chosen) {
            Resources freeOnNode = node.free();
            Resources queueAllocated = terms.preemptorAllocated();
            Resources queueFreed = Resources.NONE;
            for (List<Task> u : chosen) {
                for (Task t : u) {
                    if (t.node == node) freeOnNode = freeOnNode.add(t.request());
                    if (t.job.queue.equals(task.job.queue)) {
                        queueAllocated = queueAllocated.subtract(t.share());
                        queueFreed = queueFreed.add(t.share());
                    }
                }
            }
            return task.request().fitsIn(freeOnNode) && (terms.preemptorCap().admits(queueAllocated.add(task.share()))
                    || task.share().fitsIn(queueFreed));
        }

        /** Drops, newest choice first (after the last), every unit the fit does not need and whose gangs stay whole. */
        List<Task> trimmed() {
            List<List<Task>> kept = new ArrayList<>(units);
            for (int i = kept.size() - 2; i >= 0; i--) {
                List<List<Task>> without = new ArrayList<>(kept);
                without.remove(i);
                if (fitsWith(without) && gangsWhole(without)) kept = without;
            }
            Set<Task> out = new LinkedHashSet<>();
            kept.forEach(out::addAll);
            return new ArrayList<>(out);
        }

        private boolean gangsWhole(List<List<Task>> chosen) {
            Map<Job, Integer> count = new HashMap<>();
            for (List<Task> u : chosen) for (Task t : u) count.merge(t.job, 1, Integer::sum);
            for (Map.Entry<Job, Integer> e : count.entrySet()) {
                int left = e.getKey().liveMembers() - e.getValue();
                if (left > 0 && left < e.getKey().minMember) return false;
            }
            return true;
        }
    }
}
