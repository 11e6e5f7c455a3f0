package dev.arbiter.engine;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.facts.AdmissionGrant;
import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.ChurnSettings;
import dev.arbiter.facts.ClusterFact;
import dev.arbiter.facts.DequeuePolicy;
import dev.arbiter.facts.GangPolicy;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.facts.OrderPolicy;
import dev.arbiter.facts.PriorityLookup;
import dev.arbiter.facts.PriorityFromPods;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.PriorityClassFact;
import dev.arbiter.facts.Protected;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.facts.TaskFact;
import dev.arbiter.facts.VictimOrder;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.kie.api.runtime.KieSession;

/**
 * Runs the rules over one cycle's facts. Phase order is fixed here, not by salience: {@code classify} resolves the
 * priority class names in use, then queues, jobs and running tasks are inserted with their priorities, then
 * {@code fair-share} (deserved shares) and {@code policy} (admission, limits, gang, order, grants, victims) fire.
 * Derived values are copied back onto the cycle's jobs, tasks and queues; policy facts are returned as a {@link Policy}.
 */
final class PolicyEvaluation {
    static final List<String> AGENDA = List.of("classify", "fair-share", "policy");

    private PolicyEvaluation() {}

    static Policy run(RuleBook rules, CycleState state, List<PriorityClassSpec> priorityClasses,
                      Map<String, Double> timings, RuleTrace trace) {
        KieSession session = rules.newSession();
        try {
            session.addEventListener(trace);
            long fired = 0;
            // 1. Priorities: one lookup per priority class name in use, resolved by the classify rules.
            long t0 = System.nanoTime();
            Map<String, PriorityLookup> lookups = resolvePriorities(session, state, priorityClasses);
            fired += fire(session, "classify", timings, t0);
            // Pods come in runs of the same class: look a class up once per run.
            String lastName = null;
            int lastValue = 0;
            for (Task t : state.tasks) {
                if (t.pod.priority() != null) {
                    t.priority = t.pod.priority();
                    continue;
                }
                String name = t.pod.priorityClassName();
                if (name == null || !name.equals(lastName)) {
                    lastName = name;
                    lastValue = lookup(lookups, name).getValue();
                }
                t.priority = lastValue;
            }
            PriorityFromPods fromPods = null;
            for (PriorityFromPods p : all(session, PriorityFromPods.class)) fromPods = p;
            for (Job j : state.jobs.values()) j.priority = jobPriority(j, lookups, fromPods);
            trace.priorityResolved(state.jobs.values(), lookups, fromPods);
            // 2. Queues, jobs and running tasks, with their priorities; then fair share and policy.
            long t1 = System.nanoTime();
            insertFacts(session, state);
            timings.put("rules.insert", (System.nanoTime() - t1) / 1e6);
            fired += fire(session, "fair-share", timings, System.nanoTime());
            fired += fire(session, "policy", timings, System.nanoTime());
            return collect(session, fired);
        } finally {
            session.dispose();
        }
    }

    private static long fire(KieSession session, String group, Map<String, Double> timings, long since) {
        session.getAgenda().getAgendaGroup(group).setFocus();
        long n = session.fireAllRules();
        timings.put("rules." + group, (System.nanoTime() - since) / 1e6);
        return n;
    }

    private static Map<String, PriorityLookup> resolvePriorities(KieSession s, CycleState state,
                                                                 List<PriorityClassSpec> classes) {
        for (PriorityClassSpec pc : classes) {
            s.insert(new PriorityClassFact(pc.name(), pc.value(), pc.globalDefault(), pc.preemptionPolicy()));
        }
        Map<String, PriorityLookup> lookups = new HashMap<>();
        for (Job j : state.jobs.values()) lookups.computeIfAbsent(j.priorityClassName, PriorityLookup::new);
        String last = null;
        for (Task t : state.tasks) {
            String name = t.pod.priorityClassName();
            if (name != null && name.equals(last)) continue;
            lookups.computeIfAbsent(name, PriorityLookup::new);
            last = name;
        }
        lookups.values().forEach(s::insert);
        return lookups;
    }

    /**
     * The job's priority: its PodGroup's class; for a PodGroup that names none, the highest priority of its pods when
     * the rules say so ({@link PriorityFromPods}), else the default class.
     */
    private static int jobPriority(Job j, Map<String, PriorityLookup> lookups, PriorityFromPods fromPods) {
        if (j.priorityClassName != null || fromPods == null || (j.running.isEmpty() && j.pending.isEmpty())) {
            return lookup(lookups, j.priorityClassName).getValue();
        }
        int max = Integer.MIN_VALUE;
        for (Task t : j.running) max = Math.max(max, t.priority);
        for (Task t : j.pending) max = Math.max(max, t.priority);
        return max;
    }

    /** A lookup no rule resolved counts as priority zero. */
    private static PriorityLookup lookup(Map<String, PriorityLookup> lookups, String name) {
        PriorityLookup l = lookups.get(name);
        return l == null ? new PriorityLookup(name) : l;
    }

    private static void insertFacts(KieSession s, CycleState state) {
        s.insert(new ClusterFact(state.clusterTotal, state.guaranteed));
        for (QueueState q : state.queues.values()) {
            q.allocated = state.allocatedOf(q);
            q.fact = new QueueFact(q.name(), q.parentName(), q.spec.weight(), q.spec.priority(), q.open(),
                    q.spec.reclaimable(), q.spec.capability(), state.effectiveGuarantee(q), state.requestOf(q),
                    q.allocated, state.inqueueOf(q), q.spec.dequeueStrategy(), q.spec.deserved());
            s.insert(q.fact);
        }
        for (Job j : state.jobs.values()) {
            int never = 0;
            for (Task t : j.pending) if ("Never".equals(t.pod.preemptionPolicy())) never++;
            s.insert(new JobFact(j.id, j.queue, j.minMember, j.minTaskMember, j.minResources, j.priorityClassName,
                    j.initialPhase, j.implicit, j.pending.size(), j.running.size(), j.creationOrder, j.priority, never));
        }
        for (Task t : state.tasks) {
            if (!t.running()) continue;
            long ran = t.pod.startedAt() != PodSpec.UNKNOWN_START ? Math.max(0, state.now - t.pod.startedAt()) : -1;
            s.insert(new TaskFact(t.id(), t.job.id, t.job.queue, t.pod.priorityClassName(), t.priority,
                    t.pod.preemptionPolicy(), true, t.pod.preemptableMarker(), t.leader(), ran));
        }
    }

    /**
     * Of two protections for one task, the one that covers more (protected from all evictions beats reclaim only);
     * between equals, the first rule by name, so the reason shown does not depend on the session's iteration order.
     */
    private static Protected stronger(Protected a, Protected b) {
        if (a.coversPreemption() != b.coversPreemption()) return a.coversPreemption() ? a : b;
        return a.rule().compareTo(b.rule()) <= 0 ? a : b;
    }

    @SuppressWarnings("unchecked")
    private static <T> java.util.Collection<T> all(KieSession s, Class<T> type) {
        return (java.util.Collection<T>) s.getObjects(new org.kie.api.runtime.ClassObjectFilter(type));
    }

    /** Several facts of one kind may concern one job (two denials); keep one chosen by rule name, not by chance. */
    private static Policy collect(KieSession s, long fired) {
        Map<String, AdmissionBudget> budgets = new HashMap<>();
        Map<String, AdmissionDenied> denials = new HashMap<>();
        Map<String, AdmissionGrant> grants = new HashMap<>();
        Map<String, AllocationLimit> limits = new HashMap<>();
        Map<String, GangRequirement> gangs = new HashMap<>();
        Map<String, OrderPolicy> orders = new HashMap<>();
        Map<String, PreemptGrant> preempt = new HashMap<>();
        Map<String, List<ReclaimGrant>> reclaim = new HashMap<>();
        Map<String, Protected> protectedTasks = new HashMap<>();
        VictimOrder victimOrder = null;
        Map<String, DequeuePolicy> dequeue = new HashMap<>();
        ChurnSettings churn = null;
        Map<String, NoPreemption> noPreemption = new HashMap<>();
        GangPolicy gangPolicy = null;
        // One pass per policy fact type: the session's store is kept per class, so the jobs and tasks are not walked.
        for (AdmissionBudget b : all(s, AdmissionBudget.class)) budgets.put(b.queue(), b);
        for (AdmissionDenied d : all(s, AdmissionDenied.class)) {
            denials.merge(d.job(), d, (a, b) -> a.rule().compareTo(b.rule()) <= 0 ? a : b);
        }
        for (AdmissionGrant g : all(s, AdmissionGrant.class)) grants.put(g.job(), g);
        for (AllocationLimit l : all(s, AllocationLimit.class)) limits.put(l.queue(), l);
        for (GangRequirement g : all(s, GangRequirement.class)) gangs.put(g.job(), g);
        for (OrderPolicy op : all(s, OrderPolicy.class)) orders.put(op.scope(), op);
        for (PreemptGrant p : all(s, PreemptGrant.class)) preempt.put(p.queue(), p);
        for (ReclaimGrant r : all(s, ReclaimGrant.class)) reclaim.computeIfAbsent(r.reclaimer(), k -> new ArrayList<>()).add(r);
        for (Protected p : all(s, Protected.class)) protectedTasks.merge(p.task(), p, PolicyEvaluation::stronger);
        for (VictimOrder v : all(s, VictimOrder.class)) victimOrder = v;
        for (DequeuePolicy d : all(s, DequeuePolicy.class)) dequeue.put(d.queue(), d);
        for (ChurnSettings c : all(s, ChurnSettings.class)) churn = c;
        for (NoPreemption n : all(s, NoPreemption.class)) {
            noPreemption.merge(n.job(), n, (a, b) -> a.rule().compareTo(b.rule()) <= 0 ? a : b);
        }
        for (GangPolicy g : all(s, GangPolicy.class)) gangPolicy = g;
        reclaim.values().forEach(l -> l.sort(java.util.Comparator.comparing(ReclaimGrant::victimQueue)));
        return new Policy(budgets, denials, grants, limits, gangs, orders, preempt, reclaim, protectedTasks, victimOrder,
                dequeue, churn, noPreemption, gangPolicy, fired);
    }
}
