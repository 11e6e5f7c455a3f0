package dev.arbiter.decision;

import java.util.List;
import java.util.Map;

/**
 * Everything one cycle decided, as plain data: the actuator (or the simulator) executes bindings and evictions and
 * writes the statuses. {@code phaseMillis} times each step of the cycle. {@code rulesFired} lists, per subject, the
 * rules that fired on it this cycle, in firing order; subjects are {@code "PodGroup ns/name"}, {@code "Pod ns/name"}
 * and {@code "Queue name"} (implicit gangs of one appear as {@code "PodGroup ns/podgroup-<pod>"}).
 * {@code nominations} are the pending pods whose room this cycle made (evictions under way); the next snapshot
 * should carry them, so that room is held for them. {@code wakeAt} is the earliest time (snapshot clock) at which
 * this cycle's decisions could change although nothing else does — while a job waits, the first end of a running
 * pod's protection, as the rule that protects it states it ({@code Protected.until}, e.g. the minimum runtime
 * passing) — or -1. {@code usage} holds the queues' decayed past usage sampled this cycle, to be stored where the
 * next snapshot (and, live, the next process) reads it ({@link dev.arbiter.model.QueueUsage}); empty unless the policy
 * sets {@code shares.usageHalfLife}. {@code reservations} are the nodes reserved for long-waiting head jobs that have
 * not started ({@code reservation} in policy.yaml; empty by default).
 */
public record CycleResult(int cycle, String rulesGeneration, List<Binding> bindings, List<Eviction> evictions,
                          List<PodGroupStatus> podGroups, List<QueueStatus> queues, Map<String, Double> phaseMillis,
                          Map<String, List<String>> rulesFired, List<Nomination> nominations, long wakeAt,
                          Map<String, dev.arbiter.model.QueueUsage> usage, List<Reservation> reservations) {
    public CycleResult {
        reservations = List.copyOf(reservations);
        usage = Map.copyOf(usage);
        nominations = List.copyOf(nominations);
        bindings = List.copyOf(bindings);
        evictions = List.copyOf(evictions);
        podGroups = List.copyOf(podGroups);
        queues = List.copyOf(queues);
        phaseMillis = Map.copyOf(phaseMillis);
        rulesFired = Map.copyOf(rulesFired);
    }

    /** A result that holds no reservation. */
    public CycleResult(int cycle, String rulesGeneration, List<Binding> bindings, List<Eviction> evictions,
                       List<PodGroupStatus> podGroups, List<QueueStatus> queues, Map<String, Double> phaseMillis,
                       Map<String, List<String>> rulesFired, List<Nomination> nominations, long wakeAt,
                       Map<String, dev.arbiter.model.QueueUsage> usage) {
        this(cycle, rulesGeneration, bindings, evictions, podGroups, queues, phaseMillis, rulesFired, nominations, wakeAt,
                usage, List.of());
    }

    /** A result that samples no queue usage. */
    public CycleResult(int cycle, String rulesGeneration, List<Binding> bindings, List<Eviction> evictions,
                       List<PodGroupStatus> podGroups, List<QueueStatus> queues, Map<String, Double> phaseMillis,
                       Map<String, List<String>> rulesFired, List<Nomination> nominations, long wakeAt) {
        this(cycle, rulesGeneration, bindings, evictions, podGroups, queues, phaseMillis, rulesFired, nominations, wakeAt,
                Map.of());
    }

    /** A result without rule traces, nominations or wake-up time (the reference scheduler's). */
    public CycleResult(int cycle, String rulesGeneration, List<Binding> bindings, List<Eviction> evictions,
                       List<PodGroupStatus> podGroups, List<QueueStatus> queues, Map<String, Double> phaseMillis) {
        this(cycle, rulesGeneration, bindings, evictions, podGroups, queues, phaseMillis, Map.of(), List.of(), -1);
    }

    /** The rules that fired on a subject, e.g. {@code rulesFiredOn("PodGroup", "ns/train")}; empty if none. */
    public List<String> rulesFiredOn(String kind, String id) {
        return rulesFired.getOrDefault(kind + " " + id, List.of());
    }

    public boolean decidedNothing() {
        return bindings.isEmpty() && evictions.isEmpty();
    }
}
