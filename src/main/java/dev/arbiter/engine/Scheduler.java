package dev.arbiter.engine;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
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
        return new CycleResult(cycle, rules.generation(), c.bindings, c.evictions, groups, queues, timings, trace.fired());
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
        private final Map<Job, Integer> boundThisCycle = new HashMap<>();

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
            for (Task t : state.tasks) t.isProtected = policy.protectedTasks().containsKey(t.id());
        }

        // ---- 3. admission -------------------------------------------------------------------------------------

        void admit() {
            for (Job j : state.jobs.values()) {
                if (!j.initialPhase.equals("Pending")) continue;
                AdmissionDenied d = policy.denials().get(j.id);
                if (d != null) j.setReason(d.reason(), d.rule());
            }
            for (QueueState q : state.queues.values()) {
                AdmissionBudget budget = policy.budgets().get(q.name());
                Caps room = budget == null ? null : budget.room();
                for (Job j : q.jobs) {
                    if (!j.initialPhase.equals("Pending") || policy.denials().containsKey(j.id)) continue;
                    if (room == null) {
                        j.setReason("queue \"" + q.name() + "\" admits nothing: no admission rule grants it a budget", null);
                    } else if (room.admits(j.minResources)) {
                        j.phase = "Inqueue";
                        room = room.minus(j.minResources);
                    } else if (policy.grants().containsKey(j.id)) {
                        j.phase = "Inqueue";
                    } else {
                        j.setReason("queue \"" + q.name() + "\" capability exhausted: minResources short of "
                                + room.excess(j.minResources), budget.rule());
                    }
                }
            }
        }

        private static boolean admitted(Job j) {
            return j.phase.equals("Inqueue") || j.phase.equals("Running");
        }

        // ---- 4. allocation ------------------------------------------------------------------------------------

        void allocate() {
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
                allocateJob(q, j);
                order.add(q);
            }
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

        private void allocateJob(QueueState q, Job j) {
            GangTransaction tx = new GangTransaction(state.queues, fitter);
            String firstFailure = null;
            for (Task t : j.pending) {
                NodeState n = fitter.best(t.pod);
                if (n == null) {
                    if (firstFailure == null) firstFailure = fitter.whyNoFit(t.pod);
                    continue;
                }
                if (!q.hardCap().admits(q.allocated.add(t.request()))) {
                    if (firstFailure == null) firstFailure = "queue \"" + q.name() + "\" capability reached: short of "
                            + q.hardCap().excess(q.allocated.add(t.request()));
                    continue;
                }
                tx.place(t, n);
            }
            GangRequirement gang = policy.gangs().get(j.id);
            if (gang != null && gangSatisfied(j, gang, tx)) {
                for (Task t : tx.placements()) bindings.add(new Binding(t.id(), tx.nodeOf(t).name(), gang.rule()));
                boundThisCycle.merge(j, tx.placed(), Integer::sum);
                j.placedThisCycle = j.pending.size();
                j.reason = null;
                j.reasonRule = null;
            } else {
                int placeable = j.liveRunning() + tx.placed();
                tx.discard();
                if (gang == null) {
                    j.setReason("no rule states this job's gang requirement", null);
                } else {
                    j.setReason("gang of " + gang.minMember() + " needs " + gang.minMember() + " tasks, " + placeable
                            + " placeable" + (firstFailure == null ? "" : ": " + firstFailure), gang.rule());
                }
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
                List<Task> candidates = runningUnprotected(List.of(q.name()));
                candidates.sort(Comparator.comparingInt(t -> t.job.priority));
                if (candidates.isEmpty()) continue;
                for (Job j : q.jobs) {
                    if (!starving(j)) continue;
                    List<Task> pool = grant.lowerPriorityOnly()
                            ? candidates.subList(0, countBelow(candidates, j.priority)) : candidates;
                    if (pool.isEmpty()) continue;
                    Object key = List.of("preempt", q.name(), grant.lowerPriorityOnly() ? j.priority : 0);
                    startWithVictims(q, j, new VictimSelector.Terms(pool, t -> t.job != j, Map.of(), q.hardCap(),
                            Resources.NONE, key), null, "preempt", grant.rule());
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

        private List<Task> runningUnprotected(java.util.Collection<String> queueNames) {
            List<Task> out = new ArrayList<>();
            for (String name : queueNames) {
                QueueState vq = state.queues.get(name);
                if (vq == null) continue;
                for (Job vj : vq.jobs) for (Task t : vj.running) if (!t.isProtected) out.add(t);
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
                List<Task> pool = runningUnprotected(floors.keySet());
                if (pool.isEmpty()) continue;
                Resources ceiling = grants.get(0).reclaimerCeiling();
                Object key = List.of("reclaim", q.name());
                for (Job j : q.jobs) {
                    if (q.reached(ceiling) || !anyAboveFloor(floors)) break;
                    if (!starving(j)) continue;
                    startWithVictims(q, j, new VictimSelector.Terms(pool, t -> true, floors, Caps.UNLIMITED,
                            Resources.NONE, key), ceiling, "reclaim", grants.get(0).rule());
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

        /** Admitted, still has pending tasks, did not start this cycle, is not already waiting on victims, may preempt. */
        private boolean starving(Job j) {
            return admitted(j) && j.hasPending() && !j.pipelined && j.mayPreempt
                    && !gangReady(j);
        }

        private boolean gangReady(Job j) {
            GangRequirement g = policy.gangs().get(j.id);
            return g != null && boundThisCycle.containsKey(j);
        }

        /**
         * Places the gang's tasks, in task order, until its requirement holds, evicting victims where idle capacity
         * is not enough. Commits evictions and holds the placements (pipelined: they bind next cycle, once the
         * victims are gone) only if the whole requirement can be met; otherwise nothing changes.
         *
         * <p>Preemption ({@code ceiling} null) evicts within the queue, so it may also make room under the queue's
         * capability. Reclaim takes from other queues, so the queue may grow only up to {@code ceiling} (its
         * deserved share) in the dimensions each task needs, and never past its capability.
         */
        private void startWithVictims(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling,
                                      String action, String rule) {
            boolean capBinds = ceiling == null;
            GangRequirement gang = policy.gangs().get(j.id);
            if (gang == null) return;
            GangTransaction tx = new GangTransaction(state.queues, fitter);
            int waitsOnTerminating = 0;
            for (Task t : j.pending) {
                if (gangSatisfied(j, gang, tx)) break;
                Resources after = q.allocated.add(t.request());
                boolean capOk = q.hardCap().admits(after);
                if (!capBinds && (!capOk || !after.withinIn(ceiling, t.request()))) break;
                NodeState n = capOk ? fitter.best(t.pod) : null;
                if (n == null && capOk) {
                    // Pods already on their way out count before anyone else is evicted.
                    n = fitter.bestOnceReleased(t.pod);
                    if (n != null) waitsOnTerminating++;
                }
                if (n == null) {
                    VictimSelector.Plan plan = victims.find(t, new VictimSelector.Terms(terms.pool(), terms.eligible(),
                            terms.floors(), terms.preemptorCap(), q.allocated, terms.key()));
                    if (plan == null) break;
                    for (Task v : plan.victims()) tx.evict(v);
                    n = plan.node();
                }
                tx.place(t, n);
            }
            if (!gangSatisfied(j, gang, tx) || (tx.evictions().isEmpty() && waitsOnTerminating == 0)) {
                tx.discard();
                return;
            }
            j.pipelined = true;
            if (tx.evictions().isEmpty()) {
                j.setReason("waiting for terminating pods to leave " + waitsOnTerminating + " node(s)", rule);
                return;
            }
            for (Task v : tx.evictions()) {
                evictions.add(new Eviction(v.id(), v.node.name(), action, j.id, rule,
                        action + " by " + j.id + " (priority " + j.priority + ") from queue \"" + v.job.queue + "\""));
            }
            j.setReason("waiting for " + tx.evictions().size() + " evicted pod(s) to leave (" + action + ")", rule);
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
                out.add(new QueueStatus(q.name(), q.spec.parent(), q.spec.weight(), q.spec.state(), q.deserved(),
                        q.allocated, c[0], c[1], c[2]));
            }
            return out;
        }
    }
}
