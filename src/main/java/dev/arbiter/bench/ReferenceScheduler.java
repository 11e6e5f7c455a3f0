package dev.arbiter.bench;

import dev.arbiter.bench.RefState.Job;
import dev.arbiter.bench.RefState.Node;
import dev.arbiter.bench.RefState.Queue;
import dev.arbiter.bench.RefState.Task;
import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The shipped default policy (rules/*.drl) in plain Java, without Drools: the speed ceiling for the engine and an
 * independent oracle for the differential test. Written from docs/architecture.md, docs/volcano-differences.md, the
 * DRL files and the engine's tests; it shares only the model, the decision records and {@link SchedulerConfig}.
 *
 * <p>One cycle: index; fair share; admit; allocate (queues by priority then share, re-chosen after every job; jobs by
 * priority then creation; each gang all-or-nothing; first every queue within its deserved share, then what is left);
 * preempt (within a queue, strictly lower-priority victims); reclaim (across queues, up to the reclaimer's deserved
 * share, leaving each victim queue at its deserved share or guarantee after the plan — a whole job larger than that
 * only as a last resort —, not from pods younger than a minute, never so far that the victim queue could reclaim
 * straight back); eviction budgets
 * of 100 pods per cycle and 20 per victim queue; status. Queue shares leave out the {@code pods} slot. Only top-level
 * queues with the traverse dequeue strategy are modelled (the generator makes no others). Decisions carry the same
 * rule names as the shipped rules so that results compare field by field.
 */
public final class ReferenceScheduler {
    static final String GANG_RULE = "gang: a job starts only when minMember of its tasks can run together";
    static final String PREEMPT_RULE = "preempt: a pending job may evict tasks of strictly lower-priority jobs in its own queue";
    static final String RECLAIM_RULE = "reclaim: a queue below its deserved share takes back from reclaimable queues above theirs";

    private final SchedulerConfig config;

    public ReferenceScheduler(SchedulerConfig config) {
        this.config = config;
    }

    public CycleResult schedule(ClusterSnapshot snapshot, int cycle) {
        Map<String, Double> timings = new LinkedHashMap<>();
        long t0 = System.nanoTime();
        RefState s = RefState.of(snapshot, config.schedulerNames());
        long t1 = lap(timings, "snapshot", t0);
        FairShare.divide(s.total, s.guarantees, s.queues.values());
        for (Queue q : s.queues.values()) q.jobs.sort(RefState.JOB_ORDER);
        long t2 = lap(timings, "rules", t1);
        Run run = new Run(s, config.scoring() == dev.arbiter.policy.ScoringMode.SPREAD);
        run.admit();
        long t3 = lap(timings, "enqueue", t2);
        run.allocate();
        long t4 = lap(timings, "allocate", t3);
        run.preempt();
        run.reclaim();
        run.addBackAcrossJobs();
        long t5 = lap(timings, "victims", t4);
        List<PodGroupStatus> groups = run.groupStatuses();
        List<QueueStatus> queues = run.queueStatuses(groups);
        lap(timings, "status", t5);
        return new CycleResult(cycle, "reference", run.bindings, run.evictions, groups, queues, timings);
    }

    private static long lap(Map<String, Double> timings, String phase, long since) {
        long now = System.nanoTime();
        timings.put(phase, (now - since) / 1e6);
        return now;
    }

    /** The mutable work of one cycle. */
    private static final class Run {
        final RefState s;
        final NodeIndex index;
        final RefRules rules;
        final VictimSearch victims;
        final List<Binding> bindings = new ArrayList<>();
        final List<Eviction> evictions = new ArrayList<>();
        final Map<String, Integer> evictedPerQueue = new HashMap<>();

        Run(RefState s, boolean spread) {
            this.s = s;
            this.rules = new RefRules(s.nodes, s.namespaceLabels, s.allPods);
            for (dev.arbiter.model.PodSpec p : s.boundPods) rules.add(p, s.boundTo.get(p));
            this.index = new NodeIndex(s.nodes, spread, rules, s.selectedLabelKeys, s.nodesNamed);
            this.victims = new VictimSearch(s, index, rules);
        }

        // ---- admission: Pending jobs move to Inqueue while their minimum fits the queue's room --------------

        void admit() {
            for (Queue q : s.queues.values()) {
                if (!q.open) continue;
                Caps room = q.realCapability.minus(q.allocated).minus(q.inqueue);
                Integer lowestRunning = lowestRunningPriority(q);
                for (Job j : q.jobs) {
                    if (!j.initialPhase.equals("Pending") || !j.minResources.fitsIn(s.total)) continue;
                    // What already runs is in the queue's allocation: only the rest of the minimum needs room.
                    Resources need = j.minResources.subtract(j.held()).clampNonNegative();
                    if (room.admits(need)) {
                        j.phase = "Inqueue";
                        room = room.minus(need);
                    } else if (j.mayPreempt && lowestRunning != null && lowestRunning < j.priority) {
                        j.phase = "Inqueue";
                    }
                }
            }
        }

        private static Integer lowestRunningPriority(Queue q) {
            Integer min = null;
            for (Job j : q.jobs) for (Task t : j.running) if (min == null || t.priority < min) min = t.priority;
            return min;
        }

        // ---- allocation ------------------------------------------------------------------------------------
        //
        // Two rounds. The first serves every queue within its deserved share: queues in queue order (re-chosen after
        // every job), jobs in job order, and a task is placed only while its queue's allocation plus the task stays
        // within the deserved share in every resource the task asks for. A job that had to leave out a task for that
        // reason (started or not) waits for the second round; so does every remaining job of a queue that has reached
        // its deserved share (BestEffort jobs, which ask nothing of shares, still start in the first round). The
        // second round serves what is left, per queue in the order the jobs were put aside, queues again in queue
        // order: a queue that has reached its share stops ("overused"), except that the first job put aside at the
        // share line (when nothing of that queue was put aside before it) may finish crossing it.

        void allocate() {
            List<Queue> active = new ArrayList<>();
            Map<Queue, Integer> cursor = new HashMap<>();
            for (Queue q : s.queues.values()) {
                if (!q.open) continue;
                active.add(q);
                cursor.put(q, 0);
            }
            Map<Queue, java.util.ArrayDeque<Job>> later = new LinkedHashMap<>();
            Map<Queue, Job> crossing = new HashMap<>();
            // Round 1: within shares.
            while (!active.isEmpty()) {
                Queue q = firstInOrder(active);
                Job j = nextJob(q, cursor);
                if (j == null) {
                    active.remove(q);
                    continue;
                }
                if (q.covers(q.deserved) && !j.bestEffort()) {
                    // At its share: the queue's remaining jobs wait for the second round, BestEffort ones start now.
                    putAside(later, q, j);
                    for (Job rest; (rest = nextJob(q, cursor)) != null; ) {
                        if (rest.bestEffort()) startIfWhole(q, rest, false);
                        else putAside(later, q, rest);
                    }
                    active.remove(q);
                    continue;
                }
                if (startIfWhole(q, j, true).ceilingHit()) {
                    // The first job of the queue stopped at the share line is the one that may cross it later.
                    if (!later.containsKey(q)) crossing.put(q, j);
                    putAside(later, q, j);
                }
            }
            // Round 2: past shares, with what no queue under its share could use.
            List<Queue> waiting = new ArrayList<>(later.keySet());
            while (!waiting.isEmpty()) {
                Queue q = firstInOrder(waiting);
                Job j = later.get(q).poll();
                if (j == null) {
                    waiting.remove(q);
                    continue;
                }
                if (q.covers(q.deserved) && !j.bestEffort() && crossing.get(q) != j) {
                    // Overused: only BestEffort jobs still start.
                    for (Job rest; (rest = later.get(q).poll()) != null; ) if (rest.bestEffort()) startIfWhole(q, rest, false);
                    waiting.remove(q);
                    continue;
                }
                startIfWhole(q, j, false);
            }
        }

        private static Queue firstInOrder(List<Queue> qs) {
            Queue first = qs.get(0);
            for (Queue o : qs) if (RefState.QUEUE_ORDER.compare(o, first) < 0) first = o;
            return first;
        }

        /** The queue's next job in job order that is admitted and still has a task to place; null when none is left. */
        private static Job nextJob(Queue q, Map<Queue, Integer> cursor) {
            int c = cursor.get(q);
            try {
                while (c < q.jobs.size()) {
                    Job candidate = q.jobs.get(c++);
                    if (candidate.admitted() && candidate.wantsMore()) return candidate;
                }
                return null;
            } finally {
                cursor.put(q, c);
            }
        }

        private static void putAside(Map<Queue, java.util.ArrayDeque<Job>> later, Queue q, Job j) {
            later.computeIfAbsent(q, k -> new java.util.ArrayDeque<>()).add(j);
        }

        /** Whether a job started (its gang holds), and whether a task was left out at its queue's share line. */
        private record Start(boolean started, boolean ceilingHit) {}

        /**
         * Places every pending task that fits (a node, then, with {@code withinShare}, the queue's deserved share in
         * what the task asks, then the queue's capability); binds them if the gang then holds.
         */
        private Start startIfWhole(Queue q, Job j, boolean withinShare) {
            Tx tx = new Tx();
            boolean ceilingHit = false;
            for (Task t : j.pending) {
                if (t.placed) continue;
                Node n = index.best(t.pod);
                if (n == null) continue;
                if (withinShare && !q.allocated.add(t.share).withinIn(q.deserved, t.share)) {
                    ceilingHit = true;
                    continue;
                }
                if (!q.realCapability.admits(q.allocated, t.share)) continue;
                tx.place(t, n);
            }
            if (gangHolds(j, tx)) {
                for (Task t : tx.placedTasks) {
                    bindings.add(new Binding(t.id(), tx.nodeOf.get(t).spec.name(), GANG_RULE));
                    t.placed = true;
                }
                j.boundCount += tx.placedTasks.size();
                return new Start(true, ceilingHit);
            }
            tx.undo();
            return new Start(false, ceilingHit);
        }

        /**
         * At least minMember members run or are placed, and each role its minimum — the role minimums only when
         * minMember is at least their sum (Volcano's reading of a PodGroup).
         */
        private static boolean gangHolds(Job j, Tx tx) {
            int placed = tx == null ? 0 : tx.placedTasks.size();
            if (j.members() + placed < Math.max(1, j.minMember)) return false;
            int sum = 0;
            for (int m : j.minTaskMember.values()) sum += m;
            if (j.minMember < sum) return true;
            for (Map.Entry<String, Integer> e : j.minTaskMember.entrySet()) {
                if (j.aliveInRole(e.getKey()) + (tx == null ? 0 : tx.placedInRole(e.getKey())) < e.getValue()) return false;
            }
            return true;
        }

        // ---- preemption and reclaim -----------------------------------------------------------------------

        void preempt() {
            for (Queue q : queuesInOrder()) {
                if (!q.open) continue;
                for (Job j : q.jobs) {
                    if (!starving(j)) continue;
                    Predicate<Task> eligible = t -> t.running() && !t.evicted && !RefState.shieldedFromPreemption(t)
                            && t.job != j && t.job.queueName.equals(q.name()) && t.job.priority < j.priority;
                    if (!anyRunning(q, eligible)) continue;
                    withVictims(q, j, eligible, Map.of(), null, false, "preempt", PREEMPT_RULE);
                }
            }
        }

        private static boolean anyRunning(Queue q, Predicate<Task> eligible) {
            for (Job j : q.jobs) for (Task t : j.running) if (eligible.test(t)) return true;
            return false;
        }

        void reclaim() {
            for (Queue q : queuesInOrder()) {
                if (!q.open || q.overused) continue;
                Map<String, Resources> floors = new HashMap<>();
                for (Queue v : s.queues.values()) {
                    if (v != q && v.spec.reclaimable() && v.aboveDeserved) floors.put(v.name(), v.deserved.max(v.guarantee));
                }
                if (floors.isEmpty()) continue;
                Predicate<Task> eligible = t -> t.running() && !t.evicted && !RefState.shieldedFromReclaim(t)
                        && floors.containsKey(t.job.queueName);
                if (!anyInFloors(floors, t -> t.running() && !RefState.shieldedFromReclaim(t))) continue;
                for (Job j : q.jobs) {
                    if (q.covers(q.deserved) || !anyAboveFloor(floors)) break;
                    if (!starving(j)) continue;
                    withVictims(q, j, eligible, floors, q.deserved, true, "reclaim", RECLAIM_RULE);
                }
            }
        }

        private boolean anyInFloors(Map<String, Resources> floors, Predicate<Task> p) {
            for (String name : floors.keySet()) {
                for (Job j : s.queues.get(name).jobs) for (Task t : j.running) if (p.test(t)) return true;
            }
            return false;
        }

        private boolean anyAboveFloor(Map<String, Resources> floors) {
            for (Map.Entry<String, Resources> f : floors.entrySet()) {
                if (!s.queues.get(f.getKey()).allocated.fitsIn(f.getValue())) return true;
            }
            return false;
        }

        private List<Queue> queuesInOrder() {
            List<Queue> qs = new ArrayList<>(s.queues.values());
            qs.sort(RefState.QUEUE_ORDER);
            return qs;
        }

        /**
         * Admitted, some pending task not yet placed this cycle, not already waiting on victims, may preempt, and its
         * gang cannot start with what runs (Volcano's starving job).
         */
        private static boolean starving(Job j) {
            return j.admitted() && j.wantsMore() && !j.pipelined && j.mayPreempt && !gangHolds(j, null);
        }

        /**
         * Places the job's unplaced pending tasks in task order, evicting where idle capacity is short, until one finds
         * no room. Kept (pipelined: binding in a later cycle) only if the gang then holds, something must leave first,
         * and the evictions fit this cycle's eviction budgets. {@code ceiling} null: preemption, the queue's
         * capability binds the victim search. Otherwise reclaim: the queue may grow only up to {@code ceiling} in the
         * dimensions a task needs. Returns whether the job was pipelined.
         */
        private boolean withVictims(Queue q, Job j, Predicate<Task> eligible, Map<String, Resources> floors,
                                    Resources ceiling, boolean hysteresis, String action, String rule) {
            Tx tx = new Tx();
            int waitsOnTerminating = 0;
            for (Task t : j.pending) {
                if (t.placed) continue;
                // Volcano stops a starving job once its gang can start; the rest wait for free capacity.
                if (gangHolds(j, tx)) break;
                Resources after = q.allocated.add(t.share);
                boolean underCap = q.realCapability.admits(q.allocated, t.share);
                if (ceiling != null && (!underCap || !after.withinIn(ceiling, t.share))) break;
                Node n = underCap ? index.best(t.pod) : null;
                if (n == null && underCap) {
                    n = index.bestOnceReleased(t.pod);
                    if (n != null) waitsOnTerminating++;
                }
                if (n == null) {
                    VictimSearch.Plan plan = victims.find(t, eligible.and(v -> !queueBudgetSpent(v.job.queueName)), floors,
                            ceiling == null ? q.realCapability : Caps.UNLIMITED, hysteresis);
                    if (plan == null) break;
                    for (Task v : plan.victims()) tx.evict(v);
                    n = plan.node();
                }
                tx.place(t, n);
            }
            if (!gangHolds(j, tx) || (tx.evicted.isEmpty() && waitsOnTerminating == 0) || overspends(tx.evicted)) {
                tx.undo();
                return false;
            }
            if (tx.evicted.size() > 1) addBack(q, tx);
            j.pipelined = true;
            for (Task t : tx.placedTasks) t.placed = true;
            held.addAll(tx.placedTasks);
            for (Task t : tx.placedTasks) heldOn.add(tx.nodeOf.get(t));
            for (Task v : tx.evicted) {
                lostThisCycle.add(v);
                evictedPerQueue.merge(v.job.queueName, 1, Integer::sum);
                evictions.add(new Eviction(v.id(), v.node.spec.name(), action, j.id, rule,
                        action + " by " + j.id + " (priority " + j.priority + ") from queue \"" + v.job.queueName + "\""));
            }
            return true;
        }

        /**
         * Kueue's add-back for the whole gang: once every member is placed, each victim job (the last chosen first)
         * stays after all if every placement keeps its room and the queue its capability: all the pods it lost, else
         * each of them (the last first) while the job keeps its minimum. Never a victim that may matter to a placed
         * pod's rules about other pods ({@link #mayMatter}).
         */
        private void addBack(Queue q, Tx tx) {
            Map<Job, List<Task>> lostBy = new java.util.LinkedHashMap<>();
            for (Task v : tx.evicted) lostBy.computeIfAbsent(v.job, k -> new ArrayList<>()).add(v);
            List<Job> jobs = new ArrayList<>(lostBy.keySet());
            Resources placedShare = Resources.NONE;
            for (Task t : tx.placedTasks) placedShare = placedShare.add(t.share);
            for (int k = jobs.size() - 1; k >= 0; k--) {
                List<Task> lost = lostBy.get(jobs.get(k));
                if (keepIfUnneeded(q, tx, lost, placedShare) || lost.size() < 2) continue;
                Job v = jobs.get(k);
                for (int i = lost.size() - 1; i >= 0; i--) {
                    if (v.members() + 1 < Math.max(1, v.minMember)) break;
                    keepIfUnneeded(q, tx, List.of(lost.get(i)), placedShare);
                }
            }
        }

        private boolean keepIfUnneeded(Queue q, Tx tx, List<Task> keep, Resources placedShare) {
            List<Node> on = new ArrayList<>();
            for (Task t : tx.placedTasks) on.add(tx.nodeOf.get(t));
            for (Task v : keep) if (mayMatter(v, tx.placedTasks, on)) return false;
            for (Task v : keep) tx.unevict(v);
            boolean fine = true;
            for (Task v : keep) if (v.node.free.anyNegative()) fine = false;
            if (fine && !q.realCapability.admits(q.allocated.subtract(placedShare), placedShare)) fine = false;
            if (fine) return true;
            for (Task v : keep) tx.evict(v);
            return false;
        }

        /** The pods evicted this cycle, in order, and the pods held for the jobs they were evicted for. */
        private final List<Task> lostThisCycle = new ArrayList<>();
        private final List<Task> held = new ArrayList<>();
        private final List<Node> heldOn = new ArrayList<>();

        /**
         * A victim back on its node may change whether a held pod fits: it holds a required anti-affinity, or a held
         * pod's anti-affinity term or DoNotSchedule spread selects it and its node shares that rule's domain with the
         * held pod's (a host port: the same node).
         */
        private boolean mayMatter(Task victim, List<Task> placed, List<Node> on) {
            if (!victim.pod.placement().podAntiAffinity().required().isEmpty()) return true;
            for (int i = 0; i < placed.size(); i++) {
                if (!placed.get(i).pod.placement().indifferentTo(on.get(i).spec, victim.node.spec, victim.pod)) return true;
            }
            return false;
        }

        /**
         * The add-back across the cycle's jobs, after preemption and reclaim: victim jobs, the last evicted from first,
         * stay after all if every held pod keeps its room and the victim's queue its capability — all the pods the job
         * lost this cycle, else each (the last first) while the job keeps its minimum. Never a victim that may matter
         * to a held pod's rules ({@link #mayMatter}).
         */
        void addBackAcrossJobs() {
            if (lostThisCycle.size() < 2) return;
            Map<Job, List<Task>> lostBy = new java.util.LinkedHashMap<>();
            for (Task v : lostThisCycle) lostBy.computeIfAbsent(v.job, k -> new ArrayList<>()).add(v);
            List<Job> jobs = new ArrayList<>(lostBy.keySet());
            for (int k = jobs.size() - 1; k >= 0; k--) {
                List<Task> lost = lostBy.get(jobs.get(k));
                if (stays(lost) || lost.size() < 2) continue;
                Job v = jobs.get(k);
                for (int i = lost.size() - 1; i >= 0; i--) {
                    if (v.members() + 1 < Math.max(1, v.minMember)) break;
                    stays(List.of(lost.get(i)));
                }
            }
        }

        private boolean stays(List<Task> these) {
            Resources share = Resources.NONE;
            for (Task v : these) {
                if (mayMatter(v, held, heldOn)) return false;
                share = share.add(v.share);
            }
            for (Task v : these) putBack(v, true);
            boolean fine = true;
            for (Task v : these) if (v.node.free.anyNegative()) fine = false;
            Queue vq = s.queues.get(these.get(0).job.queueName);
            if (fine && vq != null && !vq.realCapability.admits(vq.allocated.subtract(share), share)) fine = false;
            if (!fine) {
                for (Task v : these) putBack(v, false);
                return false;
            }
            for (Task v : these) {
                lostThisCycle.remove(v);
                evictions.removeIf(e -> e.pod().equals(v.id()));
                evictedPerQueue.merge(v.job.queueName, -1, Integer::sum);
            }
            return true;
        }

        /** {@code v} runs on its node again ({@code back}), or is evicted: its node, rules and queue follow. */
        private void putBack(Task v, boolean back) {
            Queue q = s.queues.get(v.job.queueName);
            if (back) {
                v.evicted = false;
                index.take(v.node, v.req);
                rules.add(v.pod, v.node);
                if (q != null) q.allocated = q.allocated.add(v.share);
            } else {
                v.evicted = true;
                index.give(v.node, v.req);
                rules.remove(v.pod);
                if (q != null) q.allocated = q.allocated.subtract(v.share);
            }
        }

        /** The queue has used its per-queue eviction budget this cycle, so it offers no more victims. */
        private boolean queueBudgetSpent(String queue) {
            return evictedPerQueue.getOrDefault(queue, 0) >= RefState.MAX_EVICTIONS_PER_QUEUE;
        }

        /**
         * Whether these evictions would pass this cycle's budgets, in all and per victim queue. A budget limits what
         * is added to evictions already made: the first gang to evict (in all, or from a queue) may exceed it.
         */
        private boolean overspends(List<Task> gangVictims) {
            if (!evictions.isEmpty() && evictions.size() + gangVictims.size() > RefState.MAX_EVICTIONS_PER_CYCLE) return true;
            Map<String, Integer> perQueue = new HashMap<>();
            for (Task v : gangVictims) perQueue.merge(v.job.queueName, 1, Integer::sum);
            for (Map.Entry<String, Integer> e : perQueue.entrySet()) {
                int already = evictedPerQueue.getOrDefault(e.getKey(), 0);
                if (already > 0 && already + e.getValue() > RefState.MAX_EVICTIONS_PER_QUEUE) return true;
            }
            return false;
        }

        // ---- status ----------------------------------------------------------------------------------------

        List<PodGroupStatus> groupStatuses() {
            List<PodGroupStatus> out = new ArrayList<>();
            for (Job j : s.jobs.values()) {
                int running = j.alive() + j.boundCount;
                String phase = running > 0 && running >= j.minMember ? "Running" : j.admitted() ? "Inqueue" : "Pending";
                out.add(new PodGroupStatus(j.id, j.queueName, phase, j.minMember, running,
                        j.pending.size() - j.boundCount, null, null));
            }
            return out;
        }

        List<QueueStatus> queueStatuses(List<PodGroupStatus> groups) {
            Map<String, int[]> counts = new HashMap<>();
            for (PodGroupStatus g : groups) {
                int[] c = counts.computeIfAbsent(g.queue(), k -> new int[3]);
                c[g.phase().equals("Pending") ? 0 : g.phase().equals("Inqueue") ? 1 : 2]++;
            }
            List<QueueStatus> out = new ArrayList<>();
            for (Queue q : s.queues.values()) {
                int[] c = counts.getOrDefault(q.name(), new int[3]);
                out.add(new QueueStatus(q.name(), q.spec.parent(), q.spec.weight(), q.spec.state(), q.deserved,
                        q.allocated, c[0], c[1], c[2]));
            }
            return out;
        }

        /** A gang's tentative placements and evictions, applied at once and undone newest first. */
        private final class Tx {
            final List<Task> placedTasks = new ArrayList<>();
            final Map<Task, Node> nodeOf = new HashMap<>();
            final List<Task> evicted = new ArrayList<>();
            final List<Object[]> log = new ArrayList<>();

            void place(Task t, Node n) {
                index.take(n, t.req);
                rules.add(t.pod, n);
                queueOf(t).allocated = queueOf(t).allocated.add(t.share);
                placedTasks.add(t);
                nodeOf.put(t, n);
                log.add(new Object[] {t, n, Boolean.FALSE});
            }

            void evict(Task v) {
                putBack(v, false);
                evicted.add(v);
                log.add(new Object[] {v, v.node, Boolean.TRUE});
            }

            /** Takes back the eviction of {@code v}; the other steps stand. */
            void unevict(Task v) {
                for (int i = log.size() - 1; i >= 0; i--) {
                    if (log.get(i)[0] != v || !(Boolean) log.get(i)[2]) continue;
                    log.remove(i);
                    putBack(v, true);
                    evicted.remove(v);
                    return;
                }
                throw new IllegalStateException(v.id() + " is not evicted in this transaction");
            }

            int placedInRole(String role) {
                int n = 0;
                for (Task t : placedTasks) if (t.role.equals(role)) n++;
                return n;
            }

            void undo() {
                for (int i = log.size() - 1; i >= 0; i--) {
                    Task t = (Task) log.get(i)[0];
                    Node n = (Node) log.get(i)[1];
                    Queue q = queueOf(t);
                    if ((Boolean) log.get(i)[2]) {
                        putBack(t, true);
                    } else {
                        index.give(n, t.req);
                        rules.remove(t.pod);
                        if (q != null) q.allocated = q.allocated.subtract(t.share);
                    }
                }
                log.clear();
                placedTasks.clear();
                nodeOf.clear();
                evicted.clear();
            }

            private Queue queueOf(Task t) {
                return s.queues.get(t.job.queueName);
            }
        }
    }
}
