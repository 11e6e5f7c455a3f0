package dev.arbiter.authoring;

import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;

/**
 * Why a pod or PodGroup is where it is, with the numbers behind it. Plain data, computed by {@link Explainer} and
 * rendered by {@link ExplanationText}.
 *
 * @param subject    {@code "PodGroup ns/name"} or {@code "Pod ns/name"}
 * @param podGroup   the job: its PodGroup, or {@code ns/podgroup-<pod>} for a pod without one
 * @param queue      the job's queue
 * @param outcome    where it ended, e.g. {@code "Running on node-3"}, {@code "Pending"}, {@code "Evicted from node-4 in cycle 3"}
 * @param reason     the one line why, as the PodGroup condition and the FailedScheduling event carry it
 * @param rule       the rule behind the reason, or null
 * @param steps      every decision that touched it, in cycle order
 * @param rulesFired per subject (the PodGroup, its pods, its queue), the rules that fired on it, in first-fired order
 * @param cycle      the cycle whose numbers {@code shares} shows: the one that decided the outcome
 * @param shares     deserved vs allocated of the queues involved in that cycle
 * @param gang       gang progress
 * @param closest    for each pod still pending, the node closest to fitting it and what it lacks there
 * @param holders    for a pending subject: the rules that fired, in the last cycle, on the running pods of the other
 *                   queues holding what it asks for (e.g. a rule protecting them from eviction), with how many pods
 * @param domain     the network domain its PodGroup runs in (a gang with a network topology), or null
 * @param start      for a job still pending, its estimated start ({@code docs/estimates.md}), or null when there is no
 *                   forecast (no runtime estimates anywhere, or the job is not pending)
 */
public record Explanation(String subject, String podGroup, String queue, String outcome, String reason, String rule,
                          List<Step> steps, Map<String, List<String>> rulesFired, int cycle, List<Share> shares,
                          Gang gang, List<NodeGap> closest, Map<String, Integer> holders, String domain,
                          Start start) {
    public Explanation {
        steps = List.copyOf(steps);
        rulesFired = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(rulesFired));
        shares = List.copyOf(shares);
        closest = List.copyOf(closest);
        holders = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(holders));
    }

    /** Without a start estimate. */
    public Explanation(String subject, String podGroup, String queue, String outcome, String reason, String rule,
                       List<Step> steps, Map<String, List<String>> rulesFired, int cycle, List<Share> shares,
                       Gang gang, List<NodeGap> closest, Map<String, Integer> holders, String domain) {
        this(subject, podGroup, queue, outcome, reason, rule, steps, rulesFired, cycle, shares, gang, closest, holders,
                domain, null);
    }

    /** This explanation with {@code start}. */
    public Explanation withStart(Start start) {
        return new Explanation(subject, podGroup, queue, outcome, reason, rule, steps, rulesFired, cycle, shares, gang,
                closest, holders, domain, start);
    }

    /**
     * The job's estimated start, from a forecast made at {@code forecast.now()}, shown on {@code clock}.
     */
    public record Start(dev.arbiter.forecast.StartEstimate estimate, dev.arbiter.forecast.Forecast forecast,
                        dev.arbiter.forecast.StartWords.Clock clock) {
        /** {@code in 2h10m (at …)} or {@code none — …}. */
        public String line() {
            return dev.arbiter.forecast.StartWords.line(estimate, forecast, clock);
        }
    }

    /** A decision: {@code action} is bind, preempt or reclaim; {@code forPodGroup} is the job an eviction made room for. */
    public record Step(int cycle, String action, String pod, String node, String forPodGroup, String rule) {}

    /**
     * One queue in one resource: its deserved share in the cycle, and what it held when the cycle started and when
     * it ended, as {@link Resources} stores them (milli-units; whole bytes for memory). {@code held} is the part of
     * {@code allocatedAfter} kept for pods the cycle nominated (room its evictions made, held until they bind): what
     * is bound is {@code allocatedAfter - held}. Example: tenanta, mars-tech.com/gpu, deserved 16000, 0 before,
     * 16000 after, 16000 held (nothing bound yet).
     */
    public record Share(String queue, String resource, long deserved, long allocatedBefore, long allocatedAfter, long held) {
        public long bound() {
            return allocatedAfter - held;
        }
    }

    /**
     * Gang progress at the end: {@code running} members, {@code placeable} = running plus the pending members that
     * would fit on the capacity left (each alone, greedily), against {@code minMember} of {@code members}.
     */
    public record Gang(int minMember, int members, int running, int placeable) {}

    /** {@code node} is the node closest to fitting {@code pod} (null if no node passes its selector and taints). */
    public record NodeGap(String pod, String node, Resources shortfall, String note) {}
}
