package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.policy.ReclaimFit;
import dev.arbiter.engine.cycle.EvictionReasons.Outcome;
import dev.arbiter.engine.kept.KeptJob;
import dev.arbiter.engine.placement.EvictionShape;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.victims.VictimSelector;

import static dev.arbiter.engine.cycle.EvictionReasons.PER_CYCLE_SETTING;
import static dev.arbiter.engine.cycle.EvictionReasons.PER_QUEUE_SETTING;
import static dev.arbiter.engine.cycle.EvictionReasons.capabilityReason;
import static dev.arbiter.engine.cycle.EvictionReasons.evictedFor;
import static dev.arbiter.engine.cycle.EvictionReasons.evictionMessage;
import static dev.arbiter.engine.cycle.EvictionReasons.noSingleDomain;
import static dev.arbiter.engine.cycle.EvictionReasons.waitingFor;
import static dev.arbiter.engine.cycle.EvictionReasons.waitingForTerminating;
import static dev.arbiter.engine.cycle.EvictionReasons.wouldPassDeserved;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.model.Resources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One starving job's attempt to start with victims, as a {@link GangTransaction}: its pending tasks are placed, victims
 * evicted where idle capacity is not enough, until its gang can start; then all of it is committed, or none. A hard
 * network topology confines the attempt to one domain at a time ({@link #startInOneDomain}). Refusals that any job of
 * the same shape would meet are remembered for the cycle ({@link #refusedShapes}).
 */
final class GangEviction {
    private final CycleWork w;
    private final WorkingCluster state;
    private final Policy policy;
    private final NodeFitter fitter;
    private final VictimSelector victims;
    private final List<Eviction> evictions;
    private final List<Nomination> nominations;
    private final EvictionReasons reasons;
    private final EvictionBudget budget;
    private final AddBack addBack;

    GangEviction(CycleWork w, EvictionReasons reasons, EvictionBudget budget, AddBack addBack) {
        this.w = w;
        this.state = w.state;
        this.policy = w.policy;
        this.fitter = w.fitter;
        this.victims = w.victims;
        this.evictions = w.evictions;
        this.nominations = w.nominations;
        this.reasons = reasons;
        this.budget = budget;
        this.addBack = addBack;
    }

    /**
     * Network topology (issue 15): a hard gang evicts inside one domain only. {@link DomainVictims} ranks the domains
     * where it could start with victims (fewest, then cheapest); the best {@value #DOMAIN_TRIES} are tried in turn with
     * the gang's pods confined to each, through the same {@link #startWithVictims} and budgets as any job (a domain
     * the budgets refuse rarely leaves a later one they accept). Every other job goes straight to
     * {@link #startWithVictims}.
     */
    private static final int DOMAIN_TRIES = 4;

    Outcome startInOneDomain(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling, ReclaimFit fit,
                             String action, String rule) {
        dev.arbiter.model.NetworkTopology want = w.domains.wanted(j);
        if (want == null || !want.hard()) return startWithVictims(q, j, terms, ceiling, fit, action, rule, false);
        List<DomainVictims.Ranked> ranked = new DomainVictims(w).rank(j, policy.gangFor(j), want, terms);
        if (ranked.isEmpty()) {
            return noSingleDomain(want, rule);
        }
        Outcome o = null;
        for (DomainVictims.Ranked r : ranked.subList(0, Math.min(DOMAIN_TRIES, ranked.size()))) {
            fitter.confine(j.pending, r.domain());
            try {
                o = startWithVictims(q, j, terms, ceiling, fit, action, rule, true);
            } finally {
                fitter.unconfine();
            }
            if (o.started()) {
                j.domain = r.domain().name;
                return o;
            }
        }
        return o;
    }

    /**
     * Places the job's pending tasks in task order, evicting victims where idle capacity is not enough, until its
     * gang can start (Volcano stops a starving job there) or a task finds no room. Commits the evictions and holds the
     * placements (pipelined: they bind next cycle, once the victims are gone) only if the gang requirement then
     * holds; otherwise nothing changes, and the outcome says why.
     *
     * <p>Preemption ({@code ceiling} null) evicts within the queue, so it may also make room under the queue's
     * capability. Reclaim takes from other queues, so the queue may grow only up to {@code ceiling} (its deserved
     * share) in the dimensions each task needs, all of them or one of them as {@code fit} says, and never past a
     * capability — except that victims taken inside a capped ancestor it shares with them free room under that ancestor
     * (siblings give back to siblings).
     */
    private Outcome startWithVictims(QueueState q, Job j, VictimSelector.Terms terms, Resources ceiling, ReclaimFit fit,
                                     String action, String rule, boolean confined) {
        boolean reclaim = ceiling != null;
        GangRequirement gang = policy.gangFor(j);
        w.releaseNominatedRoom(j);
        Object shape = confined ? null : shape(j, gang, terms, ceiling, fit, action, rule);
        NodeFitter.Stamp startedAt = fitter.stamp();
        if (shape != null) {
            Refused known = refusedShapes.get(shape);
            if (known != null && known.at().equals(startedAt) && known.evictionsThen() == evictions.size()) {
                return known.replay().apply(j);
            }
        }
        GangTransaction tx = new GangTransaction(state, fitter);
        int waitsOnTerminating = 0;
        int victimCount = 0;
        Map<String, Integer> victimsPerQueue = new HashMap<>();
        Outcome refusal = null;
        // How the refusal reads for any job of the same shape (see refusedShapes); null while there is none, and for
        // a refusal in a search's or a capability's own words.
        java.util.function.Function<Job, Outcome> replay = null;
        for (int i = 0; i < j.pending.size(); i++) {
            Task t = j.pending.get(i);
            int index = i;
            if (t.placed) continue;
            if (CycleWork.gangSatisfied(j, gang, tx)) break;
            if (reclaim && !AncestorShares.admits(fit, q, t.share(), ceiling, terms.overDeserved().levels())) {
                refusal = wouldPassDeserved(q, ceiling, rule);
                break;
            }
            QueueState blocker = q.capabilityBlocker(t.share());
            QueueState capQueue = blocker != null ? blocker : reclaim ? null : q;
            if (blocker != null && reclaim && !holdsVictimQueue(blocker, terms)) {
                refusal = capabilityReason(blocker, t);
                break;
            }
            NodeState n = blocker == null ? fitter.best(t.pod) : null;
            if (n == null && blocker == null) {
                // Pods already on their way out count before anyone else is evicted.
                n = fitter.bestOnceReleased(t.pod);
                if (n != null) waitsOnTerminating++;
            }
            if (n == null) {
                // With little of the cycle's budget left, most jobs cannot fit theirs: the search then looks only where
                // that few victims could make room, and says so when none can.
                int left = budget.left(victimCount);
                VictimSelector.Plan plan = left <= 0 ? null
                        : victims.find(t, terms.bindingCapabilityOf(capQueue), left);
                if (plan == null && (left <= 0 || victims.lastRefusal() == null)) {
                    int chosen = victimCount;
                    replay = job -> reasons.budgetExceeded(job, index, chosen, left);
                    refusal = replay.apply(j);
                    break;
                }
                if (plan == null) {
                    refusal = Outcome.refused(victims.lastRefusal(), reasons.victimRefusalRule(rule));
                    break;
                }
                for (Task v : plan.victims()) {
                    tx.evict(v);
                    victimsPerQueue.merge(v.job.queue, 1, Integer::sum);
                }
                victimCount += plan.victims().size();
                n = plan.node();
                // More victims only overspend more: once over budget, the rest of the search is wasted.
                Refusal overBudget = budget.overspends(victimCount, victimsPerQueue);
                if (overBudget != null) {
                    refusal = Outcome.refused(overBudget, overBudget instanceof Refusal.QueueBudgetWouldPass
                            ? PER_QUEUE_SETTING : PER_CYCLE_SETTING);
                    Outcome same = refusal;
                    replay = job -> same;
                    break;
                }
                // The plan made room under the lowest capability that bound (or, for a queue already past it, swapped
                // as much as it adds); one higher up the tree may still refuse the task.
                QueueState stillBlocks = capQueue == null || capQueue.parent == null ? null
                        : capQueue.parent.capabilityBlocker(t.share());
                if (stillBlocks != null) {
                    refusal = capabilityReason(stillBlocks, t);
                    break;
                }
            }
            tx.place(t, n);
        }
        Refusal shortfall = CycleWork.gangShortfall(j, gang, tx);
        if (refusal != null || shortfall != null || (tx.evictions().isEmpty() && waitsOnTerminating == 0)) {
            tx.discard();
            w.holdNominatedRoom(j);
            if (refusal == null) {
                // Nothing to evict and the gang can start on idle capacity: what held it back was not room (e.g. its
                // queue's share), and the allocation step already said so.
                refusal = Outcome.refused(shortfall, rule);
                Outcome same = refusal;
                replay = job -> same;
            }
            if (replay != null && shape != null) {
                if (refusedShapes.size() >= 4096) refusedShapes.clear();
                refusedShapes.put(shape, new Refused(startedAt, evictions.size(), replay));
            }
            return refusal;
        }
        return commit(q, j, tx, waitsOnTerminating, action, rule);
    }

    /**
     * The gang starts: its victims not needed go back ({@link AddBack#giveBackUnneeded}), its placements are held as
     * nominations, and its evictions are committed, counted against the budgets and remembered for the cycle's
     * add-back. It waits for them (or for terminating pods) to leave.
     */
    private Outcome commit(QueueState q, Job j, GangTransaction tx, int waitsOnTerminating, String action,
                           String rule) {
        if (tx.evictions().size() > 1) addBack.giveBackUnneeded(q, tx);
        j.pipelined = true;
        for (Task t : tx.placements()) {
            t.place();
            state.touch(t);
            nominations.add(new Nomination(t.id(), tx.nodeOf(t).name()));
            addBack.held(t, tx.nodeOf(t));
        }
        if (tx.evictions().isEmpty()) {
            j.setReason(waitingForTerminating(waitsOnTerminating), rule);
            return Outcome.STARTED;
        }
        for (Task v : tx.evictions()) {
            budget.charge(v);
            evictions.add(new Eviction(v.id(), v.node.name(), action, j.id, rule, evictionMessage(action, j, v)));
            addBack.evicted(v, j, action, rule, v.job.reason == null);
            if (v.job.reason == null) {
                v.job.setReason(evictedFor(action, j), rule);
            }
        }
        j.setReason(waitingFor(tx.evictions().size(), action), rule);
        return Outcome.STARTED;
    }

    /**
     * A job refused without a search's own words (the eviction budget refused it, or it needed no victims and still
     * could not start), and when: the cycle's exact state (a refused job leaves none of its steps behind, so the next
     * job starts from the same one) and how many evictions it had. Once the budget is nearly spent, every starving job
     * is refused, and a large fleet has thousands of them, mostly alike: a job of the same {@link #shape} that starts
     * from the same state takes the same steps to the same refusal, which {@code replay} words for it.
     */
    private record Refused(NodeFitter.Stamp at, int evictionsThen, java.util.function.Function<Job, Outcome> replay) {}

    private final Map<Object, Refused> refusedShapes = new HashMap<>();

    /**
     * The jobs' eviction shapes worked out this cycle, where no kept working copy remembers them across cycles
     * ({@link KeptJob#evictionShape}).
     */
    private final Map<Job, EvictionShape> shapes = new java.util.IdentityHashMap<>();

    /**
     * What {@link #startWithVictims} reads of a job, as a key: the action, the rule, the terms, the ceiling, members
     * bound this cycle, which pending tasks are placed, and what does not change in a cycle ({@link EvictionShape}).
     * Null (not remembered) for a job with running members (they are never its own victims, so the search depends on
     * the job), nominated room, or a pod whose placement depends on other pods.
     */
    private Object shape(Job j, GangRequirement gang, VictimSelector.Terms terms, Resources ceiling, ReclaimFit fit,
                         String action,
                         String rule) {
        if (!j.running.isEmpty() || gang == null) return null;
        KeptJob k = w.kept(j);
        EvictionShape known = k != null ? k.evictionShape() : shapes.get(j);
        EvictionShape tasks = known != null && known.stillFor(j, gang, fitter) ? known
                : EvictionShape.of(j, gang, fitter);
        if (tasks == EvictionShape.NONE) return null;
        if (k != null) k.evictionShape(tasks);
        else shapes.put(j, tasks);
        java.util.BitSet placed = placedPending(j);
        if (placed == null) return null;
        return List.of(action, String.valueOf(rule), terms.key(), ceiling == null ? Resources.NONE : ceiling, fit, j.bound,
                placed, tasks);
    }

    /**
     * Which of the job's pending tasks are placed, by position; null when one of them has (or had) room held on its
     * nominated node. Only a job that held nominated room when the cycle began can have such a task, and a job that
     * placed none has none to list: for most starving jobs no task is read.
     */
    static java.util.BitSet placedPending(Job j) {
        if (j.nominated) {
            for (Task t : j.pending) if (t.nominated != null || t.holding) return null;
        }
        if (j.placedPending == 0) return NONE_PLACED;
        java.util.BitSet placed = new java.util.BitSet();
        for (int i = 0; i < j.pending.size(); i++) if (j.pending.get(i).placed) placed.set(i);
        return placed;
    }

    /** No task placed (never modified). */
    private static final java.util.BitSet NONE_PLACED = new java.util.BitSet();

    /** Whether some queue the terms may take victims from lies under {@code ancestor}. */
    private boolean holdsVictimQueue(QueueState ancestor, VictimSelector.Terms terms) {
        for (String name : terms.floors().keySet()) {
            QueueState vq = state.queues.get(name);
            if (vq != null && vq.isWithin(ancestor)) return true;
        }
        return false;
    }
}
