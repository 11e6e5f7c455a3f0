package dev.arbiter.engine.cycle;

import dev.arbiter.engine.kept.Reservations;
import dev.arbiter.engine.kept.WorkingCopy;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.rules.PolicyEvaluation;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RuleTrace;
import dev.arbiter.engine.rules.RulesSession;
import dev.arbiter.engine.rules.SessionHook;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.usage.UsageRanks;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.policy.EvictionAction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scheduling cycle: snapshot → rules → decisions. Nothing here writes to a cluster; the caller (simulator or
 * actuator) executes the returned {@link CycleResult}.
 *
 * <p>The steps, in the order Volcano runs its actions (the policy settings may reorder or drop the eviction actions,
 * {@code cycle.evictions}, and choose how admission goes through the queues, {@code cycle.admission}):
 * <ol>
 *   <li>Index the snapshot into a working copy.</li>
 *   <li>Fire the rules: priorities, fair shares, and the policy facts the next steps obey.</li>
 *   <li>Admit: Pending jobs become Inqueue, in job order, while they fit their queue's admission budget.</li>
 *   <li>Reserve (when the rules grant it): a long-waiting head job reserves the nodes that start it soonest
 *       ({@link Reserving}); other work keeps off them unless it ends before the reservation starts.</li>
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
    private final SessionHook hook;
    /** The rules session kept across cycles, or null when every cycle opens a fresh one. */
    private final SessionKeeper keeper;
    /** False when {@link CycleResult#rulesFired()} is left empty ({@link #withoutTrace}). */
    private final boolean traced;
    /** The last cycle, answered again while nothing changes ({@link #answeringUnchanged}); null: every cycle decides. */
    private final LastCycle last;
    /** The working copy kept across cycles ({@link #keepingWorkingCopy}), or null when every cycle indexes afresh. */
    private final WorkingCopy copy;
    /** The reservations held from cycle to cycle, and since when jobs wait (empty unless the policy reserves). */
    private final Reservations reservations = new Reservations();

    /**
     * The longest a cycle's answer is repeated while only the clock moves, in snapshot seconds: rules that read the
     * {@code Clock} for anything but when a protection ends (which {@code Protected} states and
     * {@link CycleResult#wakeAt()} accounts for) take effect within this long.
     */
    static final long UNCHANGED_AT_MOST_SECONDS = 30;

    public Scheduler(RuleBook rules, SchedulerConfig config) {
        this(rules, config, SessionHook.NONE, null, true, null, null);
    }

    private Scheduler(RuleBook rules, SchedulerConfig config, SessionHook hook, SessionKeeper keeper, boolean traced,
                      LastCycle last, WorkingCopy copy) {
        this.rules = config.scoring() == null ? rules : rules.withScoring(config.scoring());
        this.config = config;
        this.hook = hook;
        this.keeper = keeper;
        this.traced = traced;
        this.last = last;
        this.copy = copy;
    }

    /** The same scheduler, with {@code hook} watching each cycle's rules session (tools that observe the engine). */
    public Scheduler withHook(SessionHook hook) {
        return configured(rules, hook, false, traced, false, copy != null);
    }

    /**
     * The same scheduler, not tracing which rules fired on each PodGroup, Pod and Queue: its results'
     * {@link CycleResult#rulesFired()} is empty. For the live scheduler, whose results no one explains (the simulator,
     * {@code explain} and the specs trace): the trace costs a map entry per job and pod every cycle. Decisions are the
     * same, and still name the rule that made each one.
     */
    public Scheduler withoutTrace() {
        return configured(rules, hook, keeper != null, false, last != null, copy != null);
    }

    /**
     * The same scheduler, answering a cycle with the last cycle's result when deciding again could not change it:
     * the snapshot shows the same cluster ({@link ClusterSnapshot#sameClusterAs}: only the time moved), the last
     * cycle bound and evicted nothing, no minimum runtime was running out for a waiting job
     * ({@link CycleResult#wakeAt()} unset), and the last cycle that decided is at most
     * {@value #UNCHANGED_AT_MOST_SECONDS} s of snapshot time old. Such a cycle costs a comparison of the snapshots: it
     * is what lets a quiet cluster cost nothing between changes. (Its statuses are the last cycle's: a reason that
     * counts seconds is not counting, which is why a pending minimum runtime makes every cycle decide.) For the live
     * scheduler; simulations and specs decide every cycle.
     */
    public Scheduler answeringUnchanged() {
        return configured(rules, hook, keeper != null, traced, true, copy != null);
    }

    /**
     * The same scheduler, keeping one rules session across its cycles: each cycle updates the session with the facts
     * that changed instead of inserting all of them again ({@link RulesSession}). The decisions are those of a fresh
     * session; a failed cycle, or rules that step outside the one-way contract, start a fresh session next cycle, and
     * {@link #withRules} (hot reload) starts one too. Cycles of a keeping scheduler must not run concurrently.
     * (In a kept session, {@link CycleResult#rulesFired()} names the rules that fired in this cycle: a match that
     * still holds from an earlier cycle does not fire again.)
     */
    public Scheduler keepingSession() {
        return configured(rules, hook, true, traced, last != null, copy != null);
    }

    /**
     * The same scheduler, keeping its working copy across cycles: each cycle brings the last one up to date with what
     * changed in the snapshot instead of indexing every node, job and pod again ({@link WorkingCopy}). The decisions
     * are those of a fresh index; a failed cycle, and {@link #withRules} (hot reload), start afresh. Cycles of a
     * keeping scheduler must not run concurrently.
     */
    public Scheduler keepingWorkingCopy() {
        return configured(rules, hook, keeper != null, traced, last != null, true);
    }

    /**
     * How many times the last cycle passed over a parked job in one of its steps (allocation, each eviction action);
     * 0 when it kept no working copy. For tests and benchmarks: see {@link CycleWork#staysParked}.
     */
    public int parkedPasses() {
        return copy == null ? 0 : copy.parkedPassed();
    }

    /**
     * How many victim searches of the last cycle started from victim nodes the cycle before worked out (0 when it
     * kept no working copy). For tests and benchmarks: see {@link VictimMemory}.
     */
    int victimRecalls() {
        return copy == null ? 0 : copy.victimRecalls();
    }

    /** True when this scheduler keeps its working copy across cycles. */
    public boolean keepsWorkingCopy() {
        return copy != null;
    }

    /** True when a kept working copy holds the last cycle's state (for tests: a failed cycle drops it). */
    public boolean holdsWorkingCopy() {
        return copy != null && copy.holdsState();
    }

    /** True when this scheduler keeps its rules session across cycles. */
    public boolean keepsSession() {
        return keeper != null;
    }

    public RuleBook rules() {
        return rules;
    }

    /** The same scheduler with another policy (hot reload swaps it in between cycles). */
    public Scheduler withRules(RuleBook newRules) {
        return configured(newRules, hook, keeper != null, traced, last != null, copy != null);
    }

    /**
     * A scheduler configured so, with a new kept session and a new last cycle where it keeps them (nothing carries
     * over); this one's kept session, if any, is closed (its next cycle, if any, opens a new one).
     */
    private Scheduler configured(RuleBook rules, SessionHook hook, boolean keep, boolean traced, boolean answer,
                                 boolean keepCopy) {
        dropSession();
        return new Scheduler(rules, config, hook, keep ? new SessionKeeper() : null, traced, answer ? new LastCycle() : null,
                keepCopy ? new WorkingCopy(config.schedulerNames(), rules.settings().shares().ignoredResources()) : null);
    }

    /** Disposes the kept rules session and working copy, if any; the next cycle starts afresh. */
    public void dropSession() {
        if (keeper != null) keeper.close();
        if (copy != null) copy.drop();
    }

    public CycleResult schedule(ClusterSnapshot snapshot, int cycle) {
        if (last == null) return decide(snapshot, cycle);
        CycleResult again = last.answer(snapshot, cycle);
        if (again != null) return again;
        last.forget(); // a failed cycle leaves nothing to repeat
        CycleResult r = decide(snapshot, cycle);
        last.remember(snapshot, r);
        return r;
    }

    private CycleResult decide(ClusterSnapshot snapshot, int cycle) {
        if (keeper == null && copy == null) return cycle(snapshot, cycle, null);
        try {
            return cycle(snapshot, cycle, keeper);
        } catch (RuntimeException | Error e) {
            dropSession(); // a failed cycle may have left what it keeps half-updated: the next one starts afresh
            throw e;
        }
    }

    private CycleResult cycle(ClusterSnapshot snapshot, int cycle, SessionKeeper keeper) {
        Map<String, Double> timings = new LinkedHashMap<>();
        long t0 = System.nanoTime();

        // 1. Index the immutable snapshot into this cycle's working copy.
        WorkingCluster state = copy != null ? copy.next(snapshot)
                : WorkingCluster.index(snapshot, config.schedulerNames(), rules.settings().shares().ignoredResources());
        long t1 = lap(timings, "snapshot", t0);

        // 2. Fire the rules.
        RuleTrace trace = traced ? new RuleTrace() : RuleTrace.off();
        Policy policy = keeper == null || !keeper.usable(rules)
                ? PolicyEvaluation.run(rules, state, snapshot.priorityClasses(), timings, trace, hook)
                : keeper.run(rules, state, snapshot.priorityClasses(), timings, trace);
        long t2 = lap(timings, "rules", t1);

        trace.gangPolicy(state.jobs.values(), policy);
        // The queues' past usage, decayed to now, before anything this cycle starts (when the policy tracks it).
        dev.arbiter.policy.PolicySettings.Shares shares = policy.settings.shares();
        UsageRanks usage = shares.tracksUsage()
                ? new UsageRanks(state.queues.values(), snapshot.usage(), snapshot.now(), state.clusterTotal, shares) : null;
        CycleWork w = new CycleWork(state, policy, config, copy, snapshot.nominations(), snapshot.refusedVictims(), usage);
        // 3. Admit.
        new Admission(w).admit();
        // 3b. Reserve nodes for long-waiting head jobs (when the rules grant it): other work is kept off them.
        Reserving reserving = new Reserving(w, reservations, snapshot.now());
        if (reserving.reserve()) w.reserving = reserving;
        long t3 = lap(timings, "enqueue", t2);
        // 4. Allocate.
        new Allocation(w).allocate();
        w.stepDone();
        long t4 = lap(timings, "allocate", t3);
        // 5. and 6. The eviction actions, in the policy's order (preempt, then reclaim).
        EvictionPhase evict = new EvictionPhase(w);
        for (EvictionAction action : policy.settings.cycle().evictions()) {
            switch (action) {
                case PREEMPT -> evict.preempt();
                case RECLAIM -> evict.reclaim();
            }
            w.stepDone();
        }
        evict.giveBackAcrossJobs();
        w.stepsOver();
        List<dev.arbiter.decision.Reservation> held = w.reserving == null ? List.of() : w.reserving.finish();
        long t5 = lap(timings, "victims", t4);
        // 7. Status.
        StatusReport report = new StatusReport(w);
        List<PodGroupStatus> groups = report.podGroupStatuses();
        List<QueueStatus> queues = report.queueStatuses(groups);
        lap(timings, "status", t5);
        return new CycleResult(cycle, rules.generation(), w.bindings, w.evictions, groups, queues, timings, trace.fired(),
                w.nominations, report.wakeAt(snapshot.now()), usage == null ? Map.of() : usage.samples(), held);
    }

    private static long lap(Map<String, Double> timings, String phase, long since) {
        long now = System.nanoTime();
        timings.put(phase, (now - since) / 1e6);
        return now;
    }

    /** The last cycle that decided, for {@link #answeringUnchanged}. Cycles of one scheduler do not overlap. */
    private static final class LastCycle {
        private ClusterSnapshot snapshot;
        private CycleResult result;

        synchronized CycleResult answer(ClusterSnapshot now, int cycle) {
            if (result == null || !result.bindings().isEmpty() || !result.evictions().isEmpty()) return null;
            // A minimum runtime running out for a waiting job: the next cycle may evict, and reasons count its seconds.
            if (result.wakeAt() >= 0) return null;
            if (now.now() < snapshot.now() || now.now() - snapshot.now() > UNCHANGED_AT_MOST_SECONDS) return null;
            long t0 = System.nanoTime();
            if (!snapshot.sameClusterAs(now)) return null;
            return new CycleResult(cycle, result.rulesGeneration(), List.of(), List.of(), result.podGroups(), result.queues(),
                    Map.of("unchanged", (System.nanoTime() - t0) / 1e6), result.rulesFired(), result.nominations(),
                    result.wakeAt(), Map.of(), result.reservations());
        }

        synchronized void remember(ClusterSnapshot s, CycleResult r) {
            snapshot = s;
            result = r;
        }

        synchronized void forget() {
            snapshot = null;
            result = null;
        }
    }

    /** The session a keeping scheduler carries from cycle to cycle. */
    private static final class SessionKeeper {
        private RulesSession session;

        /** True when these rules may have a kept session (checked once per policy). */
        boolean usable(RuleBook rules) {
            return RulesSession.keepable(rules);
        }

        synchronized Policy run(RuleBook rules, WorkingCluster state, java.util.List<dev.arbiter.model.PriorityClassSpec> classes,
                                Map<String, Double> timings, RuleTrace trace) {
            if (session == null) session = RulesSession.kept(rules);
            Policy policy = PolicyEvaluation.run(session, state, classes, timings, trace, SessionHook.NONE);
            if (!session.stillKeepable()) close();
            return policy;
        }

        synchronized void close() {
            if (session != null) session.close();
            session = null;
        }
    }
}
