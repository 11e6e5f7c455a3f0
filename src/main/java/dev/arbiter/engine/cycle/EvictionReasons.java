package dev.arbiter.engine.cycle;

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
 * The eviction steps' words: why a starving job stays pending, as an {@link Outcome} (the text, and the rule or setting
 * behind it) that {@link #refuse} adds to the job's reason as "{@code preempt: ...}" or "{@code reclaim: ...}" — no
 * lower-priority work, every candidate protected (by which rule, and until when), a capability, the victim queues'
 * floors, hysteresis, the eviction budget, a gang too large for the queue's deserved share — and, for a job that
 * started with victims, what it waits for and what its victims are told. Texts that many jobs of a cycle share are
 * worded once.
 */
final class EvictionReasons {
    /** Why an attempt to start a job with victims failed (null: it started), and the rule behind that refusal. */
    record Outcome(boolean started, String why, String rule, boolean ownWords) {
        static final Outcome STARTED = new Outcome(true, null, null, false);

        static Outcome refused(String why, String rule) {
            return new Outcome(false, why, rule, false);
        }

        /** A refusal whose words are this job's alone (they name its pod): no other job's reason shares them. */
        static Outcome refusedInOwnWords(String why, String rule) {
            return new Outcome(false, why, rule, true);
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
    /** Refusals worded once per cycle (the budgets are fixed for it), for the many jobs they refuse. */
    private final String budgetSpentReason;
    private final Map<String, String> queueBudgetReasons = new HashMap<>();

    EvictionReasons(CycleWork w) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
        this.victims = w.victims;
        this.budgetSpentReason = "the eviction budget of " + policy.settings.churn().maxEvictionsPerCycle()
                + " pods per cycle is spent";
    }

    /**
     * {@link #refuse(Job, String, String, String)} for an outcome; one in its own words is joined to the reason
     * without looking for a text to share (thousands of jobs a cycle are refused in words that name their own pod).
     */
    void refuse(Job j, String action, Outcome o) {
        refuse(j, action, o.why(), o.rule(), !o.ownWords());
    }

    /** Adds "{@code action: why}" to the job's reason; the rule behind the refusal, when known, becomes its rule. */
    void refuse(Job j, String action, String why, String rule) {
        refuse(j, action, why, rule, true);
    }

    /** {@code shared}: the texts are joined as {@link CycleWork#join} shares them; otherwise built for this job. */
    void refuse(Job j, String action, String why, String rule, boolean shared) {
        if (why == null || why.isEmpty()) return;
        String text = shared ? w.join(action, ": ", why) : action + ": " + why;
        String reason = j.reason == null ? text : shared ? w.join(j.reason, "; ", text) : j.reason + "; " + text;
        j.setReason(reason, rule != null ? rule : j.reasonRule);
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
        String note = RefusedVictims.note(passedOver);
        if (!o.started()) return Outcome.refusedInOwnWords(o.why() + "; " + note, o.rule());
        if (j.reason != null) j.setReason(j.reason + "; " + note, j.reasonRule);
        return o;
    }

    // ---- preempt ---------------------------------------------------------------------------------------------

    /** Why a preemptor finds no candidate victim in its queue: none of lower priority runs, or all are protected. */
    Outcome noCandidates(QueueState q, Job j, PreemptGrant grant, List<Task> running) {
        List<Task> lower = new ArrayList<>();
        for (Task t : running) if (t.job != j && (!grant.lowerPriorityOnly() || t.job.priority < j.priority)) lower.add(t);
        String what = grant.lowerPriorityOnly() ? "lower-priority" : "other";
        if (running.isEmpty()) return Outcome.refused("nothing runs in queue \"" + q.name() + "\"", grant.rule());
        if (lower.isEmpty()) {
            return Outcome.refused("no " + what + " work runs in queue \"" + q.name() + "\" (priority " + j.priority + ")",
                    grant.rule());
        }
        return protectedReason("every " + what + " pod of queue \"" + q.name() + "\" is protected", lower);
    }

    /**
     * {@code "<prefix>: 3 by rule "x" (e.g. has run 20s, less than ...)"}, or {@code 2 by the Eviction API (e.g.
     * eviction of ... refused: ... (429); ...)} for pods whose eviction was refused; when time ends some of those
     * protections (a minimum runtime), also when the first of them ends.
     */
    Outcome protectedReason(String prefix, List<Task> tasks) {
        Map<String, List<Task>> byRule = new TreeMap<>();
        for (Task t : tasks) if (t.protection != null) byRule.computeIfAbsent(t.protection.rule(), k -> new ArrayList<>()).add(t);
        StringBuilder sb = new StringBuilder(prefix);
        String sep = ": ";
        String firstRule = null;
        for (Map.Entry<String, List<Task>> e : byRule.entrySet()) {
            Protected example = e.getValue().get(0).protection;
            String by = RefusedVictims.SOURCE.equals(e.getKey()) ? " by " + e.getKey() : " by rule \"" + e.getKey() + "\"";
            sb.append(sep).append(e.getValue().size()).append(by).append(" (")
                    .append(e.getValue().size() > 1 ? "e.g. " : "").append(example.reason()).append(')');
            sep = ", ";
            if (firstRule == null) firstRule = e.getKey();
        }
        long until = firstExpiry(tasks);
        if (until >= 0) sb.append("; the first minimum runtime ends in ").append(until - state.now).append("s");
        return Outcome.refused(sb.toString(), firstRule);
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
    String noGrantReason(QueueState q) {
        if (q.fairShare != null && q.fairShare.isOverused()) {
            return "queue \"" + q.name() + "\" already holds its deserved share " + q.deserved();
        }
        List<String> above = new ArrayList<>();
        List<String> notReclaimable = new ArrayList<>();
        for (QueueState o : state.queues.values()) {
            if (o == q || o.fairShare == null || !o.fairShare.isAboveDeserved()) continue;
            (o.spec.reclaimable() ? above : notReclaimable).add(o.name());
        }
        if (above.isEmpty() && notReclaimable.isEmpty()) return "no other queue holds more than its deserved share";
        if (above.isEmpty()) {
            return "queue " + VictimSelector.quoted(notReclaimable) + " holds more than its deserved share but is not"
                    + " reclaimable";
        }
        return "no rule grants queue \"" + q.name() + "\" reclaim from " + VictimSelector.quoted(above);
    }

    /** The queue already holds the deserved share its grants let it reclaim up to. */
    static Outcome holdsDeserved(QueueState q, Resources ceiling, String rule) {
        return Outcome.refused("queue \"" + q.name() + "\" already holds its deserved share " + ceiling, rule);
    }

    /**
     * The job's gang needs more to start than its queue may reclaim up to (its deserved share) in some dimension:
     * no eviction could start it. Null when it fits.
     */
    Outcome tooLarge(QueueState q, Resources need, Resources ceiling, String rule) {
        if (q.allocated.plusWithinIn(need, ceiling, need)) return null;
        return tooLargeRefusals.computeIfAbsent(new TooLarge(q, q.allocated, ceiling, rule, need),
                k -> tooLargeRefusal(q, need, ceiling, rule));
    }

    /**
     * What a {@link #tooLarge} refusal reads, and the refusals worded so far: the jobs of a queue that are too large
     * mostly need the same, and are refused in the same words.
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
        Resources deserved = ceiling.onlyDimensionsOf(shown);
        Resources held = q.allocated.onlyDimensionsOf(shown);
        return Outcome.refused("the gang needs " + VictimSelector.lacks(shown) + " to start, but queue \"" + q.name()
                + "\" deserves " + (deserved.isEmpty() ? "none" : VictimSelector.lacks(deserved)) + " and holds "
                + (held.isEmpty() ? "none" : VictimSelector.lacks(held)), rule);
    }

    /** The victim queues have all given back down to their floors this cycle. */
    static Outcome downToFloors(Set<String> victimQueues, String rule) {
        return Outcome.refused("queues " + VictimSelector.quoted(new java.util.TreeSet<>(victimQueues))
                + " have given back down to their floor this cycle", rule);
    }

    /** No pod of the victim queues may be taken: of {@code all} their running pods, none, or each protected. */
    Outcome nothingToReclaim(List<Task> all, Set<String> victimQueues, String rule) {
        return all.isEmpty() ? Outcome.refused("queues above their deserved share run no pod of this"
                + " scheduler", rule)
                : protectedReason("every pod of the queues above their deserved share ("
                + VictimSelector.quoted(new java.util.TreeSet<>(victimQueues)) + ") is protected", all);
    }

    // ---- one job's attempt ---------------------------------------------------------------------------------

    /** The task would take its queue past the deserved share it may reclaim up to ({@code ceiling}). */
    static Outcome wouldPassDeserved(QueueState q, Resources ceiling, String rule) {
        return Outcome.refused("queue \"" + q.name() + "\" would pass its deserved share " + ceiling, rule);
    }

    /** The queue's capability (or an ancestor's, {@code blocker}) leaves no room for the task. */
    static Outcome capabilityReason(QueueState blocker, Task t) {
        return Outcome.refused("queue \"" + blocker.name() + "\" capability reached: short of "
                + blocker.hardCap().excess(blocker.allocated, t.share()), blocker.limit == null ? null : blocker.limit.rule());
    }

    /** Hysteresis is a churn setting; floors and the rest are the grant's. */
    String victimRefusalRule(String grantRule) {
        String why = victims.lastRefusal();
        return why != null && why.contains("hysteresis") ? HYSTERESIS_SETTING : grantRule;
    }

    /** No one domain of the hard network topology the gang wants makes room for all of it. */
    static Outcome noSingleDomain(NetworkTopology want, String rule) {
        return Outcome.refused("no single domain (" + want + ") makes room for the whole gang with the victims"
                + " allowed", rule);
    }

    // ---- budgets -------------------------------------------------------------------------------------------

    /** Why a job finds no victim once the cycle's eviction budget is spent. */
    String budgetSpent() {
        return budgetSpentReason;
    }

    /** Why a job finds no victim in its queue once the queue's eviction budget is spent. */
    String queueBudgetSpent(String queue) {
        return queueBudgetReasons.computeIfAbsent(queue, k -> "the eviction budget of "
                + policy.settings.churn().maxEvictionsPerQueuePerCycle() + " pods per queue per cycle"
                + " is spent in queue \"" + queue + "\"");
    }

    /**
     * The eviction budget refused {@code job}: with the {@code left} victims it allows ({@code chosen} already taken
     * for the job), no node makes room for its pending task at {@code index}. Worded when asked, for any job of the
     * same shape ({@link GangEviction}'s remembered refusals).
     */
    Outcome budgetExceeded(Job job, int index, int chosen, int left) {
        return Outcome.refusedInOwnWords("eviction budget of "
                + policy.settings.churn().maxEvictionsPerCycle() + " pods per cycle would be exceeded ("
                + w.evictions.size() + " already, " + chosen + " for this job, and no node makes room for "
                + job.pending.get(index).id() + " with " + Math.max(left, 0) + " more)",
                PER_CYCLE_SETTING);
    }

    // ---- a job that started ----------------------------------------------------------------------------------

    /** e.g. {@code waiting for 2 evicted pod(s) to leave (reclaim)}; with none of its own, another job's victims. */
    static String waitingFor(int pods, String action) {
        if (pods == 0) return "waiting for pods evicted for another job to leave (" + action + ")";
        return "waiting for " + pods + " evicted pod(s) to leave (" + action + ")";
    }

    /** A job that needs no victims, only pods already terminating on {@code nodes} nodes to leave. */
    static String waitingForTerminating(int nodes) {
        return "waiting for terminating pods to leave " + nodes + " node(s)";
    }

    /** The reason a victim's job is given, when it had none. */
    static String evictedFor(String action, Job j) {
        return "evicted by " + action + " for " + j.id;
    }

    /** What an eviction says of itself: the action, for which job, and from which queue. */
    static String evictionMessage(String action, Job j, Task v) {
        return action + " by " + j.id + " (priority " + j.priority + ") from queue \"" + v.job.queue + "\"";
    }
}
