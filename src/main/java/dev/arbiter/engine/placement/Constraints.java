package dev.arbiter.engine.placement;

import dev.arbiter.decision.Refusal;

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
                   Placement.NodeAffinity affinity, Refusal blocked, NetworkDomains.Domain within) {
    /** Most pods select nothing and tolerate nothing: they share one key, compared by identity. */
    static final Constraints NONE = new Constraints(Map.of(), List.of(), Placement.NodeAffinity.NONE, null);

    Constraints(Map<String, String> selector, List<Toleration> tolerations, Placement.NodeAffinity affinity,
                Refusal blocked) {
        this(selector, tolerations, affinity, blocked, null);
    }

    Constraints confinedTo(NetworkDomains.Domain d) {
        return new Constraints(selector, tolerations, affinity, blocked, d);
    }

    /** The static constraints of {@code pod} ({@link #NONE} when it states none). */
    static Constraints of(PodSpec pod) {
        Placement pl = pod.placement();
        Refusal blocked = blockedReason(pod);
        if (pod.nodeSelector().isEmpty() && pod.tolerations().isEmpty() && pl.nodeAffinity().isNone() && blocked == null) {
            return NONE;
        }
        return new Constraints(pod.nodeSelector(), pod.tolerations(), pl.nodeAffinity(), blocked);
    }

    /** Why the pod may not be placed at all: its scheduling gates, or what it needs that Arbiter does not evaluate. */
    private static Refusal blockedReason(PodSpec pod) {
        Placement pl = pod.placement();
        if (!pl.schedulingGates().isEmpty()) {
            return new Refusal.Blocked(pod.key(), Refusal.Block.SCHEDULING_GATES, List.copyOf(pl.schedulingGates()));
        }
        if (!pl.notEvaluated().isEmpty()) {
            return new Refusal.Blocked(pod.key(), Refusal.Block.NOT_EVALUATED, List.copyOf(pl.notEvaluated()));
        }
        return null;
    }
}
