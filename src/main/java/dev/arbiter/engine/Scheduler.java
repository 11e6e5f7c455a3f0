package dev.arbiter.engine;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.facts.ChurnSettings;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * One scheduling cycle: snapshot → rules → decisions. Nothing here writes to a cluster; the caller (simulator or
 * actuator) executes the returned {@link CycleResult}.
 *
 * <p>The steps, in the order Volcano runs its actions:
 * <ol>
 *   <li>Index the snapshot into a working copy.</li>
 *   <li>Fire the rules: priorities, fair shares, and the policy facts the next steps obey.</li>
 *   <li>Admit: Pending jobs become Inqueue, in job order, while they fit their queue's admission budget.</li>
 *   <li>Allocate: queues in queue order (re-sorted after each job), jobs in job order; each gang is a transaction
 *       that commits only if its gang requirement holds.</li>
 *   <li>Preempt: jobs that could not start evict lower-priority work of their own queue.</li>
 *   <li>Reclaim: queues below their deserved share evict work of reclaimable queues above theirs.</li>
 *   <li>Report PodGroup and Queue status.</li>
 * </ol>
 */
public final class Scheduler {
    private final RuleBook rules;
    private final SchedulerConfig config;

    public Scheduler(RuleBook rules, SchedulerConfig config) {
        this.rules = rules;
        this.config = config;
    }

    public RuleBook rules() {
        return rules;
    }

    public CycleResult schedule(ClusterSnapshot snapshot, int cycle) {
        Map<String, Double> timings = new LinkedHashMap<>();
        long t0 = System.nanoTime();

        // 1. Index the immutable snapshot into this cycle's working copy.
        CycleState state = CycleState.index(snapshot, config.schedulerNames());
        long t1 = lap(timings, "snapshot", t0);

        // 2. Fire the rules.
        RuleTrace trace = new RuleTrace();
        Policy policy = PolicyEvaluation.run(rules, state, snapshot.priorityClasses(), timings, trace);
        long t2 = lap(timings, "rules", t1);

        Cycle c = new Cycle(state, policy, config);
        // 3. Admit.
        c.admit();
        long t3 = lap(timings, "enqueue", t2);
        // 4. Allocate.
        c.allocate();
        long t4 = lap(timings, "allocate", t3);
        // 5. Preempt, then 6. reclaim.
        c.preempt();
        c.reclaim();
        long t5 = lap(timings, "victims", t4);
        // 7. Status.
        List<PodGroupStatus> groups = c.podGroupStatuses();
        List<QueueStatus> queues = c.queueStatuses(groups);
        lap(timings, "status", t5);
        return new CycleResult(cycle, rules.generation(), c.bindings, c.evictions, groups, queues, timings, trace.fired(),
                c.nominations);
    }

    private static long lap(Map<String, Double> timings, String phase, long since) {
        long now = System.nanoTime();
        timings.put(phase, (now - since) / 1e6);
        return now;
    }

    /** The mutable work of one cycle. */
    private static final class Cycle {
        private final CycleState state;
        private final Policy policy;
        private final NodeFitter fitter;
        private final VictimSelector victims;
        private final Comparator<QueueState> queueOrder;
        private final Comparator<Task> taskOrder;
        private final List<Binding> bindings = new ArrayList<>();
        private final List<Eviction> evictions = new ArrayList<>();
        private final List<Nomination> nominations = new ArrayList<>();
        private final Map<Job, Integer> boundThisCycle = new HashMap<>();
        private final Map<String, Integer> evictedPerQueue = new HashMap<>();

        Cycle(CycleState state, Policy policy, SchedulerConfig config) {
            this.state = state;
            this.policy = policy;
            this.fitter = new NodeFitter(state.nodes,
                    config.scoring().equals("spread") ? NodeFitter.Scoring.SPREAD : NodeFitter.Scoring.BINPACK);
            this.victims = new VictimSelector(state, fitter, policy.victimOrder());
            this.queueOrder = Orders.queues(policy.orders());
            this.taskOrder = Orders.tasks(policy.orders());
            Comparator<Job> jobOrder = Orders.jobs(policy.orders());
            for (QueueState q : state.queues.values()) {
                q.jobs.sort(jobOrder);
                q.limit = policy.limits().get(q.name());
            }
            for (Job j : state.jobs.values()) j.pending.sort(taskOrder);
            for (Task t : state.tasks) t.protection = policy.protectedTasks().get(t.id());
        }

        // ---- 3. admission -------------------------------------------------------------------------------------

        void admit() {
            for (Job j : state.jobs.values()) {
                if (!j.initialPhase.equals("Pending")) continue;
                AdmissionDenied d = policy.denials().get(j.id);
                if (d != null) j.setReason(d.reason(), d.rule());
            }
            Map<QueueState, Caps> rooms = new HashMap<>();
            for (QueueState q : state.queues.values()) {
                AdmissionBudget b = policy.budgets().get(q.name());
                if (b != null) rooms.put(q, b.room());
            }
            for (QueueState q : state.queues.values()) {
                Job head = null;
                for (Job j : q.jobs) {
                    if (!j.initialPhase.equals("Pending") || policy.denials().containsKey(j.id)) continue;
                    if (head != null) {
                        j.setReason(behindHead(q, head), policy.dequeue().get(q.name()).rule());
                        continue;
                    }
                    String refusal = admitAlongTree(q, j, rooms);
                    if (refusal == null || policy.grants().containsKey(j.id)) {
                        j.phase = "Inqueue";
                        continue;
                    }
                    AdmissionBudget b = policy.budgets().get(q.name());
                    j.setReason(refusal, b == null ? null : b.rule());
                    if (policy.fifo(q.name())) head = j;
                }
            }
        }

        /**
         * Admits a job if its minimum resources fit the admission room of its queue and of every ancestor, taking
         * them from each; otherwise returns why not and changes nothing.
         */
        private static String admitAlongTree(QueueState q, Job j, Map<QueueState, Caps> rooms) {
            for (QueueState a = q; a != null; a = a.parent) {
                Caps room = rooms.get(a);
                if (room == null) return "queue \"" + a.name() + "\" admits nothing: no admission rule grants it a budget";
                if (!room.admits(j.minResources)) {
                    return "queue \"" + a.name() + "\" capability exhausted: minResources short of " + room.excess(j.minResources);
                }
            }
            for (QueueState a = q; a != null; a = a.parent) rooms.put(a, rooms.get(a).minus(j.minResources));
            return null;
        }

        private static String behindHead(QueueState q, Job head) {
            return "waiting behind " + head.id + ", the head of fifo queue \"" + q.name() + "\"";
        }

        private static boolean admitted(Job j) {
            return j.phase.equals("Inqueue") || j.phase.equals("Running");
        }

        // ---- 4. allocation ------------------------------------------------------------------------------------

        void allocate() {
            startNominatedJobs();
            PriorityQueue<QueueState> order = new PriorityQueue<>(queueOrder);
            for (QueueState q : state.queues.values()) {
                q.cursor = 0;
                if (q.limit == null) {
                    for (Job j : q.jobs) if (admitted(j) && j.hasPending() && j.reason == null)
                        j.setReason("queue \"" + q.name() + "\" allocates nothing: it is not open", null);
                    continue;
                }
                order.add(q);
            }
            while (!order.isEmpty()) {
                QueueState q = order.poll();
                Job j = nextJob(q);
                if (j == null) continue;
                if (q.reached(q.limit.ceiling())) {
                    markOverused(q, j);
                    continue;
                }
                if (!allocateJob(q, j) && policy.fifo(q.name())) {
                    blockBehind(q, j);
                    continue;
                }
                order.add(q);
            }
        }

        /** In a fifo queue, a head job that cannot start holds back every job behind it. */
        private void blockBehind(QueueState q, Job head) {
            String rule = policy.dequeue().get(q.name()).rule();
            Job j;
            while ((j = nextJob(q)) != null) j.setReason(behindHead(q, head), rule);
        }

        private Job nextJob(QueueState q) {
            while (q.cursor < q.jobs.size()) {
                Job j = q.jobs.get(q.cursor++);
                if (admitted(j) && j.hasPending()) return j;
            }
            return null;
        }

        private void markOverused(QueueState q, Job first) {
            String reason = "queue \"" + q.name() + "\" is overused: allocated " + q.allocated + " covers deserved "
                    + q.deserved();
            first.setReason(reason, q.limit.rule());
            Job j;
            while ((j = nextJob(q)) != null) j.setReason(reason, q.limit.rule());
        }

        /**
         * Jobs whose room the previous cycle made by evicting others go first, whatever their queue's share: the
         * evictions were for them (a preemption swaps work inside a queue, so an overused queue may still take it).
         * Capability still binds.
         */
        private void startNominatedJobs() {
            for (QueueState q : sortedQueues()) {
                if (q.limit == null) continue;
                for (Job j : q.jobs) {
                    boolean nominated = false;
                    for (Task t : j.pending) nominated |= t.holding;
                    if (nominated && admitted(j)) allocateJob(q, j);
                }
            }
        }

        /** Gives the room held for the job's nominated tasks back to the node, for the job itself to use. */
        private void releaseNominatedRoom(Job j) {
            for (Task t : j.pending) {
                if (t.holding) {
                    t.nominated.give(t.request());
                    t.holding = false;
                    fitter.capacityReleased();
                }
            }
        }

        /** Holds the room again for nominated tasks the job could not place (it keeps waiting for them). */
        private void holdNominatedRoom(Job j) {
            for (Task t : j.pending) {
                if (t.nominated != null && !t.holding && !t.placed) {
                    if (t.request().fitsIn(t.nominated.free())) {
                        t.nominated.take(t.request());
                        t.holding = true;
                    } else {
                        t.nominated = null;
                    }
                }
            }
        }

        /** Tries to start one gang; true if it started. */
        private boolean allocateJob(QueueState q, Job j) {
            releaseNominatedRoom(j);
            GangTransaction tx = new GangTransaction(state.queues, fitter);
            String firstFailure = null;
            for (Task t : j.pending) {
                NodeState n = fitter.best(t.pod);
                if (n == null) {
                    if (firstFailure == null) firstFailure = fitter.whyNoFit(t.pod);
                    continue;
                }
                QueueState blocker = q.capabilityBlocker(t.share());
                if (blocker != null) {
                    if (firstFailure == null) firstFailure = "queue \"" + blocker.name() + "\" capability reached: short of "
                            + blocker.hardCap().excess(blocker.allocated.add(t.share()));
                    continue;
                }
                tx.place(t, n);
            }
            GangRequirement gang = policy.gangs().get(j.id);
            if (gang != null && gangSatisfied(j, gang, tx)) {
                for (Task t : tx.placements()) bindings.add(new Binding(t.id(), tx.nodeOf(t).name(), gang.rule()));
                boundThisCycle.merge(j, tx.placed(), Integer::sum);
                for (Task t : tx.placements()) t.placed = true;
                j.reason = null;
                j.reasonRule = null;
                return true;
            } else {
                int placeable = j.liveRunning() + tx.placed();
                tx.discard();
                holdNominatedRoom(j);
                if (gang == null) {
                    j.setReason("no rule states this job's gang requirement", null);
                } else {
                    j.setReason("gang of " + gang.minMember() + " needs " + gang.minMember() + " tasks, " + placeable
                            + " placeable" + (firstFailure == null ? "" : ": " + firstFailure), gang.rule());
                }
                return false;
            }
        }

        private static boolean gangSatisfied(Job j, GangRequirement g, GangTransaction tx) {
            if (j.liveRunning() + tx.placed() < Math.max(g.minMember(), 1)) return false;
            Map<String, Integer> running = j.liveRunningByRole();
            for (Map.Entry<String, Integer> e : g.minTaskMember().entrySet()) {
                if (running.getOrDefault(e.getKey(), 0) + tx.placedInRole(e.getKey()) < e.getValue()) return false;
            }
            return true;
        }

        // ---- 5. preemption ------------------------------------------------------------------------------------

        void preempt() {
            for (QueueState q : sortedQueues()) {
                PreemptGrant grant = policy.preemptGrants().get(q.name());
                if (grant == null) continue;
                // The queue's possible victims, lowest job priority first: a preemptor may take a prefix of them.
                List<Task> candidates = runningUnprotected(List.of(q.name()), true);
                candidates.sort(Comparator.comparingInt(t -> t.job.priority));
                if (candidates.isEmpty()) continue;
                for (Job j : q.jobs) {
                    if (!starving(j)) continue;
                    List<Task> pool = grant.lowerPriorityOnly()
                            ? candidates.subList(0, countBelow(candidates, j.priority)) : candidates;
                    Object key = List.of("preempt", q.name(), grant.lowerPriorityOnly() ? j.priority : 0);
                    // The same test as the pool, for tasks the search meets on a node: only this queue's unshielded
                    // tasks of strictly lower priority (when the grant says so), never the preemptor's own.
                    java.util.function.Predicate<Task> eligible = t -> t.job != j && t.job.queue.equals(q.name())
                            && (!grant.lowerPriorityOnly() || t.job.priority < j.priority)
                            && (t.protection == null || !t.protection.coversPreemption());
                    boolean started = !pool.isEmpty() && startWithVictims(q, j, new VictimSelector.Terms(pool,
                            eligible, Map.of(), q.hardCap(), Resources.NONE, q, false, key), null,
                            "preempt", grant.rule());
                    if (!started && policy.fifo(q.name())) break;
                }
            }
        }

        /** How many of {@code byPriority} (sorted by job priority) have a job priority strictly below {@code p}. */
        private static int countBelow(List<Task> byPriority, int p) {
            int lo = 0, hi = byPriority.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (byPriority.get(mid).job.priority < p) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        /** Running tasks of the queues that no rule protects from this kind of eviction. */
        private List<Task> runningUnprotected(java.util.Collection<String> queueNames, boolean forPreemption) {
            List<Task> out = new ArrayList<>();
            for (String name : queueNames) {
                QueueState vq = state.queues.get(name);
                if (vq == null) continue;
                for (Job vj : vq.jobs) {
                    for (Task t : vj.running) {
                        boolean shielded = t.protection != null && (!forPreemption || t.protection.coversPreemption());
                        if (!shielded) out.add(t);
                    }
                }
            }
            return out;
        }

        // ---- 6. reclaim ---------------------------------------------------------------------------------------

        void reclaim() {
            for (QueueState q : sortedQueues()) {
                List<ReclaimGrant> grants = policy.reclaimGrants().get(q.name());
                if (grants == null || grants.isEmpty()) continue;
                Map<String, Resources> floors = new HashMap<>();
                for (ReclaimGrant g : grants) floors.put(g.victimQueue(), g.victimFloor());
                List<Task> pool = runningUnprotected(floors.keySet(), false);
                if (pool.isEmpty()) continue;
                Resources ceiling = grants.get(0).reclaimerCeiling();
                boolean hysteresis = policy.churn() != null && policy.churn().hysteresis();
                Object key = List.of("reclaim", q.name());
                for (Job j : q.jobs) {
                    if (q.reached(ceiling) || !anyAboveFloor(floors)) break;
                    if (!starving(j)) continue;
                    boolean started = startWithVictims(q, j, new VictimSelector.Terms(pool,
                            t -> t.protection == null && floors.containsKey(t.job.queue), floors,
                            Caps.UNLIMITED, Resources.NONE, q, hysteresis, key), ceiling, "reclaim", grants.get(0).rule());
                    if (!started && policy.fifo(q.name())) break;
                }
            }
        }

        private boolean anyAboveFloor(Map<String, Resources> floors) {
            for (Map.Entry<String, Resources> f : floors.entrySet()) {
                QueueState vq = state.queues.get(f.getKey());
                if (vq != null && !vq.allocated.fitsIn(f.getValue())) return true;
            }
            return false;
        }

        private List<QueueState> sortedQueues() {
            List<QueueState> qs = new ArrayList<>(state.queues.values());
            qs.sort(queueOrder);
            return qs;
        }

        /**
         * Volcano's starving job: admitted, with pending tasks (a started elastic job may still want more), not already
         * waiting on victims, and allowed to preempt.
         */
        private boolean starving(Job j) {
            return admitted(j) && j.hasPending() && !j.pipelined && !policy.noPreemption().containsKey(j.id);
        }

        /**
         * Places the job's pending tasks in task order, evicting victims where idle capacity is not enough, until a
         * task finds no room (Volcano's starving job asks for all its tasks). Commits the evictions and holds the
         * placements (pipelined: they bind next cycle, once the victims are gone) only if the gang requirement then
         * holds; otherwise nothing changes.
         *
         * <p>Preemption ({@code ceiling} null) evicts within the queue, so it may also make room under the queue's
         * capability. Reclaim takes from other queues, so the queue may grow only up to {@code ceiling} (its
         * deserved share) in the dimensions each task needs, and never past its capability.
         */
        private boolean startWithVictims(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling,
                                         String action, String rule) {
            boolean capBinds = ceiling == null;
            GangRequirement gang = policy.gangs().get(j.id);
            if (gang == null) return false;
            releaseNominatedRoom(j);
            GangTransaction tx = new GangTransaction(state.queues, fitter);
            int waitsOnTerminating = 0;
            for (Task t : j.pending) {
                if (t.placed) continue;
                Resources after = q.allocated.add(t.share());
                boolean capOk = q.capabilityAdmits(t.share());
                if (!capBinds && (!capOk || !after.withinIn(ceiling, t.share()))) break;
                NodeState n = capOk ? fitter.best(t.pod) : null;
                if (n == null && capOk) {
                    // Pods already on their way out count before anyone else is evicted.
                    n = fitter.bestOnceReleased(t.pod);
                    if (n != null) waitsOnTerminating++;
                }
                if (n == null) {
                    VictimSelector.Plan plan = victims.find(t, terms.withAllocated(q.allocated));
                    if (plan == null) break;
                    for (Task v : plan.victims()) tx.evict(v);
                    n = plan.node();
                }
                tx.place(t, n);
            }
            if (!gangSatisfied(j, gang, tx) || (tx.evictions().isEmpty() && waitsOnTerminating == 0)) {
                tx.discard();
                holdNominatedRoom(j);
                return false;
            }
            String overBudget = overspends(tx.evictions());
            if (overBudget != null) {
                tx.discard();
                holdNominatedRoom(j);
                j.setReason(overBudget, policy.churn().rule());
                return false;
            }
            j.pipelined = true;
            for (Task t : tx.placements()) {
                t.placed = true;
                nominations.add(new Nomination(t.id(), tx.nodeOf(t).name()));
            }
            if (tx.evictions().isEmpty()) {
                j.setReason("waiting for terminating pods to leave " + waitsOnTerminating + " node(s)", rule);
                return true;
            }
            for (Task v : tx.evictions()) {
                evictedPerQueue.merge(v.job.queue, 1, Integer::sum);
                evictions.add(new Eviction(v.id(), v.node.name(), action, j.id, rule,
                        action + " by " + j.id + " (priority " + j.priority + ") from queue \"" + v.job.queue + "\""));
            }
            j.setReason("waiting for " + tx.evictions().size() + " evicted pod(s) to leave (" + action + ")", rule);
            return true;
        }

        /** Why these evictions would overspend this cycle's eviction budget (churn control), or null. */
        private String overspends(List<Task> victimsOfGang) {
            ChurnSettings churn = policy.churn();
            if (churn == null) return null;
            int max = churn.maxEvictionsPerCycle();
            if (max > 0 && evictions.size() + victimsOfGang.size() > max) {
                return "eviction budget of " + max + " pods per cycle would be exceeded (" + evictions.size()
                        + " already, " + victimsOfGang.size() + " needed)";
            }
            Map<String, Integer> perQueue = new HashMap<>();
            for (Task v : victimsOfGang) perQueue.merge(v.job.queue, 1, Integer::sum);
            int maxQ = churn.maxEvictionsPerQueuePerCycle();
            for (Map.Entry<String, Integer> e : perQueue.entrySet()) {
                int already = evictedPerQueue.getOrDefault(e.getKey(), 0);
                if (maxQ > 0 && already + e.getValue() > maxQ) {
                    return "eviction budget of " + maxQ + " pods per queue per cycle would be exceeded in queue \""
                            + e.getKey() + "\"";
                }
            }
            return null;
        }

        // ---- 7. status ----------------------------------------------------------------------------------------

        List<PodGroupStatus> podGroupStatuses() {
            List<PodGroupStatus> out = new ArrayList<>();
            for (Job j : state.jobs.values()) {
                int running = j.liveRunning() + boundThisCycle.getOrDefault(j, 0);
                int pending = j.pending.size() - boundThisCycle.getOrDefault(j, 0);
                String phase = running > 0 && running >= j.minMember ? "Running" : admitted(j) ? "Inqueue" : "Pending";
                String reason = phase.equals("Running") && !j.pipelined ? null : j.reason;
                if (reason == null && !phase.equals("Running")) reason = pending == 0 ? "no pending pods" : "not yet scheduled";
                out.add(new PodGroupStatus(j.id, j.queue, phase, j.minMember, running, pending, reason,
                        reason == null ? null : j.reasonRule));
            }
            return out;
        }

        List<QueueStatus> queueStatuses(List<PodGroupStatus> groups) {
            Map<String, int[]> counts = new HashMap<>();
            for (PodGroupStatus g : groups) {
                int[] c = counts.computeIfAbsent(g.queue(), k -> new int[3]);
                c[switch (g.phase()) { case "Pending" -> 0; case "Inqueue" -> 1; default -> 2; }]++;
            }
            List<QueueStatus> out = new ArrayList<>();
            for (QueueState q : state.queues.values()) {
                int[] c = counts.getOrDefault(q.name(), new int[3]);
                out.add(new QueueStatus(q.name(), q.parentName(), q.spec.weight(),
                        q.treeError != null ? "Closed" : q.spec.state(), q.deserved(), q.allocated, c[0], c[1], c[2],
                        q.treeError));
            }
            return out;
        }
    }
}
