package dev.arbiter.engine.placement;

import dev.arbiter.model.Placement;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * The static constraints of a pod: nodeSelector, tolerations, node affinity; {@code blocked} says why the pod may
 * not be placed at all (scheduling gates, or a need Arbiter does not evaluate), or is null; {@code within} is the
 * network domain its gang is confined to while the gang tries that domain (see {@link NodeFitter#confine}), or null.
 */
record Constraints(Map<String, String> selector, List<Toleration> tolerations,
                   Placement.NodeAffinity affinity, String blocked, NetworkDomains.Domain within) {
    /** Most pods select nothing and tolerate nothing: they share one key, compared by identity. */
    static final Constraints NONE = new Constraints(Map.of(), List.of(), Placement.NodeAffinity.NONE, null);

    Constraints(Map<String, String> selector, List<Toleration> tolerations, Placement.NodeAffinity affinity,
                String blocked) {
        this(selector, tolerations, affinity, blocked, null);
    }

    Constraints confinedTo(NetworkDomains.Domain d) {
        return new Constraints(selector, tolerations, affinity, blocked, d);
    }

    /** The static constraints of {@code pod} ({@link #NONE} when it states none). */
    static Constraints of(PodSpec pod) {
        Placement pl = pod.placement();
        String blocked = blockedReason(pod);
        if (pod.nodeSelector().isEmpty() && pod.tolerations().isEmpty() && pl.nodeAffinity().isNone() && blocked == null) {
            return NONE;
        }
        return new Constraints(pod.nodeSelector(), pod.tolerations(), pl.nodeAffinity(), blocked);
    }

    /** Why the pod may not be placed at all: its scheduling gates, or what it needs that Arbiter does not evaluate. */
    private static String blockedReason(PodSpec pod) {
        Placement pl = pod.placement();
        if (!pl.schedulingGates().isEmpty()) {
            return "pod " + pod.key() + " is waiting for its scheduling gates to be removed: " + String.join(", ", pl.schedulingGates());
        }
        if (!pl.notEvaluated().isEmpty()) {
            return "pod " + pod.key() + " needs " + String.join(", ", pl.notEvaluated()) + ", which Arbiter does not"
                    + " evaluate: it stays pending rather than be bound blind";
        }
        return null;
    }
}
