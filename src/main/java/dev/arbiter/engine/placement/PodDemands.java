package dev.arbiter.engine.placement;

import dev.arbiter.engine.state.Task;

import dev.arbiter.model.Placement;
import dev.arbiter.model.PodSpec;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demands of a cycle's pods ({@link Demand}): worked out once per pod, or not kept at all for a pod without
 * placement rules when no pod's anti-affinity could match it. While a gang tries a network domain, its pods' demands
 * carry that domain in their constraints.
 */
final class PodDemands {
    private final Topology topology;
    private final NodeStatics statics;
    private final Map<PodSpec, Demand> demands = new IdentityHashMap<>(); // grows with the pods that have rules (most have none)
    /** While a gang tries one domain: the domain, and its pods (by identity); see {@link #confine}. */
    private NetworkDomains.Domain confinedTo;
    private Set<PodSpec> confinedPods;
    private final Map<NetworkDomains.Domain, Map<PodSpec, Demand>> confinedDemands = new HashMap<>();
    /**
     * For the whole cycle, the nodes each pod may use besides its own constraints (null: every node), e.g. outside
     * the nodes reserved for another job ({@link NodeFitter#restrict}); null when nothing is restricted.
     */
    private java.util.function.Function<PodSpec, NetworkDomains.Domain> restriction;
    /** A confining domain within a restriction: the nodes of both, one object per pair (demands are keyed by it). */
    private final Map<NetworkDomains.Domain, Map<NetworkDomains.Domain, NetworkDomains.Domain>> both = new IdentityHashMap<>();

    private record Last(PodSpec pod, Demand demand) {}

    private Last last;

    PodDemands(Topology topology, NodeStatics statics) {
        this.topology = topology;
        this.statics = statics;
    }

    /** Confines the pods of {@code tasks} to {@code domain} until {@link #unconfine} ({@link NodeFitter#confine}). */
    void confine(List<Task> tasks, NetworkDomains.Domain domain) {
        Set<PodSpec> pods = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Task t : tasks) pods.add(t.pod);
        confinedPods = pods;
        confinedTo = domain;
        last = null;
    }

    /** Ends {@link #confine}. */
    void unconfine() {
        confinedPods = null;
        confinedTo = null;
        last = null;
    }

    /** Restricts pods to nodes for the rest of the cycle ({@link NodeFitter#restrict}); null lifts it. */
    void restrict(java.util.function.Function<PodSpec, NetworkDomains.Domain> r) {
        restriction = r;
        last = null;
    }

    /** The nodes {@code pod} is restricted to for the cycle, or null (every node). */
    NetworkDomains.Domain restrictionOf(PodSpec pod) {
        return restriction == null ? null : restriction.apply(pod);
    }

    /** Whether a gang's pods are confined to a domain now, or some pods are restricted for the cycle. */
    boolean confining() {
        return confinedTo != null || restriction != null;
    }

    /**
     * What {@code pod} asks of nodes, confined to the domain its gang tries if it is confined ({@link #confine}), and
     * to the nodes it is restricted to ({@link #restrict}).
     */
    Demand of(PodSpec pod) {
        NetworkDomains.Domain r = restriction == null ? null : restriction.apply(pod);
        NetworkDomains.Domain c = confinedTo == null || !confinedPods.contains(pod) ? null : confinedTo;
        if (r == null && c == null) return unconfined(pod);
        NetworkDomains.Domain d = r == null ? c : c == null ? r
                : both.computeIfAbsent(c, k -> new IdentityHashMap<>()).computeIfAbsent(r, k -> c.within(r));
        if (last != null && last.pod == pod && last.demand.constraints.within() == d) return last.demand;
        Demand base = unconfined(pod);
        Demand confined = confinedDemands.computeIfAbsent(d, k -> new IdentityHashMap<>()).computeIfAbsent(pod,
                p -> new Demand(p, base.constraints.confinedTo(d), base.rules, base.self, base.carriers));
        last = new Last(pod, confined);
        return confined;
    }

    /** What {@code pod} asks of nodes, ignoring any confinement. */
    Demand unconfined(PodSpec pod) {
        if (last != null && last.pod == pod && last.demand.constraints.within() == null) return last.demand;
        if (pod.placement() == Placement.NONE && !topology.hasCarriers()) {
            // Nothing to remember: no rule of its own, and no pod's anti-affinity that could match it. Such a demand is
            // its request, nodeSelector and tolerations: the pods of a job share those, and are asked about one after
            // another, so the previous pod's demand serves when they are the same.
            Demand plain = last != null && last.demand.constraints.within() == null && !last.demand.dependsOnPods()
                    && pod.asksAlikeOf(last.pod) ? last.demand : new Demand(pod, Constraints.of(pod), null, 0, List.of());
            last = new Last(pod, plain);
            return plain;
        }
        Demand d = demands.get(pod);
        if (d != null) {
            last = new Last(pod, d);
            return d;
        }
        Constraints c;
        Topology.Rules rules = null;
        // The pods of a job share their selector, tolerations and placement objects and are asked about one after
        // another: the previous pod's constraints and rules serve without hashing them again.
        boolean sameAsLast = last != null && last.demand.constraints.within() == null
                && pod.nodeSelector() == last.pod.nodeSelector()
                && pod.tolerations() == last.pod.tolerations() && pod.placement() == last.pod.placement()
                && pod.namespace().equals(last.pod.namespace());
        if (sameAsLast) {
            c = last.demand.constraints;
            rules = last.demand.rules;
        } else {
            c = Constraints.of(pod);
        }
        long self = 0;
        List<Topology.CarrierTerm> carriers = List.of();
        if (c.blocked() == null) {
            if (pod.placement().dependsOnPods()) {
                if (rules == null) {
                    StaticClass sc = statics.staticClass(c);
                    rules = topology.rules(pod, c, sc.affinityNodes, sc.tolerated);
                }
                self = topology.selfMatch(rules, pod);
            }
            carriers = topology.carriersMatching(pod);
        }
        d = new Demand(pod, c, rules, self, carriers);
        demands.put(pod, d);
        last = new Last(pod, d);
        return d;
    }
}
