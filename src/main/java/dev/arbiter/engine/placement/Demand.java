package dev.arbiter.engine.placement;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.List;

/**
 * What one pod asks of nodes, worked out once per pod per cycle ({@link PodDemands}): its static constraints, its rules
 * that depend on other pods ({@link Topology.Rules}, its self-matches, the existing anti-affinity terms that match it),
 * and the {@link Shape} under which answers about it are remembered.
 */
final class Demand {
    final Constraints constraints;
    final Topology.Rules rules;
    final long self;
    final List<Topology.CarrierTerm> carriers;
    final Shape shape;

    Demand(PodSpec pod, Constraints constraints, Topology.Rules rules, long self, List<Topology.CarrierTerm> carriers) {
        this.constraints = constraints;
        this.rules = rules;
        this.self = self;
        this.carriers = carriers;
        this.shape = new Shape(pod.requests(), constraints, dependsOnPods() ? new DynamicKey(rules, self, carriers) : null);
    }

    boolean dependsOnPods() {
        return rules != null || !carriers.isEmpty();
    }

    /** A request with its constraints; hashed once. */
    static final class Shape {
        final Resources request;
        final Object constraints;
        final Object dynamic;
        final int hash;

        Shape(Resources request, Object constraints, Object dynamic) {
            this.request = request;
            this.constraints = constraints;
            this.dynamic = dynamic;
            // java.util.Objects.hash(request, constraints, dynamic), without its array
            this.hash = 31 * (31 * (31 + java.util.Objects.hashCode(request)) + constraints.hashCode())
                    + java.util.Objects.hashCode(dynamic);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Shape s && hash == s.hash && java.util.Objects.equals(request, s.request)
                    && constraints.equals(s.constraints) && java.util.Objects.equals(dynamic, s.dynamic);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** What the rules that depend on other pods make of one pod: equal keys, equal answers. */
    private record DynamicKey(Topology.Rules rules, long self, List<Topology.CarrierTerm> carriers) {}
}
