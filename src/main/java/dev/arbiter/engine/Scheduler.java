package dev.arbiter.engine;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    /** The same scheduler with another policy (hot reload swaps it in between cycles). */
    public Scheduler withRules(RuleBook newRules) {
        return new Scheduler(newRules, config);
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

        trace.gangPolicy(state.jobs.values(), policy);
        CycleWork w = new CycleWork(state, policy, config);
        // 3. Admit.
        new Admission(w).admit();
        long t3 = lap(timings, "enqueue", t2);
        // 4. Allocate.
        new Allocation(w).allocate();
        long t4 = lap(timings, "allocate", t3);
        // 5. Preempt, then 6. reclaim.
        EvictionPhase evict = new EvictionPhase(w);
        evict.preempt();
        evict.reclaim();
        long t5 = lap(timings, "victims", t4);
        // 7. Status.
        StatusReport report = new StatusReport(w);
        List<PodGroupStatus> groups = report.podGroupStatuses();
        List<QueueStatus> queues = report.queueStatuses(groups);
        lap(timings, "status", t5);
        return new CycleResult(cycle, rules.generation(), w.bindings, w.evictions, groups, queues, timings, trace.fired(),
                w.nominations, report.wakeAt(snapshot.now()));
    }

    private static long lap(Map<String, Double> timings, String phase, long since) {
        long now = System.nanoTime();
        timings.put(phase, (now - since) / 1e6);
        return now;
    }
}
