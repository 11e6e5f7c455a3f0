package dev.arbiter.engine;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.facts.AdmissionGrant;
import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.ChurnSettings;
import dev.arbiter.facts.ClusterFact;
import dev.arbiter.facts.DequeuePolicy;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.OrderPolicy;
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
 * Runs the rules over one cycle's facts. Phase order is fixed here, not by salience: {@code classify} (priorities),
 * {@code fair-share} (deserved shares), then {@code policy} (admission, limits, gang, order, grants, victims).
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
            long t0 = System.nanoTime();
            Map<Job, JobFact> jobFacts = new IdentityHashMap<>();
            Map<Task, TaskFact> taskFacts = new IdentityHashMap<>();
            insertFacts(session, state, priorityClasses, jobFacts, taskFacts);
            long t1 = System.nanoTime();
            timings.put("rules.insert", (t1 - t0) / 1e6);
            long fired = 0;
            for (String group : AGENDA) {
                long g0 = System.nanoTime();
                session.getAgenda().getAgendaGroup(group).setFocus();
                fired += session.fireAllRules();
                timings.put("rules." + group, (System.nanoTime() - g0) / 1e6);
            }
            jobFacts.forEach((j, f) -> {
                j.priority = f.getPriority();
                j.mayPreempt = f.isMayPreempt();
            });
            taskFacts.forEach((t, f) -> t.priority = f.getPriority() == null ? 0 : f.getPriority());
            return collect(session, fired);
        } finally {
            session.dispose();
        }
    }

    private static void insertFacts(KieSession s, CycleState state, List<PriorityClassSpec> classes,
                                    Map<Job, JobFact> jobFacts, Map<Task, TaskFact> taskFacts) {
        s.insert(new ClusterFact(state.clusterTotal, state.guaranteed));
        for (PriorityClassSpec pc : classes) {
            s.insert(new PriorityClassFact(pc.name(), pc.value(), pc.globalDefault(), pc.preemptionPolicy()));
        }
        for (QueueState q : state.queues.values()) {
            q.allocated = state.allocatedOf(q);
            q.fact = new QueueFact(q.name(), q.parentName(), q.spec.weight(), q.spec.priority(), q.open(),
                    q.spec.reclaimable(), q.spec.capability(), state.effectiveGuarantee(q), state.requestOf(q),
                    q.allocated, state.inqueueOf(q), q.spec.dequeueStrategy(), q.spec.deserved());
            s.insert(q.fact);
        }
        for (Job j : state.jobs.values()) {
            JobFact f = new JobFact(j.id, j.queue, j.minMember, j.minTaskMember, j.minResources, j.priorityClassName,
                    j.initialPhase, j.implicit, j.pending.size(), j.running.size(), j.creationOrder);
            jobFacts.put(j, f);
            s.insert(f);
        }
        for (Task t : state.tasks) {
            long ran = t.running() && t.pod.startedAt() != PodSpec.UNKNOWN_START ? Math.max(0, state.now - t.pod.startedAt()) : -1;
            TaskFact f = new TaskFact(t.id(), t.job.id, t.job.queue, t.pod.priorityClassName(), t.pod.priority(),
                    t.pod.preemptionPolicy(), t.running(), t.pod.preemptableMarker(), t.pod.isLeader(), ran);
            taskFacts.put(t, f);
            s.insert(f);
        }
    }

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
        for (Object o : s.getObjects()) {
            if (o instanceof AdmissionBudget b) budgets.put(b.queue(), b);
            else if (o instanceof AdmissionDenied d) denials.putIfAbsent(d.job(), d);
            else if (o instanceof AdmissionGrant g) grants.put(g.job(), g);
            else if (o instanceof AllocationLimit l) limits.put(l.queue(), l);
            else if (o instanceof GangRequirement g) gangs.put(g.job(), g);
            else if (o instanceof OrderPolicy op) orders.put(op.scope(), op);
            else if (o instanceof PreemptGrant p) preempt.put(p.queue(), p);
            else if (o instanceof ReclaimGrant r) reclaim.computeIfAbsent(r.reclaimer(), k -> new ArrayList<>()).add(r);
            else if (o instanceof Protected p) protectedTasks.put(p.task(), p);
            else if (o instanceof VictimOrder v) victimOrder = v;
            else if (o instanceof DequeuePolicy d) dequeue.put(d.queue(), d);
            else if (o instanceof ChurnSettings c) churn = c;
        }
        reclaim.values().forEach(l -> l.sort(java.util.Comparator.comparing(ReclaimGrant::victimQueue)));
        return new Policy(budgets, denials, grants, limits, gangs, orders, preempt, reclaim, protectedTasks, victimOrder,
                dequeue, churn, fired);
    }
}
