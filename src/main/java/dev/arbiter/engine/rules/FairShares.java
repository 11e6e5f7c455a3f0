package dev.arbiter.engine.rules;

import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.QueueState;

import dev.arbiter.facts.DeservedShare;
import dev.arbiter.facts.LendingLimit;
import dev.arbiter.facts.QueueShare;
import dev.arbiter.facts.ShareTerms;
import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fair-share step (Volcano's proportion), in Java, fed by the rules: each queue takes part on the terms a rule
 * gave it ({@link ShareTerms}: weight, capability, guarantee), or deserves what a rule stated outright
 * ({@link DeservedShare}, the capacity plugin's way). A queue neither names deserves nothing.
 *
 * <p>Water-filling, down the queue tree: the root's children share the cluster; each queue's children share what that
 * queue deserves. At each level, guarantees (and stated shares) are reserved first; then, round by round, every queue
 * that is not yet met adds {@code weight / (sum of unmet weights)} of what remains (in whole milli-units, rounded
 * down), capped by its real capability (its capability within what other queues' guarantees leave) and by what its
 * subtree requests (in the dimensions it requests), and raised to its guarantee. A queue is met once it has all it
 * requests, or all it could get were it given everything that remains. What remains for the next round is the level's
 * total less each queue's larger of deserved and guarantee; rounds stop when nothing remains, or when a round changed
 * neither what remains nor which queues are unmet. Example: weights 1:3 on 32 GPUs, both asking for everything:
 * 8 and 24.
 *
 * <p>Lending limits ({@link LendingLimit}, Kueue's {@code lendingLimit}): a lender's <em>kept</em> share is the share
 * it would deserve were it busy (its nominal share: a first water-filling in which every lender, with its ancestors,
 * asks for everything and every other queue for what it asks; a stated share as stated), less its limit, in the resources the limit names. In the water-filling the
 * lender then takes part as if it asked at least for its kept share, so no other queue deserves it (allocation keeps
 * what the lender does not use out of other queues' growth past their shares: {@code cycle.KeptRoom}). Example:
 * weights 1:1 on 32 GPUs, lender A idle with a limit of 4 GPUs: A's nominal share 16, kept 12; B, asking for
 * everything, deserves 20. Without lending limits nothing of this runs.
 */
final class FairShares {
    private final WorkingCluster state;
    private final Map<String, ShareTerms> terms;
    private final Map<String, DeservedShare> stated;
    private final Map<QueueState, Resources> deserved = new HashMap<>();
    private final Map<QueueState, Caps> real = new HashMap<>();
    /** The nominal pass: the lenders ask for everything (the others what they ask); null otherwise. */
    private final java.util.Set<QueueState> askingEverything;
    /** What each lender keeps (empty without lending limits), and what the water-filling adds to a request for it. */
    private Map<QueueState, Resources> kept = Map.of();
    private Map<QueueState, Resources> raised = Map.of();

    private FairShares(WorkingCluster state, Map<String, ShareTerms> terms, Map<String, DeservedShare> stated,
                       java.util.Set<QueueState> askingEverything) {
        this.state = state;
        this.terms = terms;
        this.stated = stated;
        this.askingEverything = askingEverything;
    }

    /** Every queue's share, by queue. */
    static Map<QueueState, QueueShare> compute(WorkingCluster state, Map<String, ShareTerms> terms,
                                               Map<String, DeservedShare> stated) {
        return compute(state, terms, stated, Map.of());
    }

    /** Every queue's share, by queue, with the lenders' {@code lending} limits (by queue name) kept out of others'. */
    static Map<QueueState, QueueShare> compute(WorkingCluster state, Map<String, ShareTerms> terms,
                                               Map<String, DeservedShare> stated, Map<String, LendingLimit> lending) {
        FairShares f = new FairShares(state, terms, stated, null);
        if (!lending.isEmpty()) f.keep(lending);
        return f.compute();
    }

    /**
     * Each lender's kept share (its nominal share less its limit, in the dimensions the limit names), and what its
     * request and its ancestors' are raised by so that the water-filling holds that share for it.
     */
    private void keep(Map<String, LendingLimit> lending) {
        java.util.Set<QueueState> lenders = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (QueueState q : state.queues.values()) {
            if (lending.containsKey(q.name())) for (QueueState a = q; a != null; a = a.parent) lenders.add(a);
        }
        FairShares nominal = new FairShares(state, terms, stated, lenders);
        nominal.compute();
        kept = new HashMap<>();
        raised = new HashMap<>();
        for (QueueState q : state.queues.values()) {
            LendingLimit l = lending.get(q.name());
            if (l == null || l.limit() == null) continue;
            Resources n = nominal.deserved.get(q);
            Map<String, Long> k = new java.util.TreeMap<>();
            l.limit().asMilliMap().forEach((dim, limit) -> k.put(dim, Math.max(0, Resources.subtractSaturated(n.milli(dim), limit))));
            Resources keep = Resources.ofMilli(k);
            if (keep.isEmpty()) continue;
            kept.put(q, keep);
            Resources more = keep.subtract(q.request).clampNonNegative();
            for (QueueState a = q; a != null && !more.isEmpty(); a = a.parent) raised.merge(a, more, Resources::add);
        }
    }

    private Map<QueueState, QueueShare> compute() {
        List<QueueState> top = new ArrayList<>();
        for (QueueState q : state.queues.values()) if (q.parent == null) top.add(q);
        Resources guaranteed = Resources.NONE;
        for (QueueState q : top) guaranteed = guaranteed.add(guarantee(q));
        Resources shareable = state.clusterTotal.subtract(guaranteed).clampNonNegative();
        for (QueueState q : state.queues.values()) {
            DeservedShare s = stated.get(q.name());
            ShareTerms t = terms.get(q.name());
            Caps r;
            if (s != null) {
                r = Caps.of(state.clusterTotal);
                if (s.capability() != null) r = r.intersect(s.capability());
                deserved.put(q, r.cap(s.deserved() == null ? Resources.NONE : s.deserved()));
            } else {
                r = Caps.of(shareable.add(guarantee(q)));
                if (t != null && t.capability() != null) r = r.intersect(t.capability());
                deserved.put(q, Resources.NONE);
            }
            real.put(q, r);
        }
        share(state.clusterTotal, top);
        Map<QueueState, QueueShare> out = new HashMap<>();
        for (QueueState q : state.queues.values()) {
            Resources d = deserved.get(q);
            out.put(q, new QueueShare(q.name(), d, real.get(q), d.fitsIn(q.allocated), !q.allocated.fitsIn(d),
                    kept.getOrDefault(q, Resources.NONE)));
        }
        return out;
    }

    private Resources guarantee(QueueState q) {
        ShareTerms t = terms.get(q.name());
        return t == null || t.guarantee() == null ? Resources.NONE : t.guarantee();
    }

    private int weight(QueueState q) {
        ShareTerms t = terms.get(q.name());
        return t == null ? 0 : t.weight();
    }

    /** One level: {@code children} share {@code total}; then each child's children share what it deserves. */
    private void share(Resources total, List<QueueState> children) {
        List<QueueState> rounds = new ArrayList<>();
        for (QueueState q : children) if (!stated.containsKey(q.name()) && terms.containsKey(q.name())) rounds.add(q);
        boolean[] met = new boolean[rounds.size()];
        Resources remaining = total.subtract(reserved(children)).clampNonNegative();
        long unmetWeight = unmetWeight(rounds, met);
        boolean open = unmetWeight > 0 && !remaining.isEmpty();
        while (open) {
            for (int i = 0; i < rounds.size(); i++) {
                QueueState q = rounds.get(i);
                if (met[i] || weight(q) <= 0) continue;
                Resources before = deserved.get(q);
                Resources next = grown(q, before, remaining.scale(weight(q), unmetWeight));
                deserved.put(q, next);
                met[i] = request(q).fitsIn(next) || next.equals(grown(q, before, remaining));
            }
            Resources previous = remaining;
            long previousUnmet = unmetWeight;
            remaining = total.subtract(taken(children)).clampNonNegative();
            unmetWeight = unmetWeight(rounds, met);
            open = unmetWeight > 0 && !remaining.isEmpty() && (!remaining.equals(previous) || unmetWeight != previousUnmet);
        }
        for (QueueState q : children) if (!q.children.isEmpty()) share(deserved.get(q), q.children);
    }

    /** {@code from} plus {@code more}, within the real capability and the request, and at least the guarantee. */
    private Resources grown(QueueState q, Resources from, Resources more) {
        return real.get(q).cap(from.add(more)).min(request(q)).clampNonNegative().max(guarantee(q));
    }

    /** What the queue's subtree asks for: everything for a lender in the nominal pass; raised to a lender's kept share. */
    private Resources request(QueueState q) {
        if (askingEverything != null && askingEverything.contains(q)) return state.clusterTotal;
        Resources more = raised.get(q);
        return more == null ? q.request : q.request.add(more);
    }

    /** What a level holds back before the first round: guarantees, and shares stated outright. */
    private Resources reserved(List<QueueState> children) {
        Resources r = Resources.NONE;
        for (QueueState q : children) r = r.add(stated.containsKey(q.name()) ? deserved.get(q).max(guarantee(q)) : guarantee(q));
        return r;
    }

    /** What a level's queues hold after a round: each one's larger of deserved and guarantee. */
    private Resources taken(List<QueueState> children) {
        Resources r = Resources.NONE;
        for (QueueState q : children) r = r.add(deserved.get(q).max(guarantee(q)));
        return r;
    }

    private long unmetWeight(List<QueueState> rounds, boolean[] met) {
        long w = 0;
        for (int i = 0; i < rounds.size(); i++) if (!met[i]) w += weight(rounds.get(i));
        return w;
    }
}
