package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.state.EvictionShape;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.victims.DomainVictims;
import dev.arbiter.engine.victims.RefusedVictims;
import dev.arbiter.engine.victims.VictimSelector;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.Protected;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.PolicySettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Steps 5 and 6 of a cycle: preemption (within a queue, as {@code PreemptGrant}s allow) and reclaim (across queues, as
 * {@code ReclaimGrant}s allow, down to each victim queue's floor), for starving jobs in queue and job order. A job is
 * starving while its gang cannot start (Volcano's job-starving rule): it evicts only until {@code minMember} of its
 * tasks can run, and the rest of an elastic job's tasks wait for free capacity. A job's evictions are committed only
 * if its gang requirement then holds and they fit this cycle's eviction budgets; its placements are held as
 * nominations for the next cycle.
 *
 * <p>A starving job that stays pending learns why: each action that could have helped adds "{@code preempt: ...}" or
 * "{@code reclaim: ...}" to its reason — no lower-priority work, every candidate protected (by which rule, and for how
 * long), a capability, the victim queues' floors, hysteresis, the eviction budget, a gang too large for the queue's
 * deserved share, or no set of victims that makes room (with the closest node's shortfall).
 */
public final class EvictionPhase {
    /** Why an attempt to start a job with victims failed (null: it started), and the rule behind that refusal. */
    private record Outcome(boolean started, String why, String rule, boolean ownWords) {
        static final Outcome STARTED = new Outcome(true, null, null, false);

        static Outcome refused(String why, String rule) {
            return new Outcome(false, why, rule, false);
        }

        /** A refusal whose words are this job's alone (they name its pod): no other job's reason shares them. */
        static Outcome refusedInOwnWords(String why, String rule) {
            return new Outcome(false, why, rule, true);
        }
    }

    private final CycleWork w;
    private final WorkingCluster state;
    private final Policy policy;
    private final NodeFitter fitter;
    private final VictimSelector victims;
    private final List<Eviction> evictions;
    private final List<Nomination> nominations;
    private final Map<String, Integer> evictedPerQueue;
    private final int maxEvictionsPerQueue;

    EvictionPhase(CycleWork w) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
        this.fitter = w.fitter;
        this.victims = w.victims;
        this.evictions = w.evictions;
        this.nominations = w.nominations;
        this.evictedPerQueue = w.evictedPerQueue;
        this.maxEvictionsPerQueue = policy.settings.churn().maxEvictionsPerQueuePerCycle();
        this.budgetSpentReason = "the eviction budget of " + policy.settings.churn().maxEvictionsPerCycle()
                + " pods per cycle is spent";
    }

    void preempt() {
        for (QueueState q : w.sortedQueues()) {
            PreemptGrant grant = policy.preemptGrants().get(q.name());
            if (grant == null) continue;
            // The queue's running tasks and its possible victims, lowest job priority first: a preemptor may take a
            // prefix of the candidates.
            List<Task> running = runningByJobPriority(q);
            List<Task> candidates = new ArrayList<>();
            for (Task t : running) if (t.protection == null || !t.protection.coversPreemption()) candidates.add(t);
            // Why a job without running members finds no candidate depends only on its priority: worded once each.
            Map<Integer, Outcome> noCandidatesAt = new HashMap<>();
            Map<Integer, TermsKey> keys = new HashMap<>();
            for (Job j : q.jobs) {
                if (!starving(j)) continue;
                if (budgetSpent()) {
                    refuse(j, "preempt", budgetSpentReason, PER_CYCLE_SETTING);
                    continue;
                }
                int below = grant.lowerPriorityOnly() ? countBelow(candidates, j.priority) : candidates.size();
                List<Task> pool = candidates.subList(0, below);
                Outcome o;
                if (pool.isEmpty()) {
                    o = j.running.isEmpty() ? noCandidatesAt.computeIfAbsent(j.priority, p -> noCandidates(q, j, grant, running))
                            : noCandidates(q, j, grant, running);
                } else if (queueBudgetSpent(q.name())) {
                    o = Outcome.refused(queueBudgetReason(q.name()), PER_QUEUE_SETTING);
                } else {
                    TermsKey key = keys.computeIfAbsent(grant.lowerPriorityOnly() ? j.priority : 0,
                            p -> new TermsKey(List.of("preempt", q.name(), grant.lowerPriorityOnly() ? p : "any")));
                    // The same test as the pool, for tasks the search meets on a node: only this queue's unshielded
                    // tasks of strictly lower priority (when the grant says so), never the preemptor's own (the terms'
                    // own job).
                    java.util.function.Predicate<Task> eligible = t -> t.job.queueState == q
                            && (!grant.lowerPriorityOnly() || t.job.priority < j.priority)
                            && (t.protection == null || !t.protection.coversPreemption())
                            && !queueBudgetSpent(t.job);
                    o = startInOneDomain(q, j, new VictimSelector.Terms(pool, eligible, Map.of(), q, q, false, key, j),
                            null, "preempt", grant.rule());
                    o = noteRefused(j, o, t -> t.job != j && t.job.queueState == q
                            && (!grant.lowerPriorityOnly() || t.job.priority < j.priority));
                }
                if (o.started()) continue;
                refuse(j, "preempt", o);
                if (policy.fifo(q.name())) break;
            }
        }
    }

    /** Why a preemptor finds no candidate victim in its queue: none of lower priority runs, or all are protected. */
    private Outcome noCandidates(QueueState q, Job j, PreemptGrant grant, List<Task> running) {
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
     * The outcome of a search for job {@code j}, told which of the victims the API server refused ({@link
     * RefusedVictims}) it {@code couldTake} and so passed over: its reason then says so, whether it started with other
     * victims or not. The outcome as it was when none were refused (most cycles).
     */
    private Outcome noteRefused(Job j, Outcome o, java.util.function.Predicate<Task> couldTake) {
        if (w.refusedRunning.isEmpty()) return o;
        List<Task> passedOver = new ArrayList<>();
        for (Task t : w.refusedRunning) if (couldTake.test(t)) passedOver.add(t);
        if (passedOver.isEmpty()) return o;
        String note = RefusedVictims.note(passedOver);
        if (!o.started()) return Outcome.refusedInOwnWords(o.why() + "; " + note, o.rule());
        if (j.reason != null) j.setReason(j.reason + "; " + note, j.reasonRule);
        return o;
    }

    /**
     * {@code "<prefix>: 3 by rule "x" (e.g. has run 20s, less than ...)"}, or {@code 2 by the Eviction API (e.g.
     * eviction of ... refused: ... (429); ...)} for pods whose eviction was refused; when time ends some of those
     * protections (a minimum runtime), also when the first of them ends.
     */
    private Outcome protectedReason(String prefix, List<Task> tasks) {
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

    /**
     * The queue's running tasks, lowest job priority first, each job's together in its order, jobs of one priority
     * in job order: as the tasks sorted by their job's priority, but sorted job by job (a queue runs thousands of
     * tasks, in far fewer jobs).
     */
    private List<Task> runningByJobPriority(QueueState q) {
        List<Job> jobs = new ArrayList<>();
        int count = 0;
        for (Job j : q.jobs) {
            if (j.running.isEmpty()) continue;
            jobs.add(j);
            count += j.running.size();
        }
        jobs.sort(Comparator.comparingInt(j -> j.priority));
        List<Task> out = new ArrayList<>(count);
        for (Job j : jobs) out.addAll(j.running);
        return out;
    }

    /** Running tasks of the named queues. */
    private List<Task> runningIn(java.util.Collection<String> queueNames) {
        List<Task> out = new ArrayList<>();
        for (String name : queueNames) {
            QueueState vq = state.queues.get(name);
            if (vq == null) continue;
            for (Job vj : vq.jobs) out.addAll(vj.running);
        }
        return out;
    }

    // ---- 6. reclaim ---------------------------------------------------------------------------------------

    /** A victim this cycle evicted, for whom, and whether its job's reason was set by that eviction. */
    private record Committed(Task victim, Job forJob, String action, String rule, boolean setReason) {}

    private final List<Committed> committed = new ArrayList<>();
    /** The tasks held (pipelined) for preemptors this cycle, and their nodes (same index). */
    private final List<Task> pipelinedTasks = new ArrayList<>();
    private final List<NodeState> pipelinedOn = new ArrayList<>();

    /**
     * Whether a victim back on its node could change whether a held pod fits: as the holder of a required
     * anti-affinity, or as a pod a held pod's anti-affinity or spread counts, in its domain
     * ({@code Placement.indifferentTo}).
     */
    private static boolean couldBind(Task victim, List<Task> held, List<NodeState> heldOn) {
        if (!victim.pod.placement().podAntiAffinity().required().isEmpty()) return true;
        for (int i = 0; i < held.size(); i++) {
            if (!held.get(i).pod.placement().indifferentTo(heldOn.get(i).spec, victim.node.spec, victim.pod)) return true;
        }
        return false;
    }

    /** e.g. {@code waiting for 2 evicted pod(s) to leave (reclaim)}; with none of its own, another job's victims. */
    private static String waitingFor(int pods, String action) {
        if (pods == 0) return "waiting for pods evicted for another job to leave (" + action + ")";
        return "waiting for " + pods + " evicted pod(s) to leave (" + action + ")";
    }

    /**
     * The cycle's add-back, after every eviction action: each job's plan was minimal when it was made, but a later
     * job's victims on the same nodes (or under the same capability) can make an earlier job's unneeded. Victim jobs
     * are looked at newest first, as in {@link #giveBackUnneeded}: all the pods the job lost this cycle stay if every
     * held placement keeps its room and every capability still holds, else each pod on its own where the job keeps
     * its minimum. Never a victim that could change whether a held pod fits ({@link #couldBind}).
     */
    void giveBackAcrossJobs() {
        if (committed.size() < 2) return;
        addBack(new ArrayList<>(committed), c -> c.victim().job, this::restoreCommitted);
    }

    /**
     * The add-back's order, for a gang's victims and for the cycle's: victim jobs in {@code evicted} (eviction order)
     * newest first; all the pods a job lost are offered to {@code restore} together, and if they cannot all stay, each
     * of them, the last first, while the job would keep its minimum with one more back.
     */
    private static <T> void addBack(List<T> evicted, java.util.function.Function<T, Job> jobOf,
                                    java.util.function.Predicate<List<T>> restore) {
        Map<Job, List<T>> byJob = new java.util.LinkedHashMap<>();
        for (T e : evicted) byJob.computeIfAbsent(jobOf.apply(e), k -> new ArrayList<>()).add(e);
        List<Job> jobs = new ArrayList<>(byJob.keySet());
        for (int k = jobs.size() - 1; k >= 0; k--) {
            List<T> lost = byJob.get(jobs.get(k));
            if (restore.test(lost) || lost.size() < 2) continue;
            Job v = jobs.get(k);
            for (int i = lost.size() - 1; i >= 0; i--) {
                // One pod back: the job must keep its minimum (no broken gang) with the others still gone.
                if (v.liveMembers() + 1 < Math.max(1, v.minMember)) break;
                restore.test(List.of(lost.get(i)));
            }
        }
    }

    /** Takes back these committed evictions if every held placement keeps its room and every capability holds. */
    private boolean restoreCommitted(List<Committed> these) {
        Resources share = Resources.NONE;
        for (Committed c : these) {
            if (couldBind(c.victim(), pipelinedTasks, pipelinedOn)) return false;
            share = share.add(c.victim().share());
        }
        for (Committed c : these) {
            GangTransaction.putBack(state, fitter, c.victim(), c.victim().node);
            state.touch(c.victim());
        }
        boolean holds = true;
        for (Committed c : these) if (c.victim().node.free().anyNegative()) holds = false;
        QueueState vq = these.get(0).victim().job.queueState;
        for (QueueState a = vq; a != null && holds; a = a.parent) {
            if (!a.hardCap().admits(a.allocated.subtract(share), share)) holds = false;
        }
        if (!holds) {
            for (Committed c : these) GangTransaction.takeOut(state, fitter, c.victim());
            return false;
        }
        for (Committed c : these) {
            Task v = c.victim();
            committed.remove(c);
            evictions.removeIf(e -> e.pod().equals(v.id()));
            evictedPerQueue.merge(v.job.queue, -1, Integer::sum);
            if (v.job.queueState != null) v.job.queueState.evicted = evictedPerQueue.get(v.job.queue);
            if (c.setReason() && v.job.liveMembers() > 0 && !hasCommitted(v.job)) v.job.setReason(null, null);
            int left = 0;
            for (Committed o : committed) if (o.forJob() == c.forJob()) left++;
            c.forJob().setReason(waitingFor(left, c.action()), c.rule());
        }
        return true;
    }

    private boolean hasCommitted(Job j) {
        for (Committed c : committed) if (c.victim().job == j) return true;
        return false;
    }

    void reclaim() {
        unprotectedIn.clear();
        for (QueueState q : w.sortedQueues()) {
            List<ReclaimGrant> grants = policy.reclaimGrants().getOrDefault(q.name(), List.of());
            Map<String, Resources> floors = new HashMap<>();
            Map<String, Resources> ceilings = new HashMap<>();
            Resources ceiling = grants.isEmpty() ? q.deserved() : Resources.NONE;
            for (ReclaimGrant g : grants) {
                floors.put(g.victimQueue(), g.victimFloor());
                ceilings.put(g.victimQueue(), g.reclaimerCeiling());
                ceiling = ceiling.max(g.reclaimerCeiling());
            }
            String rule = grants.isEmpty() ? null : grants.get(0).rule();
            boolean hysteresis = policy.settings.churn().hysteresis();
            Map<java.util.Set<String>, List<Task>> pools = new HashMap<>();
            Map<java.util.Set<String>, Usable> usables = new HashMap<>();
            String[] victimQueues = floors.keySet().toArray(new String[0]);
            Map<Long, Reach> reaches = new HashMap<>();
            Outcome queueRefusal = null;
            for (Job j : q.jobs) {
                if (!starving(j)) continue;
                Outcome o;
                Resources need = null;
                if (grants.isEmpty()) {
                    if (queueRefusal == null) queueRefusal = Outcome.refused(noGrantReason(q), null);
                    o = tooLarge(q, need = j.startNeed(), ceiling, rule);
                    if (o == null) o = queueRefusal;
                } else if (q.reached(ceiling)) {
                    o = Outcome.refused("queue \"" + q.name() + "\" already holds its deserved share " + ceiling, rule);
                } else if ((o = tooLarge(q, need = j.startNeed(), ceiling, rule)) != null) {
                    // the gang could never start under the deserved share, whatever is reclaimed
                } else if (!anyAboveFloor(floors)) {
                    o = Outcome.refused("queues " + VictimSelector.quoted(new java.util.TreeSet<>(floors.keySet()))
                            + " have given back down to their floor this cycle", rule);
                } else if (budgetSpent()) {
                    o = Outcome.refused(budgetSpentReason, PER_CYCLE_SETTING);
                } else {
                    // Each grant has its own ceiling: a victim queue gives back only to a job that starts under the
                    // ceiling of the grant that names it (the loosest grant's ceiling bounds the job as a whole).
                    Reach reach = reach(q, need, victimQueues, floors, ceilings, reaches);
                    Map<String, Resources> usable = reach.usable;
                    java.util.TreeSet<String> usableNames = reach.names;
                    if (reach.pool == null) reach.pool = pools.computeIfAbsent(usableNames, this::runningUnprotected);
                    List<Task> pool = reach.pool;
                    if (pool.isEmpty()) {
                        List<Task> all = runningIn(floors.keySet());
                        o = all.isEmpty() ? Outcome.refused("queues above their deserved share run no pod of this"
                                + " scheduler", rule)
                                : protectedReason("every pod of the queues above their deserved share ("
                                + VictimSelector.quoted(new java.util.TreeSet<>(floors.keySet())) + ") is protected", all);
                    } else {
                        if (reach.terms == null) reach.terms = usables.computeIfAbsent(usableNames,
                                n -> new Usable(new TermsKey(List.of("reclaim", q.name(), n)), existing(n)));
                        Usable u = reach.terms;
                        java.util.function.Predicate<Task> eligible = t -> t.protection == null
                                && usableQueue(t.job, usable, u.queues()) && !queueBudgetSpent(t.job);
                        o = startInOneDomain(q, j, new VictimSelector.Terms(pool, eligible, usable, null, q, hysteresis,
                                u.key()), ceiling, "reclaim", rule);
                        o = noteRefused(j, o, t -> usable.containsKey(t.job.queue));
                    }
                }
                if (o.started()) continue;
                refuse(j, "reclaim", o);
                if (policy.fifo(q.name())) break;
            }
        }
    }

    /**
     * The victim queues a job of queue {@code q} needing {@code need} may reclaim from (those whose grant's ceiling
     * it starts under), with what reclaim reads of that set, remembered per set for the queue's pass: thousands of
     * starving jobs, few sets. {@code victimQueues} is {@code floors}'s keys in its order.
     */
    private static Reach reach(QueueState q, Resources need, String[] victimQueues, Map<String, Resources> floors,
                               Map<String, Resources> ceilings, Map<Long, Reach> reaches) {
        boolean bits = victimQueues.length <= Long.SIZE;
        long set = 0;
        Map<String, Resources> usable = bits ? null : new HashMap<>();
        for (int i = 0; i < victimQueues.length; i++) {
            if (!q.allocated.plusWithinIn(need, ceilings.get(victimQueues[i]), need)) continue;
            if (bits) set |= 1L << i;
            else usable.put(victimQueues[i], floors.get(victimQueues[i]));
        }
        if (!bits) return new Reach(usable);
        Reach known = reaches.get(set);
        if (known == null) {
            usable = new HashMap<>();
            for (int i = 0; i < victimQueues.length; i++) {
                if ((set & 1L << i) != 0) usable.put(victimQueues[i], floors.get(victimQueues[i]));
            }
            reaches.put(set, known = new Reach(usable));
        }
        return known;
    }

    /** A set of usable victim queues: their floors, their names, and (once read) their pool and terms. */
    private static final class Reach {
        final Map<String, Resources> usable;
        final java.util.TreeSet<String> names;
        List<Task> pool;
        Usable terms;

        Reach(Map<String, Resources> usable) {
            this.usable = usable;
            this.names = new java.util.TreeSet<>(usable.keySet());
        }
    }

    /** Reclaim's terms for one set of usable victim queues: their key, and those of the queues that exist. */
    private record Usable(TermsKey key, QueueState[] queues) {}

    /** The queues of these names that exist this cycle. */
    private QueueState[] existing(java.util.Set<String> names) {
        List<QueueState> out = new ArrayList<>();
        for (String name : names) {
            QueueState vq = state.queues.get(name);
            if (vq != null) out.add(vq);
        }
        return out.toArray(new QueueState[0]);
    }

    /**
     * Whether the job's queue is one of {@code usable}'s ({@code states}: those of them that exist): asked of every
     * task a victim search meets, so by the job's queue, not its name.
     */
    private static boolean usableQueue(Job job, Map<String, Resources> usable, QueueState[] states) {
        QueueState qs = job.queueState;
        if (qs == null) return usable.containsKey(job.queue);
        for (QueueState s : states) if (s == qs) return true;
        return false;
    }

    /**
     * The job's gang needs more to start than its queue may reclaim up to (its deserved share) in some dimension:
     * no eviction could start it. Null when it fits.
     */
    private Outcome tooLarge(QueueState q, Resources need, Resources ceiling, String rule) {
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

    /** Why no rule lets the queue reclaim: it holds its deserved share, or no other queue is above its own. */
    private String noGrantReason(QueueState q) {
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

    /** Running tasks of the queues that no rule protects from reclaim. */
    private List<Task> runningUnprotected(java.util.Collection<String> queueNames) {
        List<List<Task>> parts = new ArrayList<>(queueNames.size());
        int size = 0;
        for (String name : queueNames) {
            List<Task> part = unprotectedIn.computeIfAbsent(name, this::unprotectedOf);
            if (part.isEmpty()) continue;
            parts.add(part);
            size += part.size();
        }
        return parts.size() == 1 ? parts.get(0) : new Joined(parts, size);
    }

    /**
     * Each queue's running tasks without protection, in job order, read once per reclaim step: the running lists and
     * the protections do not change while the eviction steps run (an eviction only marks its victim).
     */
    private final Map<String, List<Task>> unprotectedIn = new HashMap<>();

    private List<Task> unprotectedOf(String queueName) {
        List<Task> out = new ArrayList<>();
        for (Task t : runningIn(List.of(queueName))) if (t.protection == null) out.add(t);
        return out;
    }

    /** Lists read one after the other, as one list: a pool of several queues without copying their tasks. */
    private static final class Joined extends java.util.AbstractList<Task> {
        private final List<List<Task>> parts;
        private final int size;

        Joined(List<List<Task>> parts, int size) {
            this.parts = parts;
            this.size = size;
        }

        @Override
        public Task get(int index) {
            java.util.Objects.checkIndex(index, size);
            for (List<Task> part : parts) {
                if (index < part.size()) return part.get(index);
                index -= part.size();
            }
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public java.util.Iterator<Task> iterator() {
            return new java.util.Iterator<>() {
                private int part;
                private int at;

                @Override
                public boolean hasNext() {
                    while (part < parts.size() && at == parts.get(part).size()) {
                        part++;
                        at = 0;
                    }
                    return part < parts.size();
                }

                @Override
                public Task next() {
                    if (!hasNext()) throw new java.util.NoSuchElementException();
                    return parts.get(part).get(at++);
                }
            };
        }
    }

    private boolean anyAboveFloor(Map<String, Resources> floors) {
        for (Map.Entry<String, Resources> f : floors.entrySet()) {
            QueueState vq = state.queues.get(f.getKey());
            if (vq != null && !vq.allocated.fitsIn(f.getValue())) return true;
        }
        return false;
    }

    /**
     * Volcano's starving job: admitted, its gang cannot start with what runs (fewer than {@code minMember} members,
     * or a role short of its minimum), not already waiting on victims, and allowed to preempt. A job that may not
     * preempt is told so once.
     */
    private boolean starving(Job j) {
        if (!CycleWork.admitted(j) || !j.hasPending() || j.pipelined || w.staysParked(j)) return false;
        GangRequirement gang = policy.gangFor(j);
        if (gang == null || CycleWork.gangSatisfied(j, gang, null)) return false;
        Map<String, NoPreemption> nevers = policy.noPreemption();
        NoPreemption never = nevers.isEmpty() ? null : nevers.get(j.id); // (most cycles have none: no hash read)
        if (never != null) {
            if (j.reason == null || !j.reason.contains(never.reason())) {
                refuse(j, "preempt and reclaim", "never: " + never.reason(), never.rule());
            }
            return false;
        }
        return true;
    }

    /**
     * {@link #refuse(Job, String, String, String)} for an outcome; one in its own words is joined to the reason
     * without looking for a text to share (thousands of jobs a cycle are refused in words that name their own pod).
     */
    private void refuse(Job j, String action, Outcome o) {
        refuse(j, action, o.why(), o.rule(), !o.ownWords());
    }

    /** Adds "{@code action: why}" to the job's reason; the rule behind the refusal, when known, becomes its rule. */
    private void refuse(Job j, String action, String why, String rule) {
        refuse(j, action, why, rule, true);
    }

    /** {@code shared}: the texts are joined as {@link CycleWork#join} shares them; otherwise built for this job. */
    private void refuse(Job j, String action, String why, String rule, boolean shared) {
        if (why == null || why.isEmpty()) return;
        String text = shared ? w.join(action, ": ", why) : action + ": " + why;
        String reason = j.reason == null ? text : shared ? w.join(j.reason, "; ", text) : j.reason + "; " + text;
        j.setReason(reason, rule != null ? rule : j.reasonRule);
    }

    /**
     * The gang's add-back (Kueue's: remove candidates until the workload fits, then add back, in reverse order, what
     * is not needed): each member's plan was minimal when it was found, but a later member's victims (a whole gang
     * taken on another member's node, room freed under the capability) can make an earlier member's unneeded. Victim
     * jobs are looked at newest choice first: all the pods the job lost stay if every placement still has its room
     * and its queue's capabilities still hold; else each pod on its own, if the job keeps its minimum. Giving back only
     * raises the victim queues, so their floors hold. A victim back where it ran changes the placements' fit by its
     * resources, its share under a capability, and through pod rules: a victim that could ({@link #couldBind}) stays
     * gone.
     */
    private void giveBackUnneeded(QueueState q, GangTransaction tx) {
        List<Task> placed = tx.placements();
        List<NodeState> placedOn = new ArrayList<>();
        for (Task t : placed) placedOn.add(tx.nodeOf(t));
        addBack(tx.evictions(), v -> v.job, lost -> tryRestore(q, tx, placed, placedOn, lost));
    }

    /** Restores {@code victims} if every placement keeps its room and capability; else evicts them again. */
    private boolean tryRestore(QueueState q, GangTransaction tx, List<Task> placed, List<NodeState> placedOn,
                               List<Task> victims) {
        for (Task v : victims) if (couldBind(v, placed, placedOn)) return false;
        for (Task v : victims) tx.restore(v);
        boolean holds = true;
        for (Task v : victims) if (v.node.free().anyNegative()) holds = false;
        if (holds) {
            Resources share = Resources.NONE;
            for (Task t : placed) share = share.add(t.share());
            for (QueueState a = q; a != null && holds; a = a.parent) {
                if (!a.hardCap().admits(a.allocated.subtract(share), share)) holds = false;
            }
        }
        if (holds) return true;
        for (Task v : victims) tx.evict(v);
        return false;
    }

    /**
     * Places the job's pending tasks in task order, evicting victims where idle capacity is not enough, until its
     * gang can start (Volcano stops a starving job there) or a task finds no room. Commits the evictions and holds the
     * placements (pipelined: they bind next cycle, once the victims are gone) only if the gang requirement then
     * holds; otherwise nothing changes, and the outcome says why.
     *
     * <p>Preemption ({@code ceiling} null) evicts within the queue, so it may also make room under the queue's
     * capability. Reclaim takes from other queues, so the queue may grow only up to {@code ceiling} (its deserved
     * share) in the dimensions each task needs, and never past a capability — except that victims taken inside a
     * capped ancestor it shares with them free room under that ancestor (siblings give back to siblings).
     */
    private Outcome startWithVictims(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling,
                                     String action, String rule, boolean confined) {
        boolean reclaim = ceiling != null;
        GangRequirement gang = policy.gangFor(j);
        w.releaseNominatedRoom(j);
        Object shape = confined ? null : shape(j, gang, terms, ceiling, action, rule);
        NodeFitter.Stamp startedAt = fitter.stamp();
        if (shape != null) {
            Refused known = refusedShapes.get(shape);
            if (known != null && known.at().equals(startedAt) && known.evictionsThen() == evictions.size()) {
                return known.replay().apply(j);
            }
        }
        GangTransaction tx = new GangTransaction(state, fitter);
        int waitsOnTerminating = 0;
        int victimCount = 0;
        Map<String, Integer> victimsPerQueue = new HashMap<>();
        Outcome refusal = null;
        // How the refusal reads for any job of the same shape (see refusedShapes); null while there is none, and for
        // a refusal in a search's or a capability's own words.
        java.util.function.Function<Job, Outcome> replay = null;
        for (int i = 0; i < j.pending.size(); i++) {
            Task t = j.pending.get(i);
            int index = i;
            if (t.placed) continue;
            if (CycleWork.gangSatisfied(j, gang, tx)) break;
            if (reclaim && !q.allocated.plusWithinIn(t.share(), ceiling, t.share())) {
                refusal = Outcome.refused("queue \"" + q.name() + "\" would pass its deserved share " + ceiling, rule);
                break;
            }
            QueueState blocker = q.capabilityBlocker(t.share());
            QueueState capQueue = blocker != null ? blocker : reclaim ? null : q;
            if (blocker != null && reclaim && !holdsVictimQueue(blocker, terms)) {
                refusal = capabilityReason(blocker, t);
                break;
            }
            NodeState n = blocker == null ? fitter.best(t.pod) : null;
            if (n == null && blocker == null) {
                // Pods already on their way out count before anyone else is evicted.
                n = fitter.bestOnceReleased(t.pod);
                if (n != null) waitsOnTerminating++;
            }
            if (n == null) {
                // With little of the cycle's budget left, most jobs cannot fit theirs: the search then looks only where
                // that few victims could make room, and says so when none can.
                int left = budgetLeft(victimCount);
                VictimSelector.Plan plan = left <= 0 ? null
                        : victims.find(t, terms.bindingCapabilityOf(capQueue), left);
                if (plan == null && (left <= 0 || victims.lastRefusal() == null)) {
                    int chosen = victimCount;
                    replay = job -> Outcome.refusedInOwnWords("eviction budget of "
                            + policy.settings.churn().maxEvictionsPerCycle() + " pods per cycle would be exceeded ("
                            + evictions.size() + " already, " + chosen + " for this job, and no node makes room for "
                            + job.pending.get(index).id() + " with " + Math.max(left, 0) + " more)",
                            PER_CYCLE_SETTING);
                    refusal = replay.apply(j);
                    break;
                }
                if (plan == null) {
                    refusal = Outcome.refused(victims.lastRefusal(), victimRefusalRule(rule));
                    break;
                }
                for (Task v : plan.victims()) {
                    tx.evict(v);
                    victimsPerQueue.merge(v.job.queue, 1, Integer::sum);
                }
                victimCount += plan.victims().size();
                n = plan.node();
                // More victims only overspend more: once over budget, the rest of the search is wasted.
                String overBudget = overspends(victimCount, victimsPerQueue);
                if (overBudget != null) {
                    refusal = Outcome.refused(overBudget, overBudget.contains("per queue") ? PER_QUEUE_SETTING : PER_CYCLE_SETTING);
                    Outcome same = refusal;
                    replay = job -> same;
                    break;
                }
                // The plan made room under the lowest capability that bound (or, for a queue already past it, swapped
                // as much as it adds); one higher up the tree may still refuse the task.
                QueueState stillBlocks = capQueue == null || capQueue.parent == null ? null
                        : capQueue.parent.capabilityBlocker(t.share());
                if (stillBlocks != null) {
                    refusal = capabilityReason(stillBlocks, t);
                    break;
                }
            }
            tx.place(t, n);
        }
        String shortfall = CycleWork.gangShortfall(j, gang, tx);
        if (refusal != null || shortfall != null || (tx.evictions().isEmpty() && waitsOnTerminating == 0)) {
            tx.discard();
            w.holdNominatedRoom(j);
            if (refusal == null) {
                // Nothing to evict and the gang can start on idle capacity: what held it back was not room (e.g. its
                // queue's share), and the allocation step already said so.
                refusal = Outcome.refused(shortfall, rule);
                Outcome same = refusal;
                replay = job -> same;
            }
            if (replay != null && shape != null) {
                if (refusedShapes.size() >= 4096) refusedShapes.clear();
                refusedShapes.put(shape, new Refused(startedAt, evictions.size(), replay));
            }
            return refusal;
        }
        if (tx.evictions().size() > 1) giveBackUnneeded(q, tx);
        j.pipelined = true;
        for (Task t : tx.placements()) {
            t.place();
            state.touch(t);
            nominations.add(new Nomination(t.id(), tx.nodeOf(t).name()));
            pipelinedTasks.add(t);
            pipelinedOn.add(tx.nodeOf(t));
        }
        if (tx.evictions().isEmpty()) {
            j.setReason("waiting for terminating pods to leave " + waitsOnTerminating + " node(s)", rule);
            return Outcome.STARTED;
        }
        for (Task v : tx.evictions()) {
            int fromQueue = evictedPerQueue.merge(v.job.queue, 1, Integer::sum);
            if (v.job.queueState != null) v.job.queueState.evicted = fromQueue;
            if (fromQueue == maxEvictionsPerQueue) victims.queueBudgetSpent();
            evictions.add(new Eviction(v.id(), v.node.name(), action, j.id, rule,
                    action + " by " + j.id + " (priority " + j.priority + ") from queue \"" + v.job.queue + "\""));
            committed.add(new Committed(v, j, action, rule, v.job.reason == null));
            if (v.job.reason == null) {
                v.job.setReason("evicted by " + action + " for " + j.id, rule);
            }
        }
        j.setReason(waitingFor(tx.evictions().size(), action), rule);
        return Outcome.STARTED;
    }

    /**
     * A job refused without a search's own words (the eviction budget refused it, or it needed no victims and still
     * could not start), and when: the cycle's exact state (a refused job leaves none of its steps behind, so the next
     * job starts from the same one) and how many evictions it had. Once the budget is nearly spent, every starving job
     * is refused, and a large fleet has thousands of them, mostly alike: a job of the same {@link #shape} that starts
     * from the same state takes the same steps to the same refusal, which {@code replay} words for it.
     */
    private record Refused(NodeFitter.Stamp at, int evictionsThen, java.util.function.Function<Job, Outcome> replay) {}

    private final Map<Object, Refused> refusedShapes = new HashMap<>();

    /**
     * What {@link #startWithVictims} reads of a job, as a key: the action, the rule, the terms, the ceiling, members
     * bound this cycle, which pending tasks are placed, and what does not change in a cycle ({@link EvictionShape}).
     * Null (not remembered) for a job with running members (they are never its own victims, so the search depends on
     * the job), nominated room, or a pod whose placement depends on other pods.
     */
    private Object shape(Job j, GangRequirement gang, VictimSelector.Terms terms, Resources ceiling, String action,
                         String rule) {
        if (!j.running.isEmpty() || gang == null) return null;
        EvictionShape known = j.evictionShape;
        EvictionShape tasks = known != null && known.stillFor(j, gang, fitter) ? known
                : EvictionShape.of(j, gang, fitter);
        if (tasks == EvictionShape.NONE) return null;
        j.evictionShape = tasks;
        java.util.BitSet placed = placedPending(j);
        if (placed == null) return null;
        return List.of(action, String.valueOf(rule), terms.key(), ceiling == null ? Resources.NONE : ceiling, j.bound,
                placed, tasks);
    }

    /**
     * Which of the job's pending tasks are placed, by position; null when one of them has (or had) room held on its
     * nominated node. Only a job that held nominated room when the cycle began can have such a task, and a job that
     * placed none has none to list: for most starving jobs no task is read.
     */
    static java.util.BitSet placedPending(Job j) {
        if (j.nominated) {
            for (Task t : j.pending) if (t.nominated != null || t.holding) return null;
        }
        if (j.placedPending == 0) return NONE_PLACED;
        java.util.BitSet placed = new java.util.BitSet();
        for (int i = 0; i < j.pending.size(); i++) if (j.pending.get(i).placed) placed.set(i);
        return placed;
    }

    /**
     * A victim search's terms as a key (the action, the queue, and the preemptor's priority or reclaim's usable
     * queues), hashed once and made once per queue and value: the eviction steps, the refusals they remember and the
     * searches' memories ask it of thousands of jobs a cycle.
     */
    static final class TermsKey {
        private final List<Object> parts;
        private final int hash;

        TermsKey(List<Object> parts) {
            this.parts = parts;
            this.hash = parts.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o == this || (o instanceof TermsKey k && k.hash == hash && k.parts.equals(parts));
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return parts.toString();
        }
    }

    /** No task placed (never modified). */
    private static final java.util.BitSet NONE_PLACED = new java.util.BitSet();

    /**
     * Network topology (issue 15): a hard gang evicts inside one domain only. {@link DomainVictims} ranks the domains
     * where it could start with victims (fewest, then cheapest); the best {@value #DOMAIN_TRIES} are tried in turn with
     * the gang's pods confined to each, through the same {@link #startWithVictims} and budgets as any job (a domain
     * the budgets refuse rarely leaves a later one they accept). Every other job goes straight to
     * {@link #startWithVictims}.
     */
    private static final int DOMAIN_TRIES = 4;

    private Outcome startInOneDomain(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling,
                                     String action, String rule) {
        dev.arbiter.model.NetworkTopology want = w.domains.wanted(j);
        if (want == null || !want.hard()) return startWithVictims(q, j, terms, ceiling, action, rule, false);
        List<DomainVictims.Ranked> ranked = new DomainVictims(w).rank(j, policy.gangFor(j), want, terms);
        if (ranked.isEmpty()) {
            return Outcome.refused("no single domain (" + want + ") makes room for the whole gang with the victims"
                    + " allowed", rule);
        }
        Outcome o = null;
        for (DomainVictims.Ranked r : ranked.subList(0, Math.min(DOMAIN_TRIES, ranked.size()))) {
            fitter.confine(j.pending, r.domain());
            try {
                o = startWithVictims(q, j, terms, ceiling, action, rule, true);
            } finally {
                fitter.unconfine();
            }
            if (o.started()) {
                j.domain = r.domain().name;
                return o;
            }
        }
        return o;
    }

    /** Whether some queue the terms may take victims from lies under {@code ancestor}. */
    private boolean holdsVictimQueue(QueueState ancestor, VictimSelector.Terms terms) {
        for (String name : terms.floors().keySet()) {
            QueueState vq = state.queues.get(name);
            if (vq != null && vq.isWithin(ancestor)) return true;
        }
        return false;
    }

    private static Outcome capabilityReason(QueueState blocker, Task t) {
        return Outcome.refused("queue \"" + blocker.name() + "\" capability reached: short of "
                + blocker.hardCap().excess(blocker.allocated, t.share()), blocker.limit == null ? null : blocker.limit.rule());
    }

    /** Hysteresis is a churn setting; floors and the rest are the grant's. */
    private String victimRefusalRule(String grantRule) {
        String why = victims.lastRefusal();
        return why != null && why.contains("hysteresis") ? HYSTERESIS_SETTING : grantRule;
    }

    /** Where a refusal that a setting decided comes from: {@code policy.yaml churn.<name>}. */
    private static String setting(String name) {
        return RuleBook.SETTINGS_FILE + " churn." + name;
    }

    private static final String PER_CYCLE_SETTING = setting("maxEvictionsPerCycle");
    private static final String PER_QUEUE_SETTING = setting("maxEvictionsPerQueuePerCycle");
    private static final String HYSTERESIS_SETTING = setting("hysteresis");

    /**
     * The queue has used its per-queue eviction budget this cycle: it offers no more victims, and the search looks
     * elsewhere (a victim from it could only overspend).
     */
    private boolean queueBudgetSpent(String queue) {
        return maxEvictionsPerQueue > 0 && evictedPerQueue.getOrDefault(queue, 0) >= maxEvictionsPerQueue;
    }

    /** {@link #queueBudgetSpent(String)} of the job's queue, read from the queue itself when it exists. */
    private boolean queueBudgetSpent(Job job) {
        QueueState qs = job.queueState;
        if (qs == null) return queueBudgetSpent(job.queue);
        return maxEvictionsPerQueue > 0 && qs.evicted >= maxEvictionsPerQueue;
    }

    private String queueBudgetReason(String queue) {
        return queueBudgetReasons.computeIfAbsent(queue, k -> "the eviction budget of "
                + policy.settings.churn().maxEvictionsPerQueuePerCycle() + " pods per queue per cycle"
                + " is spent in queue \"" + queue + "\"");
    }

    /** The cycle's cluster-wide eviction budget is used up: no search could be committed. */
    private boolean budgetSpent() {
        int max = policy.settings.churn().maxEvictionsPerCycle();
        return max > 0 && evictions.size() >= max;
    }

    /** Refusals worded once per cycle (the budgets are fixed for it), for the many jobs they refuse. */
    private final String budgetSpentReason;
    private final Map<String, String> queueBudgetReasons = new HashMap<>();

    /**
     * How many more victims this job may take within the cycle's budget, given {@code victimCount} it has chosen; no
     * limit when there is no budget, or for the cycle's first evicting job (which may exceed it).
     */
    private int budgetLeft(int victimCount) {
        int max = policy.settings.churn().maxEvictionsPerCycle();
        if (max <= 0 || evictions.isEmpty()) return Integer.MAX_VALUE;
        return max - evictions.size() - victimCount;
    }

    /**
     * Why these evictions would overspend this cycle's eviction budget (churn control), or null. A budget limits what
     * is added to the cycle's evictions: the first gang to evict in a cycle (cluster-wide, or from a queue) may exceed
     * it, so a gang that needs more victims than one cycle's budget still starts — alone in its cycle.
     */
    private String overspends(int victimCount, Map<String, Integer> victimsPerQueue) {
        PolicySettings.Churn churn = policy.settings.churn();
        int max = churn.maxEvictionsPerCycle();
        if (max > 0 && !evictions.isEmpty() && evictions.size() + victimCount > max) {
            return "eviction budget of " + max + " pods per cycle would be exceeded (" + evictions.size()
                    + " already, at least " + victimCount + " needed)";
        }
        int maxQ = churn.maxEvictionsPerQueuePerCycle();
        for (Map.Entry<String, Integer> e : victimsPerQueue.entrySet()) {
            int already = evictedPerQueue.getOrDefault(e.getKey(), 0);
            if (maxQ > 0 && already > 0 && already + e.getValue() > maxQ) {
                return "eviction budget of " + maxQ + " pods per queue per cycle would be exceeded in queue \""
                        + e.getKey() + "\"";
            }
        }
        return null;
    }
}
