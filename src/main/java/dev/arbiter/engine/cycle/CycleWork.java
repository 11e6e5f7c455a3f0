package dev.arbiter.engine.cycle;

import dev.arbiter.decision.ReasonWords;
import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.kept.KeptJob;
import dev.arbiter.engine.kept.WorkingCopy;
import dev.arbiter.engine.placement.NetworkDomains;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Orders;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.RefusedVictims;
import dev.arbiter.engine.victims.VictimSelector;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.facts.GangRequirement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared state of one cycle's Java steps: the working copy, the rules' policy, the node fitter and victim search,
 * and the decisions made so far. Each step ({@link Admission}, {@link Allocation}, {@link EvictionPhase},
 * {@link StatusReport}) reads and extends it in turn.
 */
public final class CycleWork {
    final WorkingCluster state;
    final Policy policy;
    final NodeFitter fitter;
    final VictimSelector victims;
    /** The cycle's network domains (HyperNodes and the policy's label levels). */
    final NetworkDomains domains;
    final Comparator<QueueState> queueOrder;
    /** The queues' decayed past usage this cycle, or null when the policy does not track it. */
    final dev.arbiter.engine.usage.UsageRanks usage;
    final List<Binding> bindings = new ArrayList<>();
    final List<Eviction> evictions = new ArrayList<>();
    final List<Nomination> nominations = new ArrayList<>();
    final Map<Job, Integer> boundThisCycle = new HashMap<>();
    final Map<String, Integer> evictedPerQueue = new HashMap<>();
    /** The running tasks the rules protect from eviction (each with its {@link Task#protection}). */
    final List<Task> protectedRunning = new ArrayList<>();
    /** Those of them protected because the API server refused their eviction ({@link RefusedVictims}). */
    final List<Task> refusedRunning = new ArrayList<>();

    CycleWork(WorkingCluster state, Policy policy, SchedulerConfig config) {
        this(state, policy, config, null, Map.of(), Map.of(), null);
    }

    /**
     * The work of a cycle of a scheduler that keeps its working copy ({@code copy}; null: it does not), whose snapshot
     * asks for {@code nominations} and lists {@code refused} victims (protected for the cycle, see {@link RefusedVictims}),
     * and whose queues' past usage is {@code usage} (null when the policy does not track it).
     */
    CycleWork(WorkingCluster state, Policy policy, SchedulerConfig config, WorkingCopy copy, Map<String, String> nominations,
              Map<String, dev.arbiter.model.EvictionRefusal> refused, dev.arbiter.engine.usage.UsageRanks usage) {
        this.state = state;
        this.policy = policy;
        dev.arbiter.policy.PolicySettings settings = policy.settings;
        boolean spread = settings.scoring().mode() == dev.arbiter.policy.ScoringMode.SPREAD;
        this.fitter = new NodeFitter(state, spread ? NodeFitter.Scoring.SPREAD : NodeFitter.Scoring.BINPACK,
                settings.scoring().weights(), copy == null ? null : copy.fitterStatics(state));
        this.domains = new NetworkDomains(state.nodes, state.hyperNodes, settings.topology());
        fitter.useDomains(domains);
        this.victims = new VictimSelector(state, fitter, settings.victims());
        this.usage = usage;
        this.queueOrder = usage == null ? Orders.queues(settings.orders().queues())
                : Orders.queues(settings.orders().queues(), usage::rank);
        List<dev.arbiter.policy.OrderKey<dev.arbiter.policy.JobKey>> jobKeys = settings.orders().jobs();
        Comparator<Job> jobOrder = Orders.jobs(jobKeys, Orders.readsShares(jobKeys)
                ? Orders.dominantShares(state.jobs.values(), state.clusterTotal) : j -> 0);
        for (QueueState q : state.queues.values()) {
            q.jobs.sort(jobOrder);
            q.limit = policy.limits().get(q.name());
        }
        Comparator<Task> taskOrder = Orders.tasks(settings.orders().tasks());
        // A kept job with the same tasks, of the same priorities, is in the order the last cycle sorted it into: with
        // the same priorities, only the jobs with new tasks are sorted.
        for (Job j : state.samePriorities ? state.jobsWithNewTasks : state.jobs.values()) j.pending.sort(taskOrder);
        // Only running tasks can be victims: the only tasks whose protection anyone reads.
        // Pods whose eviction the API server refused are protected like those the rules protect.
        Map<String, dev.arbiter.facts.Protected> protectedTasks = RefusedVictims.withRefused(policy.protectedTasks(), refused);
        if (protectedTasks.isEmpty()) {
            // none: every task starts the cycle unprotected
        } else if (state.runningById != null && protectedTasks.size() < state.runningById.size()) {
            protectedTasks.forEach((id, p) -> {
                Task t = state.runningById.get(id);
                if (t != null) protect(t, p);
            });
        } else {
            for (Task t : state.tasks) {
                if (!t.running()) continue;
                dev.arbiter.facts.Protected p = protectedTasks.get(t.id());
                if (p != null) protect(t, p);
            }
        }
        this.copy = copy;
        if (copy != null) victims.recall(copy.victimMemory(), protectedRunning);
        this.steps = 1 + settings.cycle().evictions().size();
        if (copy == null) {
            this.parkingSignature = null;
            this.parkingHolds = false;
        } else {
            this.parkingSignature = parkingSignature(nominations, protectedTasks);
            this.parkingHolds = state.runningUnchanged && state.samePriorities && copy.parking() != null
                    && !fitter.anyExistingAntiAffinity() && parkingSignature.equals(copy.parking());
        }
    }

    // ---- Parking (issue 17) -------------------------------------------------------------------------------------
    //
    // A job that could not start, and left no trace in its cycle (nothing placed, held, nominated or evicted), is
    // parked: while nothing it could need changes, a later cycle passes over it in allocation and in the eviction
    // steps, and its reason is the one it had then, step by step. "Nothing it could need changes" is exact, so the
    // cycle decides what a fresh one decides, reasons included (every spec and WorkingCopyTest hold kept cycles to
    // fresh ones): the running world is as it was (no bound pod came, went or changed, so every node's usage and every
    // queue's allocation are the same; the same nominations), the rules decided the same for every queue (its deserved
    // share, limit and grants), for the job (its phase, gang requirement and no-preemption decision) and for every
    // running task (priorities, protections: a minimum runtime running out changes them), and nothing was committed
    // earlier in this cycle. The job then meets, at its turn, exactly the state it met when it was parked: the jobs
    // before it committed nothing (new ones included), and a job that fails leaves no trace. Jobs whose fit depends on
    // other pods, that want a network domain, that hold nominated room, or that wait in a fifo queue (a waiting head
    // holds back the rest) are never parked.

    /**
     * The cycle's reservations ({@link Reserving}), or null when there is none. No job is parked while any is held:
     * whether a job may backfill reads the clock.
     */
    Reserving reserving;

    /** The kept working copy (null: no job is ever parked). */
    private final WorkingCopy copy;
    /** What parking is decided against (see {@link #parkingSignature}); null without a kept copy. */
    private final Object parkingSignature;
    /** Whether the cycle found everything parking reads as the last cycle left it: parked jobs may be passed over. */
    private final boolean parkingHolds;
    /** The cycle's steps (allocation, then each eviction action in turn), and the one under way. */
    private final int steps;
    private int step;
    private int passed;

    /**
     * Everything parking reads besides the running world and the jobs themselves: the snapshot's nominations, the
     * running tasks' protections, and per queue its spec, deserved share, allocation, limit, grants and dequeue policy.
     */
    private Object parkingSignature(Map<String, String> nominations, Map<String, dev.arbiter.facts.Protected> protectedTasks) {
        List<Object> queues = new ArrayList<>();
        Map<String, dev.arbiter.facts.PreemptGrant> preempt = policy.preemptGrants();
        Map<String, List<dev.arbiter.facts.ReclaimGrant>> reclaim = policy.reclaimGrants();
        Map<String, dev.arbiter.facts.DequeuePolicy> dequeue = policy.dequeue();
        for (QueueState q : state.queues.values()) {
            queues.add(java.util.Arrays.asList(q.spec, q.deserved(), q.allocated, q.limit, preempt.get(q.name()),
                    reclaim.get(q.name()), dequeue.get(q.name())));
        }
        return java.util.Arrays.asList(state.copyEpoch, policy.settings, nominations, protectedTasks, queues);
    }

    /**
     * Whether the job, parked in an earlier cycle, is passed over in the step under way: everything it could need is
     * as it was then (see above), and nothing was committed yet in this cycle. Its reason is then the one it had after
     * this step then.
     */
    boolean staysParked(Job j) {
        if (!parkingHolds || reserving != null) return false;
        KeptJob k = copy.kept(j);
        if (k == null || !k.parked() || !k.sameTasks()) return false;
        if (committed()) return false;
        if (!j.phase.equals(k.parkedPhase()) || !java.util.Objects.equals(policy.gangFor(j), k.parkedGang())) return false;
        Map<String, dev.arbiter.facts.NoPreemption> nevers = policy.noPreemption();
        if (!java.util.Objects.equals(nevers.isEmpty() ? null : nevers.get(j.id), k.parkedNever())) return false;
        j.setReason(k.parkedReason(step), k.parkedRule(step));
        k.passOver(state.copyCycle);
        passed++;
        return true;
    }

    /**
     * A step is over: each waiting job's reason after it is noted, for parking — unless the cycle committed something
     * (it then parks nothing, see {@link #park}). Not the last step's (that is the reason the cycle parks it with), nor
     * those of jobs passed over (in a cycle that commits nothing, a job passed over in one step is in every step).
     */
    void stepDone() {
        if (copy != null && step < steps - 1 && !committed()) {
            for (QueueState q : state.queues.values()) {
                for (Job j : q.jobs) {
                    if (!admitted(j) || !j.hasPending()) continue;
                    KeptJob k = copy.kept(j);
                    if (k == null || k.passedIn(state.copyCycle)) continue;
                    k.noteStep(step, steps, j.reason, j.reasonRule);
                }
            }
        }
        step++;
    }

    /**
     * The cycle's steps are over: what a kept working copy keeps for the next cycle is handed to it — what the victim
     * search remembers ({@link VictimMemory}) and the parked jobs ({@link #park}).
     */
    void stepsOver() {
        if (copy == null) return;
        copy.rememberVictims(victims.remember(), victims.recalls());
        park();
    }

    /**
     * Parks every job that could not start and left no trace, for the next cycle (a job
     * passed over in every step stays parked as it was). Jobs outside any queue are never admitted. A cycle that
     * committed anything parks nothing, and the next one passes over no job: executed, its decisions change the
     * running world anyway (only a cycle whose decisions were not carried out could have passed over its jobs).
     */
    private void park() {
        if (committed() || reserving != null) { // (a reservation's restriction may be gone next cycle)
            copy.parked(null, passed);
            return;
        }
        boolean podRules = fitter.anyExistingAntiAffinity();
        Map<String, dev.arbiter.facts.NoPreemption> nevers = policy.noPreemption();
        for (QueueState q : state.queues.values()) {
            boolean queueParks = !podRules && q.limit != null && !policy.fifo(q.name());
            for (Job j : q.jobs) {
                KeptJob k = copy.kept(j);
                // Passed over (in every step: nothing was committed): it stays parked as it was.
                if (k == null || k.passedIn(state.copyCycle)) continue;
                if (queueParks && parkable(j, k)) {
                    k.park(steps, j.reason, j.reasonRule, j.phase, policy.gangFor(j), nevers.isEmpty() ? null : nevers.get(j.id));
                } else {
                    k.unpark();
                }
            }
        }
        copy.parked(parkingSignature, passed);
    }

    /** Whether the cycle has bound, evicted or nominated anything so far. */
    private boolean committed() {
        return !bindings.isEmpty() || !evictions.isEmpty() || !nominations.isEmpty();
    }

    /**
     * Whether the job, in a queue whose jobs may be parked, could not start and left no trace this cycle. Asked only
     * of a cycle that committed nothing ({@link #park}): no job has anything placed, bound, pipelined or evicted then,
     * and the one trace left can be room held for a nominated task (its job is {@link Job#nominated}).
     */
    private boolean parkable(Job j, KeptJob k) {
        if (!admitted(j) || !j.hasPending() || j.nominated || j.reason == null) return false;
        if (!k.shapeKnown()) k.shapeParks(parkableShape(j));
        return k.shapeParks();
    }

    /**
     * What parking asks of the job's tasks, which only a change of them changes ({@code KeptJob#tasksChanged}): no network
     * domain wanted, and no pod whose fit depends on other pods (with no existing anti-affinity in the cycle, only a
     * pod's own affinity or spread does; alike pods have none).
     */
    private boolean parkableShape(Job j) {
        if (domains.wanted(j) != null) return false;
        if (j.pendingAlike()) return true;
        for (Task t : j.pending) if (fitter.dependsOnPods(t.pod)) return false;
        return true;
    }

    /** What the kept working copy remembers of the job across cycles; null without one (or for a job it did not keep). */
    KeptJob kept(Job j) {
        return copy == null ? null : copy.kept(j);
    }

    /** A running task the rules protect from eviction, for this cycle. */
    private void protect(Task t, dev.arbiter.facts.Protected p) {
        t.protection = p;
        state.touch(t);
        protectedRunning.add(t);
        if (RefusedVictims.refused(t)) refusedRunning.add(t);
    }

    static boolean admitted(Job j) {
        return j.phase.equals("Inqueue") || j.phase.equals("Running");
    }

    static Refusal behindHead(QueueState q, Job head) {
        return new Refusal.BehindHead(q.name(), head.id);
    }

    /** Gives the room held for the job's nominated tasks back to the node, for the job itself to use. */
    void releaseNominatedRoom(Job j) {
        for (Task t : j.pending) {
            if (t.holding) {
                t.nominated.give(t.request());
                t.holding = false;
                state.touch(t);
                fitter.capacityReleased(List.of(t.nominated));
            }
        }
    }

    /** Holds the room again for nominated tasks the job could not place (it keeps waiting for them). */
    void holdNominatedRoom(Job j) {
        for (Task t : j.pending) {
            if (t.nominated != null && !t.holding && !t.placed) {
                if (t.request().fitsIn(t.nominated.free())) {
                    t.nominated.take(t.request());
                    t.holding = true;
                    fitter.changed();
                } else {
                    t.nominated = null;
                }
                state.touch(t);
            }
        }
    }

    static boolean gangSatisfied(Job j, GangRequirement g, GangTransaction tx) {
        // Too few members decides most jobs, and needs no words.
        if (j.liveMembers() + (tx == null ? 0 : tx.placed()) < Math.max(g.minMember(), 1)) return false;
        return gangShortfall(j, g, tx) == null;
    }

    /**
     * Why the job's gang cannot start with what runs and what {@code tx} placed (null: no transaction), e.g.
     * {@code gang of 4 needs 4 tasks, 2 placeable} or {@code role worker needs 2, 1 placeable}; null when it can.
     */
    static Refusal gangShortfall(Job j, GangRequirement g, GangTransaction tx) {
        int have = j.liveMembers() + (tx == null ? 0 : tx.placed());
        if (have < Math.max(g.minMember(), 1)) return new Refusal.GangShort(g.minMember(), have);
        if (g.minTaskMember().isEmpty()) return null;
        Map<String, Integer> running = j.liveRunningByRole();
        for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(g.minTaskMember()).entrySet()) {
            int role = running.getOrDefault(e.getKey(), 0) + (tx == null ? 0 : tx.placedInRole(e.getKey()));
            if (role < e.getValue()) return new Refusal.RoleShort(e.getKey(), e.getValue(), role);
        }
        return null;
    }

    /** Refusals many jobs' reasons share, one object each (see {@link #attempted}). */
    private final SharedRefusals shared = new SharedRefusals();

    /**
     * {@code action: why}, one object for the same parts: in a large cycle thousands of jobs are refused alike, and
     * {@link dev.arbiter.decision.ReasonWords} then words their reasons once.
     */
    Refusal attempted(String action, Refusal why) {
        return shared.of(SharedRefusals.ATTEMPTED, action, why, null);
    }

    /** {@code first; then}, one object for the same parts (see {@link #attempted}). */
    Refusal also(Refusal first, Refusal then) {
        return shared.of(SharedRefusals.ALSO, null, first, then);
    }

    /**
     * {@code what: cause} ({@code what} alone without a cause), one object for equal {@code what} and the same
     * {@code cause} (see {@link #attempted}): a gang's shortfall is made afresh for each job, its cause is shared.
     */
    Refusal because(Refusal what, Refusal cause) {
        return cause == null ? what : shared.of(SharedRefusals.BECAUSE, null, shared.interned(what), cause);
    }

    /**
     * {@link #attempted}'s, {@link #also}'s and {@link #because}'s refusals: one per parts, the parts compared by
     * identity (refusals that many jobs share are the very same objects); and one object per equal small refusal
     * ({@link #interned}).
     */
    static final class SharedRefusals {
        static final byte ATTEMPTED = 0, ALSO = 1, BECAUSE = 2;
        private final Map<Parts, Refusal> made = new HashMap<>();
        private final Map<Refusal, Refusal> interned = new HashMap<>();
        private byte lastKind = -1;
        private Object lastA, lastB, lastC;
        private Refusal last;

        private record Parts(byte kind, Object a, Object b, Object c) {
            @Override
            public boolean equals(Object o) {
                return o instanceof Parts p && p.kind == kind && p.a == a && p.b == b && p.c == c;
            }

            @Override
            public int hashCode() {
                return ((kind * 31 + System.identityHashCode(a)) * 31 + System.identityHashCode(b)) * 31
                        + System.identityHashCode(c);
            }
        }

        Refusal of(byte kind, String action, Refusal first, Refusal then) {
            // Jobs one after another are mostly refused alike (a queue's gangs of one shape): the last answer serves
            // while the parts are the very same objects.
            if (kind == lastKind && action == lastA && first == lastB && then == lastC) return last;
            Refusal r = made.computeIfAbsent(new Parts(kind, action, first, then), k -> switch (kind) {
                case ATTEMPTED -> new Refusal.Attempted(action, first);
                case ALSO -> new Refusal.Also(first, then);
                default -> new Refusal.Because(first, then);
            });
            lastKind = kind;
            lastA = action;
            lastB = first;
            lastC = then;
            last = r;
            return r;
        }

        /** One object per equal refusal (a gang's shortfall: two numbers). */
        Refusal interned(Refusal r) {
            Refusal same = interned.putIfAbsent(r, r);
            return same == null ? r : same;
        }
    }

    /** The words of refusals: kept with the working copy across cycles, else this cycle's own. */
    ReasonWords reasonWords() {
        return copy != null ? copy.reasonWords() : new ReasonWords();
    }

    List<QueueState> sortedQueues() {
        List<QueueState> qs = new ArrayList<>(state.queues.values());
        qs.sort(queueOrder);
        return qs;
    }
}
