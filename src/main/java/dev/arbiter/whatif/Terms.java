package dev.arbiter.whatif;

import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.NodeRequirement;
import dev.arbiter.model.Placement.NodeSelectorTerm;
import java.util.ArrayList;
import java.util.List;

/**
 * The required placement terms of a pod that {@code whatif} may drop one at a time, and the placement without one.
 * Node affinity's terms are ORed (dropping a term narrows the pod's choice), so what is dropped there is one
 * matchExpression of a term; a term left empty goes too, and with no term left the required node affinity goes.
 */
final class Terms {
    private Terms() {}

    static final String NODE_AFFINITY = "node affinity";
    static final String POD_AFFINITY = "pod affinity";
    static final String POD_ANTI_AFFINITY = "pod anti-affinity";
    static final String SPREAD = "topology spread";

    /** A droppable term: its kind, its index within the kind, and how it reads. */
    record Term(String what, int index, String words) {}

    /** Every required term of {@code p}, in order. */
    static List<Term> of(Placement p) {
        List<Term> out = new ArrayList<>();
        if (p.nodeAffinity().required() != null) {
            int i = 0;
            for (NodeSelectorTerm t : p.nodeAffinity().required()) {
                for (NodeRequirement r : t.matchExpressions()) out.add(new Term(NODE_AFFINITY, i++, r.toString()));
            }
        }
        for (int i = 0; i < p.podAffinity().required().size(); i++) {
            out.add(new Term(POD_AFFINITY, i, p.podAffinity().required().get(i).toString()));
        }
        for (int i = 0; i < p.podAntiAffinity().required().size(); i++) {
            out.add(new Term(POD_ANTI_AFFINITY, i, p.podAntiAffinity().required().get(i).toString()));
        }
        int i = 0;
        for (Placement.SpreadConstraint c : p.spread()) {
            if (c.doNotSchedule()) out.add(new Term(SPREAD, i, c.toString()));
            i++;
        }
        return out;
    }

    /** {@code p} without the term {@code what} number {@code index} (as {@link #of} counts them). */
    static Placement without(Placement p, String what, int index) {
        switch (what) {
            case NODE_AFFINITY -> {
                List<NodeSelectorTerm> terms = new ArrayList<>();
                int i = 0;
                for (NodeSelectorTerm t : p.nodeAffinity().required()) {
                    List<NodeRequirement> kept = new ArrayList<>();
                    for (NodeRequirement r : t.matchExpressions()) if (i++ != index) kept.add(r);
                    if (!kept.isEmpty() || !t.matchFields().isEmpty()) terms.add(new NodeSelectorTerm(kept, t.matchFields()));
                }
                return p.withNodeAffinity(new Placement.NodeAffinity(terms.isEmpty() ? null : terms, p.nodeAffinity().preferred()));
            }
            case POD_AFFINITY -> {
                List<Placement.PodAffinityTerm> req = new ArrayList<>(p.podAffinity().required());
                req.remove(index);
                return p.withPodAffinity(new Placement.PodAffinity(req, p.podAffinity().preferred()));
            }
            case POD_ANTI_AFFINITY -> {
                List<Placement.PodAffinityTerm> req = new ArrayList<>(p.podAntiAffinity().required());
                req.remove(index);
                return p.withPodAntiAffinity(new Placement.PodAffinity(req, p.podAntiAffinity().preferred()));
            }
            case SPREAD -> {
                List<Placement.SpreadConstraint> s = new ArrayList<>(p.spread());
                s.remove(index);
                return p.withSpread(s);
            }
            default -> throw new IllegalArgumentException("no term kind " + what);
        }
    }
}
