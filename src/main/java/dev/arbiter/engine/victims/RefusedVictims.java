package dev.arbiter.engine.victims;

import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.state.Task;

import dev.arbiter.facts.Protected;
import dev.arbiter.model.EvictionRefusal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Running pods whose eviction the API server refused (a PodDisruptionBudget's 429, or an eviction that failed for
 * good), as the snapshot lists them ({@link dev.arbiter.model.ClusterSnapshot#refusedVictims}): for this cycle they
 * are protected from every eviction, like a pod a rule protects, so the victim search re-plans with other victims
 * (Volcano's preempt and reclaim treat a failed eviction as that victim failing). Their words are all here.
 *
 * <p>Example: {@code team-b/worker-2} refused with 429 for 5 s reads, in a preemptor's reason,
 * {@code eviction of team-b/worker-2 refused: Cannot evict pod as it would violate the pod's disruption budget. (429);
 * not a victim for 5s}.
 */
public final class RefusedVictims {
    /** What protects them, where a rule's name would stand. */
    public static final String SOURCE = "the Eviction API";

    private RefusedVictims() {}

    /**
     * The protections for this cycle: the rules' ({@code byRules}) and one per refused pod no rule protects from every
     * eviction (a rule's protection from every eviction is kept: it says more). {@code byRules} itself when nothing was refused.
     */
    public static Map<String, Protected> withRefused(Map<String, Protected> byRules, Map<String, EvictionRefusal> refused) {
        if (refused.isEmpty()) return byRules;
        Map<String, Protected> out = new HashMap<>(byRules);
        refused.forEach((pod, r) -> out.merge(pod, protection(pod, r), (rule, api) -> rule.coversPreemption() ? rule : api));
        return out;
    }

    static Protected protection(String pod, EvictionRefusal r) {
        return new Protected(pod, refusal(pod, r) + "; not a victim for " + r.backoffSeconds() + "s", SOURCE);
    }

    public static boolean refused(Task t) {
        return t.protection != null && SOURCE.equals(t.protection.rule());
    }

    /** {@code eviction of ns/name refused: <the server's words> (429)}. */
    static String refusal(String pod, EvictionRefusal r) {
        String words = r.message().isBlank() ? "" : ": " + r.message().strip();
        return "eviction of " + pod + " refused" + words + " (" + (r.code() == 0 ? "no answer" : r.code()) + ")";
    }

    /**
     * What a preemptor that could have taken these refused victims is told: {@code eviction of ns/a refused: ... (429);
     * trying other victims}, the first two named, then how many more.
     */
    public static Refusal note(List<Task> refused) {
        List<String> first = new java.util.ArrayList<>(2);
        for (int i = 0; i < refused.size() && i < 2; i++) {
            String reason = refused.get(i).protection.reason();
            int cut = reason.lastIndexOf("; not a victim for ");
            first.add(cut < 0 ? reason : reason.substring(0, cut));
        }
        return new Refusal.VictimsRefused(List.copyOf(first), Math.max(refused.size() - 2, 0));
    }
}
