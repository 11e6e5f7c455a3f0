package dev.arbiter.engine;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.facts.AdmissionGrant;
import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.ChurnSettings;
import dev.arbiter.facts.DequeuePolicy;
import dev.arbiter.facts.GangPolicy;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.facts.OrderPolicy;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.Protected;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.facts.VictimOrder;
import java.util.List;
import java.util.Map;

/**
 * What the rules decided for one cycle, as plain data the Java phases obey. A missing entry means the rules granted
 * nothing: no budget means no admission, no limit means no allocation, no grant means no eviction; no
 * {@link ChurnSettings} means no churn control, no {@link DequeuePolicy} means traverse.
 */
record Policy(Map<String, AdmissionBudget> budgets, Map<String, AdmissionDenied> denials,
              Map<String, AdmissionGrant> grants,
              Map<String, AllocationLimit> limits, Map<String, GangRequirement> gangs,
              Map<String, OrderPolicy> orders, Map<String, PreemptGrant> preemptGrants,
              Map<String, List<ReclaimGrant>> reclaimGrants, Map<String, Protected> protectedTasks,
              VictimOrder victimOrder, Map<String, DequeuePolicy> dequeue, ChurnSettings churn,
              Map<String, NoPreemption> noPreemption, GangPolicy gangPolicy, long rulesFired) {

    /**
     * The job's gang requirement: a rule's override for it, else the general gang policy, else none (null). The
     * general policy reads the PodGroup as Volcano does: the per-role minimums ({@code minTaskMember}) count only when
     * {@code minMember} is at least their sum — Volcano's job controller writes a minimum for every role, so an
     * elastic job's roles add up to more than its {@code minMember}, and then only {@code minMember} counts.
     */
    GangRequirement gangFor(Job j) {
        GangRequirement own = gangs.get(j.id);
        if (own != null || gangPolicy == null) return own;
        int roles = 0;
        for (int m : j.minTaskMember.values()) roles += m;
        return new GangRequirement(j.id, j.minMember, j.minMember < roles ? Map.of() : j.minTaskMember, gangPolicy.rule());
    }

    /** Whether a queue's head job blocks the jobs behind it. */
    boolean fifo(String queue) {
        DequeuePolicy d = dequeue.get(queue);
        return d != null && "fifo".equals(d.strategy());
    }
}
