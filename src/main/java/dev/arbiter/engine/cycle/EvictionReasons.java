package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.victims.RefusedVictims;
import dev.arbiter.engine.victims.VictimSelector;

import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.Protected;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The eviction steps' refusals: why a starving job stays pending, as an {@link Outcome} (a {@link Refusal}, and the
 * rule or setting behind it) that {@link #refuse} adds to the job's reason as an {@link Refusal.Attempted}
 * ({@code preempt: ...} or {@code reclaim: ...} in {@link dev.arbiter.decision.ReasonWords}' words) — no lower-priority
 * work, every candidate protected (by which rule, and until when), a capability, the victim queues' floors,
 * hysteresis, the eviction budget, a gang too large for the queue's deserved share — and, for a job that started with
 * victims, what it waits for and what its victims are told. Refusals that many jobs of a cycle share are made once.
 */
final class EvictionReasons {
    /** Why an attempt to start a job with victims failed (null: it started), and the rule behind that refusal. */
    record Outcome(boolean started, Refusal why, String rule) {
        static final Outcome STARTED = new Outcome(true, null, null);

        static Outcome refused(Refusal why, String rule) {
            return new Outcome(false, why, rule);
        }
    }

    /** Where a refusal that a setting decided comes from: {@code policy.yaml churn.<name>}. */
    private static String setting(String name) {
        return RuleBook.SETTINGS_FILE + " churn." + name;
    }

    static final String PER_CYCLE_SETTING = setting("maxEvictionsPerCycle");
    static final String PER_QUEUE_SETTING = setting("maxEvictionsPerQueuePerCycle");
    static final String HYSTERESIS_SETTING = setting("hysteresis");

    private final CycleWork w;
    private final WorkingCluster state;
    private final Policy policy;
    private final VictimSelector victims;
    /** Refusals made once per cycle (the budgets are fixed for it), for the many jobs they refuse. */
    private final Refusal budgetSpentReason;
    private final Map<String, Refusal> queueBudgetReasons = new HashMap<>();

    EvictionReasons(CycleWork w) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
        this.victims = w.victims;
        this.budgetSpentReason = new Refusal.BudgetSpent(policy.settings.churn().maxEvictionsPerCycle());
    }

    /** {@link #refuse(Job, String, Refusal, String)} for an outcome. */
    void refuse(Job j, String action, Outcome o) {
        refuse(j, action, o.why(), o.rule());
    }

    /**
     * Adds "{@code action: why}" to the job's reason; the rule behind the refusal, when known, becomes its rule. The
     * parts are shared between jobs refused alike ({@link CycleWork#attempted}, {@link CycleWork#also}).
     */
    void refuse(Job j, String action, Refusal why, String rule) {
        if (why == null) return;
        Refusal attempted = w.attempted(action, why);
        j.setReason(j.reason == null ? attempted : w.also(j.reason, attempted), rule != null ? rule : j.reasonRule);
    }

    /**
     * The outcome of a search for job {@code j}, told which of the victims the API server refused ({@link
     * RefusedVictims}) it {@code couldTake} and so passed over: its reason then says so, whether it started with other
     * victims or not. The outcome as it was when none were refused (most cycles).
     */
    Outcome noteRefused(Job j, Outcome o, java.util.function.Predicate<Task> couldTake) {
        if (w.refusedRunning.isEmpty()) return o;
        List<Task> passedOver = new ArrayList<>();
        for (Task t : w.refusedRunning) if (couldTake.test(t)) passedOver.add(t);
        if (passedOver.isEmpty()) return o;
        Refusal note = RefusedVictims.note(passedOver);
        if (!o.started()) return Outcome.refused(new Refusal.Also(o.why(), note), o.rule());
        if (j.reason != null) j.setReason(new Refusal.Also(j.reason, note), j.reasonRule);
        return o;
    }

    // ---- preempt ---------------------------------------------------------------------------------------------

    /** Why a preemptor finds no candidate victim in its queue: none of lower priority runs, or all are protected. */
    Outcome noCandidates(QueueState q, Job j, PreemptGrant grant, List<Task> running) {
        List<Task> lower = new ArrayList<>();
        for (Task t : running) if (t.job != j && (!grant.lowerPriorityOnly() || t.job.priority < j.priority)) lower.add(t);
        if (running.isEmpty()) return Outcome.refused(new Refusal.NothingRuns(q.name()), grant.rule());
        if (lower.isEmpty()) {
            return Outcome.refused(new Refusal.NoLowerWork(q.name(), grant.lowerPriorityOnly(), j.priority),
                    grant.rule());
        }
        return protectedReason(new Refusal.QueuePods(q.name(), grant.lowerPriorityOnly()), lower);
    }

    /**
     * Every one of {@code tasks} is protected: by which rules (or by the Eviction API, for pods whose eviction was
     * refused), how many each, one example's words; when time ends some of those protections (a minimum runtime), also
     * when the first of them ends.
     */
    Outcome protectedReason(Refusal.Whose whose, List<Task> tasks) {
        Map<String, List<Task>> byRule = new TreeMap<>();
        for (Task t : tasks) if (t.protection != null) byRule.computeIfAbsent(t.protection.rule(), k -> new ArrayList<>()).add(t);
        List<Refusal.ProtectedBy> by = new ArrayList<>(byRule.size());
        String firstRule = null;
        for (Map.Entry<String, List<Task>> e : byRule.entrySet()) {
            Protected example = e.getValue().get(0).protection;
            by.add(new Refusal.ProtectedBy(e.getKey(), RefusedVictims.SOURCE.equals(e.getKey()), e.getValue().size(),
                    example.reason()));
            if (firstRule == null) firstRule = e.getKey();
        }
        long until = firstExpiry(tasks);
        return Outcome.refused(new Refusal.AllProtected(whose, List.copyOf(by), until >= 0 ? until - state.now : -1),
                firstRule);
    }

    /**
     * The earliest time one of these running tasks' protections ends by itself, as the rule that protects it states it
     * ({@link Protected#until()}), or -1. (A refused victim's protection ends with the refusal, not with time.)
     */
    private long firstExpiry(List<Task> tasks) {
        long first = -1;
        for (Task t : tasks) {
            if (t.protection == null || !t.protection.expires()) continue;
            long ends = t.protection.until();
            if (ends > state.now && (first < 0 || ends < first)) first = ends;
        }
        return first;
    }

    // ---- reclaim ---------------------------------------------------------------------------------------------

    /** Why no rule lets the queue reclaim: it holds its deserved share, or no other queue is above its own. */
    Refusal noGrantReason(QueueState q) {
        if (q.fairShare != null && q.fairShare.isOverused()) return new Refusal.HoldsDeserved(q.name(), q.deserved());
        List<String> above = new ArrayList<>();
        List<String> notReclaimable = new ArrayList<>();
        for (QueueState o : state.queues.values()) {
            if (o == q || o.fairShare == null || !o.fairShare.isAboveDeserved()) continue;
            (o.spec.reclaimable() ? above : notReclaimable).add(o.name());
        }
        if (above.isEmpty() && notReclaimable.isEmpty()) return new Refusal.NoQueueAbove();
        if (above.isEmpty()) return new Refusal.NotReclaimable(List.copyOf(notReclaimable));
        return new Refusal.NoReclaimGrant(q.name(), List.copyOf(above));
    }

    /** The queue already holds the deserved share its grants let it reclaim up to. */
    static Outcome holdsDeserved(QueueState q, Resources ceiling, String rule) {
        return Outcome.refused(new Refusal.HoldsDeserved(q.name(), ceiling), rule);
    }

    /**
     * The job's gang needs more to start than its queue may reclaim up to (its deserved share) in some dimension it
     * asks for ({@code fit} EVERY_NEEDED), or in every one ({@code SOME_NEEDED}): no eviction could start it. Null when
     * it fits.
     */
    Outcome tooLarge(QueueState q, Resources need, Resources ceiling, dev.arbiter.policy.ReclaimFit fit, int levels,
                     String rule) {
        if (AncestorShares.admits(fit, q, need, ceiling, levels)) return null;
        return tooLargeRefusals.computeIfAbsent(new TooLarge(q, q.allocated, ceiling, rule, need),
                k -> tooLargeRefusal(q, need, ceiling, rule));
    }

    /**
     * A {@link #tooLarge} refusal's terms, and the refusals made so far: the jobs of a queue that are too large mostly
     * need the same, and are refused alike.
     */
    private record TooLarge(QueueState q, Resources allocated, Resources ceiling, String rule, Resources need) {}

    private final Map<TooLarge, Outcome> tooLargeRefusals = new HashMap<>();

    private static Outcome tooLargeRefusal(QueueState q, Resources need, Resources ceiling, String rule) {
        java.util.Map<String, Long> over = new TreeMap<>();
        for (int i = 0; i < need.size(); i++) {
            String d = need.name(i);
            if (Resources.addSaturated(q.allocated.milli(d), need.milliAt(i)) > ceiling.milli(d)) over.put(d, need.milliAt(i));
        }
        Resources shown = Resources.ofMilli(over);
        return Outcome.refused(new Refusal.TooLarge(q.name(), shown, ceiling.onlyDimensionsOf(shown),
                q.allocated.onlyDimensionsOf(shown)), rule);
    }

    /** The victim queues have all given back down to their floors this cycle. */
    static Outcome downToFloors(Set<String> victimQueues, String rule) {
        return Outcome.refused(new Refusal.DownToFloors(List.copyOf(new java.util.TreeSet<>(victimQueues))), rule);
    }

    /** No pod of the victim queues may be taken: of {@code all} their running pods, none, or each protected. */
    Outcome nothingToReclaim(List<Task> all, Set<String> victimQueues, String rule) {
        return all.isEmpty() ? Outcome.refused(new Refusal.NoVictimPods(), rule)
                : protectedReason(new Refusal.AboveDeservedPods(List.copyOf(new java.util.TreeSet<>(victimQueues))),
                        all);
    }

    // ---- one job's attempt ---------------------------------------------------------------------------------

    /** The task would take its queue past the deserved share it may reclaim up to ({@code ceiling}). */
    static Outcome wouldPassDeserved(QueueState q, Resources ceiling, String rule) {
        return Outcome.refused(new Refusal.WouldPassDeserved(q.name(), ceiling), rule);
    }

    /** The queue's capability (or an ancestor's, {@code blocker}) leaves no room for the task. */
    static Outcome capabilityReason(QueueState blocker, Task t) {
        return Outcome.refused(Allocation.capabilityReached(blocker, t),
                blocker.limit == null ? null : blocker.limit.rule());
    }

    /** Hysteresis is a churn setting; floors and the rest are the grant's. */
    String victimRefusalRule(String grantRule) {
        Refusal.NoPlan why = victims.lastRefusal();
        return why != null && !why.wouldReturn().isEmpty() ? HYSTERESIS_SETTING : grantRule;
    }

    /** No one domain of the hard network topology the gang wants makes room for all of it. */
    static Outcome noSingleDomain(NetworkTopology want, String rule) {
        return Outcome.refused(new Refusal.NoSingleDomain(want), rule);
    }

    // ---- budgets -------------------------------------------------------------------------------------------

    /** Why a job finds no victim once the cycle's eviction budget is spent. */
    Refusal budgetSpent() {
        return budgetSpentReason;
    }

    /** Why a job finds no victim in its queue once the queue's eviction budget is spent. */
    Refusal queueBudgetSpent(String queue) {
        return queueBudgetReasons.computeIfAbsent(queue, k -> new Refusal.QueueBudgetSpent(
                policy.settings.churn().maxEvictionsPerQueuePerCycle(), queue));
    }

    /**
     * The eviction budget refused {@code job}: with the {@code left} victims it allows ({@code chosen} already taken
     * for the job), no node makes room for its pending task at {@code index}. Made when asked, for any job of the
     * same shape ({@link GangEviction}'s remembered refusals).
     */
    Outcome budgetExceeded(Job job, int index, int chosen, int left) {
        return Outcome.refused(new Refusal.BudgetExceeded(policy.settings.churn().maxEvictionsPerCycle(),
                w.evictions.size(), chosen, job.pending.get(index).id(), Math.max(left, 0)), PER_CYCLE_SETTING);
    }

    // ---- a job that started ----------------------------------------------------------------------------------

    /** e.g. {@code waiting for 2 evicted pod(s) to leave (reclaim)}; with none of its own, another job's victims. */
    static Refusal waitingFor(int pods, String action) {
        return new Refusal.WaitingForEvicted(pods, action);
    }

    /** A job that needs no victims, only pods already terminating on {@code nodes} nodes to leave. */
    static Refusal waitingForTerminating(int nodes) {
        return new Refusal.WaitingForTerminating(nodes);
    }

    /** The reason a victim's job is given, when it had none. */
    static Refusal evictedFor(String action, Job j) {
        return new Refusal.EvictedFor(action, j.id);
    }

    /** What an eviction says of itself ({@link dev.arbiter.decision.ReasonWords#evicted}). */
    static String evictionMessage(String action, Job j, Task v) {
        return dev.arbiter.decision.ReasonWords.evicted(action, j.id, j.priority, v.job.queue);
    }
}
