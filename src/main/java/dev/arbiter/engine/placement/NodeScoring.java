package dev.arbiter.engine.placement;

import dev.arbiter.engine.placement.NodeFitter.Scoring;
import dev.arbiter.engine.state.FreeIndex;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The search for the best node, and its scores: the eligible nodes of a pod's static class, in tiers of preferred
 * node-affinity weight, each kept sorted by free primary dimension ({@link FreeIndex}, kept across cycles with the
 * {@link NodeStatics} where the order depends on free capacity alone). The walk takes the first node where every
 * dimension fits and the rules that depend on other pods pass; the scores (weighted binpack, preferred pod affinity,
 * ScheduleAnyway spread, the first pod of a set) decide among those as {@link NodeFitter} describes.
 */
final class NodeScoring {
    record IndexKey(Constraints constraints, long tier, String dimension) {}

    /** How many fitting nodes weighted scoring compares (the fullest, or emptiest, in the primary dimension). */
    static final int WEIGHED_CANDIDATES = 16;

    private final Scoring scoring;
    /** Per-resource weights of Volcano's binpack score (the policy's {@code scoring.weights}); empty for none. */
    private final Map<String, Integer> weights;
    private final NodeStatics statics;
    private final Topology topology;
    private final Map<IndexKey, FreeIndex> indexes = new HashMap<>();
    /** The cycle's network domains (the packing order's tie-break), or null. */
    private NetworkDomains domains;
    private final List<NodeState> releasing = new ArrayList<>();

    NodeScoring(List<NodeState> nodes, Scoring scoring, Map<String, Integer> weights, NodeStatics statics,
               Topology topology) {
        this.scoring = scoring;
        this.weights = weights;
        this.statics = statics;
        this.topology = topology;
        for (NodeState n : nodes) if (n.hasReleasing()) releasing.add(n);
    }

    /** Among equally free nodes, prefer those in fuller domains of {@code d} (call before the first query). */
    void useDomains(NetworkDomains d) {
        this.domains = d;
    }

    /** The best node whose free capacity holds the pod of demand {@code d} and whose rules pass, or null. */
    NodeState search(PodSpec pod, Demand d) {
        Resources req = pod.requests();
        String dim = NodeFitter.primaryDimension(req);
        StaticClass sc = statics.staticClass(d.constraints);
        boolean rules = d.dependsOnPods();
        Map<String, Long> firstOfSet = d.rules == null ? null : topology.firstOfSetRoom(d.rules, d.self, sc.list(), dim);
        if (firstOfSet != null || (d.rules != null && d.rules.hasPreferences())) return scored(req, dim, d, sc, firstOfSet);
        for (long tier : sc.tiers) {
            NodeState best = null;
            double bestScore = 0;
            int compared = 0;
            for (NodeState n : candidates(sc, tier, req, dim)) {
                if (n.freeMilli(dim) < req.milli(dim)) break;
                if (!req.fitsIn(n.free()) || (rules && !passes(d, n, List.of()))) continue;
                if (weights.isEmpty()) return n;
                double score = weightedScore(n, req);
                if (best == null || (scoring == Scoring.BINPACK ? score > bestScore : score < bestScore)) {
                    best = n;
                    bestScore = score;
                }
                if (++compared == WEIGHED_CANDIDATES) break;
            }
            if (best != null) return best;
        }
        return null;
    }

    /** Volcano's binpack score of the node with the pod on it: the weighted mean of each resource's use after it. */
    private double weightedScore(NodeState n, Resources req) {
        double sum = 0;
        long total = 0;
        for (Map.Entry<String, Integer> w : weights.entrySet()) {
            long alloc = n.spec.allocatable().milli(w.getKey());
            if (alloc <= 0 || w.getValue() <= 0) continue;
            double used = (double) (n.used().milli(w.getKey()) + req.milli(w.getKey())) / alloc;
            sum += w.getValue() * used;
            total += w.getValue();
        }
        return total == 0 ? 0 : sum / total;
    }

    /**
     * With preferred pod (anti-)affinity or ScheduleAnyway spread: every eligible node with room, the highest
     * preference points first, then the lowest spread penalty, then the packing order (which the walk follows).
     * {@code firstOfSet} (not null for the first pod of a set with required affinity to itself, see
     * {@link Topology#firstOfSetRoom}) ranks first: the domain with the most room for the set.
     */
    private NodeState scored(Resources req, String dim, Demand d, StaticClass sc, Map<String, Long> firstOfSet) {
        NodeState best = null;
        long bestRoom = 0, bestPoints = 0, bestPenalty = 0;
        for (NodeState n : candidates(sc, ALL_TIERS, req, dim)) {
            if (n.freeMilli(dim) < req.milli(dim)) break;
            if (!req.fitsIn(n.free()) || !passes(d, n, List.of())) continue;
            long room = firstOfSet == null ? 0 : firstOfSet.getOrDefault(topology.firstAffinityDomain(d.rules, n), 0L);
            long points = sc.points(n) + topology.preferencePoints(d.rules, n);
            long penalty = topology.spreadPenalty(d.rules, n);
            if (best == null || room > bestRoom || (room == bestRoom && (points > bestPoints
                    || (points == bestPoints && penalty < bestPenalty)))) {
                best = n;
                bestRoom = room;
                bestPoints = points;
                bestPenalty = penalty;
            }
        }
        return best;
    }

    private static final long ALL_TIERS = Long.MIN_VALUE;

    /** The nodes of a tier in packing order, from the first with enough of the primary dimension (binpack). */
    private Iterable<NodeState> candidates(StaticClass sc, long tier, Resources req, String dim) {
        FreeIndex index = index(sc, tier, dim);
        return scoring == Scoring.BINPACK ? index.atLeast(req.milli(dim)) : index;
    }

    /** Host ports, then spread, affinity, anti-affinity and existing pods' anti-affinity. */
    boolean passes(Demand d, NodeState n, Collection<Task> gone) {
        return topology.portsViolation(d.rules, n, gone) == null
                && topology.podRulesViolation(d.rules, d.self, d.carriers, n, gone) == null;
    }

    /** The best node that will hold the pod once its terminating pods are gone (for pipelining), or null. */
    NodeState bestOnceReleased(PodSpec pod, Demand d) {
        StaticClass sc = statics.staticClass(d.constraints);
        Resources req = pod.requests();
        String dim = NodeFitter.primaryDimension(req);
        NodeState best = null;
        long bestPoints = 0, bestPenalty = 0, bestFree = 0;
        for (NodeState n : releasing) {
            if (!sc.eligible.get(n.index) || !req.fitsIn(n.futureFree())) continue;
            if (d.dependsOnPods() && !passes(d, n, List.of())) continue;
            long points = sc.points(n) + (d.rules == null ? 0 : topology.preferencePoints(d.rules, n));
            long penalty = d.rules == null ? 0 : topology.spreadPenalty(d.rules, n);
            long free = n.futureFree().milli(dim);
            boolean better = best == null || points > bestPoints || (points == bestPoints && (penalty < bestPenalty
                    || (penalty == bestPenalty && (scoring == Scoring.BINPACK ? free < bestFree : free > bestFree))));
            if (better) {
                best = n;
                bestPoints = points;
                bestPenalty = penalty;
                bestFree = free;
            }
        }
        return best;
    }

    private FreeIndex index(StaticClass sc, long tier, String dim) {
        IndexKey key = new IndexKey(sc.c, tier, dim);
        FreeIndex set = indexes.get(key);
        if (set != null) return set;
        // Among nodes equally free, those in fuller network domains first (fixed for the cycle).
        int[] rank = domains == null ? null : domains.fullerFirst(dim);
        // Without that cycle's own tie-break, the order depends on the nodes' free capacity alone: an index kept with
        // the nodes stays right, as every change of free capacity re-files a node (NodeState#change).
        boolean keep = rank == null && sc.c.within() == null;
        set = keep ? statics.keptIndex(key, scoring) : null;
        if (set == null) {
            List<NodeState> members = sc.list();
            if (tier != ALL_TIERS && sc.tiers.length > 1) {
                members = new ArrayList<>();
                for (NodeState n : sc.list()) if (sc.points(n) == tier) members.add(n);
            }
            set = new FreeIndex(dim, scoring == Scoring.SPREAD, members, rank, statics.nodes.size());
            for (NodeState n : members) {
                if (keep) n.indexedInKept(set);
                else n.indexedIn(set);
            }
            if (keep) statics.keepIndex(key, scoring, set);
        }
        indexes.put(key, set);
        return set;
    }
}
