package dev.arbiter.engine.rules;

import dev.arbiter.engine.state.Job;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.facts.AdmissionGrant;
import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.DequeuePolicy;
import dev.arbiter.facts.GangPolicy;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.Protected;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.policy.DequeueStrategy;
import dev.arbiter.policy.PolicySettings;
import java.util.List;
import java.util.Map;

/**
 * What the rules decided for one cycle, as plain data the Java steps obey: the policy facts, combined per key as
 * {@link PolicyKinds} says, and the policy's settings. A missing decision means the rules granted nothing: no budget
 * means no admission, no limit means no allocation, no grant means no eviction; no {@link DequeuePolicy} means
 * traverse.
 */
public final class Policy {
    public final PolicySettings settings;
    /** Rule firings in the session that decided this. */
    final long rulesFired;
    /** Conflicting decisions met while combining (two rules deciding one thing differently), one line each. */
    public final List<PolicyKinds.Conflict> conflicts;
    private final Map<Class<?>, Map<String, Object>> decisions;

    Policy(PolicySettings settings, Map<Class<?>, Map<String, Object>> decisions, List<PolicyKinds.Conflict> conflicts, long rulesFired) {
        this.settings = settings;
        this.decisions = decisions;
        this.conflicts = List.copyOf(conflicts);
        this.rulesFired = rulesFired;
    }

    /** Every decision of one kind, by key. */
    @SuppressWarnings("unchecked")
    public <F> Map<String, F> all(Class<F> type) {
        return (Map<String, F>) decisions.getOrDefault(type, Map.of());
    }

    /** The cluster-wide decision of a singleton kind, or null. */
    <F> F singleton(Class<F> type) {
        return all(type).get("");
    }

    public Map<String, AdmissionBudget> budgets() {
        return all(AdmissionBudget.class);
    }

    public Map<String, AdmissionDenied> denials() {
        return all(AdmissionDenied.class);
    }

    public Map<String, AdmissionGrant> grants() {
        return all(AdmissionGrant.class);
    }

    public Map<String, AllocationLimit> limits() {
        return all(AllocationLimit.class);
    }

    public Map<String, PreemptGrant> preemptGrants() {
        return all(PreemptGrant.class);
    }

    @SuppressWarnings("unchecked")
    public Map<String, List<ReclaimGrant>> reclaimGrants() {
        return (Map<String, List<ReclaimGrant>>) (Map<String, ?>) all(ReclaimGrant.class);
    }

    /** The queues whose long-waiting head job reserves nodes ({@code rules/reservation.drl}); empty by default. */
    public Map<String, dev.arbiter.facts.ReservationGrant> reservationGrants() {
        return all(dev.arbiter.facts.ReservationGrant.class);
    }

    public Map<String, Protected> protectedTasks() {
        return all(Protected.class);
    }

    public Map<String, DequeuePolicy> dequeue() {
        return all(DequeuePolicy.class);
    }

    public Map<String, NoPreemption> noPreemption() {
        return all(NoPreemption.class);
    }

    /**
     * The job's gang requirement: a rule's override for it, else the general gang policy, else none (null). Worked
     * out once per job (the cycle's steps ask it of every job, several times).
     */
    public GangRequirement gangFor(Job j) {
        GangRequirement g = gangs.get(j);
        if (g == null && !gangs.containsKey(j)) {
            g = decideGang(j);
            gangs.put(j, g);
        }
        return g;
    }

    /** Each job's gang requirement this cycle, as {@link #gangFor} worked it out (null: none). */
    private final Map<Job, GangRequirement> gangs = new java.util.IdentityHashMap<>();

    private GangRequirement decideGang(Job j) {
        GangRequirement own = all(GangRequirement.class).get(j.id);
        GangPolicy general = singleton(GangPolicy.class);
        if (own != null || general == null) return own;
        // The general policy reads the PodGroup as Volcano does: per-role minimums count only when minMember is at
        // least their sum (Volcano's job controller writes a minimum for every role, so an elastic job's roles add up
        // to more than its minMember, and then only minMember counts).
        int roles = 0;
        for (int m : j.minTaskMember.values()) roles += m;
        return new GangRequirement(j.id, j.minMember, j.minMember < roles ? Map.of() : j.minTaskMember, general.rule());
    }

    /** Whether a queue's head job blocks the jobs behind it. */
    public boolean fifo(String queue) {
        DequeuePolicy d = dequeue().get(queue);
        return d != null && d.strategy() == DequeueStrategy.FIFO;
    }
}
