package dev.arbiter.engine.rules;

import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.facts.Clock;
import dev.arbiter.facts.ClusterFact;
import dev.arbiter.facts.DeservedShare;
import dev.arbiter.facts.LendingLimit;
import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.PriorityClassFact;
import dev.arbiter.facts.PriorityFromPods;
import dev.arbiter.facts.PriorityLookup;
import dev.arbiter.facts.PriorityOf;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.QueueShare;
import dev.arbiter.facts.ShareTerms;
import dev.arbiter.facts.TaskFact;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.policy.DequeueStrategy;
import dev.arbiter.policy.JobPhase;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.policy.PreemptionPolicy;
import dev.arbiter.policy.QueuePhase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kie.api.runtime.ClassObjectFilter;
import org.kie.api.runtime.KieSession;

/**
 * Runs the rules over one cycle's facts, one way: Java inserts immutable input facts, the rules insert policy facts,
 * Java reads those back through {@link PolicyKinds} and never reads a fact it inserted. Three phases, in an order
 * fixed here, not by salience:
 * <ol>
 *   <li>{@code classify}: one {@link PriorityLookup} per priority class name in use; the rules decide a
 *       {@link PriorityOf} for each, and every job and pod takes its value;</li>
 *   <li>{@code fair-share}: queues, jobs and running tasks go in; the rules say on what terms each queue shares
 *       ({@link ShareTerms}, or a {@link DeservedShare} outright); Java computes every queue's share
 *       ({@link FairShares}) and inserts it as a {@link QueueShare};</li>
 *   <li>{@code policy}: the rules decide everything the next steps obey (admission, limits, gang, grants, protection).</li>
 * </ol>
 * The policy's settings are a fact from the start. Every phase runs under the settings' limits ({@link RuleLimits}):
 * a rule that keeps firing, runs past the deadline or throws fails the cycle with a {@link PolicyException} naming it.
 */
public final class PolicyEvaluation {
    private PolicyEvaluation() {}

    public static Policy run(RuleBook rules, WorkingCluster state, List<PriorityClassSpec> priorityClasses,
                      Map<String, Double> timings, RuleTrace trace, SessionHook hook) {
        try (RulesSession s = RulesSession.fresh(rules)) {
            return run(s, state, priorityClasses, timings, trace, hook);
        }
    }

    /**
     * One cycle's rules on {@code s}: a fresh session, or a kept one whose input facts are brought up to date. The
     * caller owns the session (disposes a fresh one; keeps a kept one only while {@link RulesSession#stillKeepable}).
     */
    public static Policy run(RulesSession s, WorkingCluster state, List<PriorityClassSpec> priorityClasses,
                      Map<String, Double> timings, RuleTrace trace, SessionHook hook) {
        KieSession session = s.session;
        RuleLimits limits = s.limits;
        PolicySettings settings = s.settings;
        s.beginCycle();
        if (trace.on()) session.addEventListener(trace);
        try {
            if (!s.isKept()) hook.opened(session);
            long fired = 0;
            // 1. Priorities: one lookup per priority class name in use, decided by the classify rules.
            long t0 = System.nanoTime();
            int lookups = syncPriorityLookups(s, state, priorityClasses);
            fired += fire(session, Phase.CLASSIFY, limits, lookups + priorityClasses.size(), timings, t0, hook);
            List<PolicyKinds.Conflict> conflicts = new ArrayList<>();
            Map<String, Object> decided = collect(session, PriorityOf.class, conflicts);
            PriorityFromPods fromPods = (PriorityFromPods) collect(session, PriorityFromPods.class, conflicts).get("");
            assignPriorities(state, decided, fromPods);
            trace.priorityResolved(state.jobs.values(), decided, fromPods);
            // 2. Queues, jobs and running tasks, with their priorities; the rules' share terms; Java's fair shares.
            long t1 = System.nanoTime();
            int facts = syncFacts(s, state);
            timings.put("rules.insert", (System.nanoTime() - t1) / 1e6);
            fired += fire(session, Phase.FAIR_SHARE, limits, facts, timings, System.nanoTime(), hook);
            @SuppressWarnings("unchecked")
            Map<String, ShareTerms> terms = (Map<String, ShareTerms>) (Map<String, ?>) collect(session, ShareTerms.class, conflicts);
            @SuppressWarnings("unchecked")
            Map<String, DeservedShare> stated = (Map<String, DeservedShare>) (Map<String, ?>) collect(session, DeservedShare.class, conflicts);
            @SuppressWarnings("unchecked")
            Map<String, LendingLimit> lending = (Map<String, LendingLimit>) (Map<String, ?>) collect(session, LendingLimit.class, conflicts);
            Map<String, QueueShare> shares = new java.util.LinkedHashMap<>();
            FairShares.compute(state, terms, stated, lending).forEach((q, share) -> {
                q.fairShare = share;
                shares.put(q.name(), share);
            });
            s.sync(QueueShare.class, shares);
            // 3. Policy.
            fired += fire(session, Phase.POLICY, limits, facts, timings, System.nanoTime(), hook);
            Map<Class<?>, Map<String, Object>> decisions = new HashMap<>();
            for (PolicyKinds.Kind<?> kind : PolicyKinds.all()) {
                if (kind.combine() == PolicyKinds.Combine.DERIVED) continue;
                decisions.put(kind.type(), kind.phase() == Phase.POLICY ? collect(session, kind.type(), conflicts)
                        : decisionsOf(kind.type(), decided, fromPods, terms, stated, lending));
            }
            Policy policy = new Policy(settings, decisions, conflicts, fired);
            if (!s.isKept()) hook.closing(session, policy.conflicts);
            return policy;
        } finally {
            if (trace.on()) session.removeEventListener(trace);
        }
    }

    /** The decisions of the earlier phases, already combined. */
    private static Map<String, Object> decisionsOf(Class<?> type, Map<String, Object> decided, PriorityFromPods fromPods,
                                                   Map<String, ShareTerms> terms, Map<String, DeservedShare> stated,
                                                   Map<String, LendingLimit> lending) {
        if (type == PriorityOf.class) return decided;
        if (type == LendingLimit.class) return new HashMap<>(lending);
        if (type == PriorityFromPods.class) return fromPods == null ? Map.of() : Map.of("", fromPods);
        if (type == ShareTerms.class) return new HashMap<>(terms);
        return new HashMap<>(stated);
    }

    private static long fire(KieSession session, Phase phase, RuleLimits limits, long facts, Map<String, Double> timings,
                             long since, SessionHook hook) {
        long n = limits.fire(session, phase, facts);
        timings.put("rules." + phase.group(), (System.nanoTime() - since) / 1e6);
        hook.fired(session, phase.group());
        return n;
    }

    /** Every fact of a registered kind in the session, combined per key as the kind says. */
    private static Map<String, Object> collect(KieSession s, Class<?> type, List<PolicyKinds.Conflict> conflicts) {
        return PolicyKinds.combine(PolicyKinds.of(type), s.getObjects(new ClassObjectFilter(type)), conflicts);
    }

    private static int syncPriorityLookups(RulesSession s, WorkingCluster state, List<PriorityClassSpec> classes) {
        Map<String, PriorityClassFact> known = new java.util.LinkedHashMap<>();
        for (PriorityClassSpec pc : classes) {
            known.put(pc.name(), new PriorityClassFact(pc.name(), pc.value(), pc.globalDefault(), PreemptionPolicy.of(pc.preemptionPolicy())));
        }
        s.sync(PriorityClassFact.class, known);
        Map<String, PriorityLookup> lookups = new HashMap<>();
        if (state.taskClassNames != null) {
            // A kept working copy counts its jobs' and tasks' class names as they come and go (an implicit job's
            // name is its one task's).
            for (String name : state.jobClassNames) lookups.computeIfAbsent(name, PriorityLookup::new);
            for (String name : state.taskClassNames) lookups.computeIfAbsent(name, PriorityLookup::new);
        } else {
            for (Job j : state.jobs.values()) lookups.computeIfAbsent(j.priorityClassName, PriorityLookup::new);
            String last = null;
            for (Task t : state.tasks) {
                String name = t.priorityClassName;
                if (name != null && name.equals(last)) continue;
                lookups.computeIfAbsent(name, PriorityLookup::new);
                last = name;
            }
        }
        return s.sync(PriorityLookup.class, lookups);
    }

    /**
     * Every task takes its pod's {@code spec.priority}, else its class's decided value; every job its PodGroup's
     * {@code spec.priority} (an upstream PodGroup's, {@link Job#podGroupPriority}), else its PodGroup's class's, or (a PodGroup naming none, when the rules say so) the highest of its pods'. A name no rule decided
     * counts as zero. The tasks of an upstream PodGroup ({@link Job#workloadApi}) then take their job's priority. A task kept from the last cycle ({@link WorkingCluster#newTasks}) keeps its priority while the
     * classes' decided values are the same as then.
     */
    private static void assignPriorities(WorkingCluster state, Map<String, Object> decided, PriorityFromPods fromPods) {
        state.samePriorities = state.newTasks != null && decided.equals(state.keptPriorities);
        state.priorities = decided;
        // Pods come in runs of the same class: look a class up once per run.
        String lastName = null;
        int lastValue = 0;
        for (Task t : state.samePriorities ? state.newTasks : state.tasks) {
            if (t.podPriority != null) {
                t.priority = t.podPriority;
                continue;
            }
            String name = t.priorityClassName;
            if (name == null || !name.equals(lastName)) {
                lastName = name;
                lastValue = value(decided, name);
            }
            t.priority = lastValue;
        }
        // A kept job whose tasks are the same keeps its priority too, while the rules' answers are those it took.
        state.sameJobPriorities = state.samePriorities && java.util.Objects.equals(fromPods, state.keptFromPods);
        state.fromPods = fromPods;
        for (Job j : state.sameJobPriorities ? state.jobsWithNewTasks : state.jobs.values()) {
            if (j.podGroupPriority != null) {
                j.priority = j.podGroupPriority;
                continue;
            }
            if (j.priorityClassName != null || fromPods == null || (j.running.isEmpty() && j.pending.isEmpty())) {
                j.priority = value(decided, j.priorityClassName);
                continue;
            }
            int max = Integer.MIN_VALUE;
            for (Task t : j.running) max = Math.max(max, t.priority);
            for (Task t : j.pending) max = Math.max(max, t.priority);
            j.priority = max;
        }
        // An upstream (scheduling.k8s.io) PodGroup's priority is its pods' too, as victims and in admission.
        for (Job j : state.sameJobPriorities ? state.jobsWithNewTasks : state.jobs.values()) {
            if (!j.workloadApi) continue;
            for (Task t : j.running) t.priority = j.priority;
            for (Task t : j.pending) t.priority = j.priority;
        }
    }

    private static int value(Map<String, Object> decided, String name) {
        PriorityOf p = (PriorityOf) decided.get(name == null ? "" : name);
        return p == null ? 0 : p.value();
    }

    /** The input facts; returns how many. */
    private static int syncFacts(RulesSession s, WorkingCluster state) {
        int n = 1;
        s.sync(ClusterFact.class, Map.of("", new ClusterFact(state.clusterTotal, state.guaranteed)));
        s.sync(Clock.class, Map.of("", new Clock(state.now)));
        n++;
        RulesSession.Table queues = s.table(QueueFact.class);
        Map<QueueState, WorkingCluster.QueueTotals> totals = state.queueTotals();
        for (QueueState q : state.queues.values()) {
            WorkingCluster.QueueTotals t = totals.get(q);
            q.allocated = t.allocated();
            q.request = t.request();
            q.inqueue = t.inqueue();
            s.put(queues, q.name(), new QueueFact(q.name(), q.parentName(), q.spec.weight(), q.spec.priority(),
                    QueuePhase.of(q.spec.state()), q.open(), q.spec.reclaimable(), q.spec.capability(),
                    q.effectiveGuarantee, q.request, q.allocated, t.inqueue(),
                    DequeueStrategy.of(q.spec.dequeueStrategy()), q.spec.deserved(), q.spec.lendingLimit()));
            n++;
        }
        s.sweep(queues);
        RulesSession.Table jobs = s.table(JobFact.class);
        if (state.sameJobPriorities && s.follows(JobFact.class, state.copyEpoch, state.copyCycle)) {
            // The session holds the facts of the copy's last cycle, and a kept job with the same tasks kept its
            // priority: only the jobs that went, came or changed tasks change them (those that went first).
            for (Job j : state.goneJobs) s.remove(jobs, j.id, j);
            for (Job j : state.jobsWithNewTasks) s.put(jobs, j.id, jobFact(j, null, state), j);
            n += state.jobs.size();
        } else {
            for (Job j : state.jobs.values()) {
                s.put(jobs, j.id, jobFact(j, s.factOf(jobs, j.id, j), state), j);
                n++;
            }
            s.sweep(jobs);
        }
        s.synced(JobFact.class, state.copyEpoch, state.copyCycle);
        RulesSession.Table tasks = s.table(TaskFact.class);
        if (state.samePriorities && state.runningById != null && s.follows(TaskFact.class, state.copyEpoch, state.copyCycle)) {
            // The session holds the facts of the copy's last cycle, and the tasks kept since kept their priorities:
            // only the running tasks that went and came change them (those that went first: a pod updated in
            // place is a task that goes and one that comes, under one key).
            for (Task t : state.goneRunning) s.remove(tasks, t.id(), t);
            for (Task t : state.newTasks) if (t.running()) s.put(tasks, t.id(), taskFact(t, null), t);
            n += state.runningById.size();
        } else {
            for (Task t : state.tasks) {
                if (!t.running()) continue;
                s.put(tasks, t.id(), taskFact(t, s.factOf(tasks, t.id(), t)), t);
                n++;
            }
            s.sweep(tasks);
        }
        s.synced(TaskFact.class, state.runningById != null ? state.copyEpoch : null, state.copyCycle);
        return n;
    }

    /**
     * A job's fact. A kept job whose tasks and priority are those of the last cycle has the same one as then
     * ({@code known}: the fact a kept session holds for the job, or null): the rest is its PodGroup's, and a changed
     * PodGroup is another job.
     */
    private static JobFact jobFact(Job j, Object known, WorkingCluster state) {
        if (known instanceof JobFact f && f.getPriority() == j.priority && state.sameTasks(j)) return f;
        int never = 0;
        for (Task t : j.pending) if ("Never".equals(t.pod.preemptionPolicy())) never++;
        return new JobFact(j.id, j.queue, j.minMember, j.minTaskMember, j.minResources, j.priorityClassName,
                JobPhase.of(j.initialPhase), j.implicit, j.pending.size(), j.running.size(), j.creationOrder,
                j.priority, never, j.preemptable, j.neverPreempts);
    }

    /**
     * A running task's fact: everything but the priority is the pod's and its job's, which a task keeps for life (so
     * {@code known}, the fact a kept session holds for the task, or null, serves while its priority is the same).
     */
    private static TaskFact taskFact(Task t, Object known) {
        TaskFact f = known instanceof TaskFact k ? k : null;
        if (f == null || f.getPriority() != t.priority) {
            f = new TaskFact(t.id(), t.job.id, t.job.queue, t.pod.priorityClassName(), t.priority,
                    PreemptionPolicy.of(t.pod.preemptionPolicy()), t.pod.preemptableMarker(), t.leader(), t.pod.startedAt());
        }
        return f;
    }
}
