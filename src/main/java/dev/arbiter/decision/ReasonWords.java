package dev.arbiter.decision;

import dev.arbiter.decision.Refusal.*;
import dev.arbiter.model.Quantity;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place a {@link Refusal} becomes words: the reason a PodGroup's status, its pods' conditions and events,
 * {@code explain} and the report show. The words follow kube-scheduler where it has some ({@code 0/12 nodes are
 * available: 8 Insufficient nvidia.com/gpu}) and name queues in quotes and amounts in each resource's own units.
 *
 * <p>An instance remembers the words of the refusals it has worded, by identity: a cycle's thousands of waiting jobs
 * mostly share a few refusals, and each is worded once ({@link #of(Refusal)}); a job that waits unchanged keeps its
 * refusal from cycle to cycle, and an instance kept across cycles ({@link #nextCycle}) words it once for all of them.
 * {@link #words} words one afresh.
 */
public final class ReasonWords {
    /** The words worded in this cycle, and those of the last (found again there, they move to this one's). */
    private Map<Refusal, String> worded = new IdentityHashMap<>();
    private Map<Refusal, String> lastCycle = new IdentityHashMap<>();

    /** The words of {@code r} (null for null), worded once per refusal instance this instance has seen. */
    public String of(Refusal r) {
        if (r == null) return null;
        String s = worded.get(r);
        if (s == null) {
            s = lastCycle.remove(r);
            if (s == null) s = word(r);
            worded.put(r, s);
        }
        return s;
    }

    /**
     * A new cycle: the words of refusals not asked for since the last call are forgotten, so an instance kept across
     * cycles holds at most two cycles' refusals.
     */
    public void nextCycle() {
        Map<Refusal, String> spare = lastCycle;
        lastCycle = worded;
        spare.clear();
        worded = spare;
    }

    /** The words of {@code r}, null for null, worded afresh. */
    public static String words(Refusal r) {
        return new ReasonWords().of(r);
    }

    /** The words of {@code r}; the refusals it holds are worded through {@link #of} (they are often shared). */
    private String word(Refusal r) {
        if (r instanceof Also a) return of(a.first()) + "; " + of(a.then());
        if (r instanceof Attempted a) return a.action() + ": " + of(a.why());
        if (r instanceof Because b) return of(b.what()) + ": " + of(b.cause());
        StringBuilder sb = new StringBuilder();
        if (r instanceof GangShort g) {
            sb.append("gang of ").append(g.minMember()).append(" needs ").append(Math.max(g.minMember(), 1))
                    .append(" tasks, ").append(g.placeable()).append(" placeable");
        } else if (r instanceof RoleShort g) {
            sb.append("role ").append(g.role()).append(" needs ").append(g.needs()).append(", ").append(g.placeable())
                    .append(" placeable");
        } else if (r instanceof NoNodeFits n) {
            noNodeFits(sb, n);
        } else if (r instanceof NoPlan p) {
            noPlan(sb, p);
        } else if (r instanceof AllProtected p) {
            allProtected(sb, p);
        } else {
            sb.append(simple(r));
        }
        return sb.toString();
    }

    /** The words of a refusal worded in one sentence. */
    private String simple(Refusal r) {
        if (r instanceof RuleSaid s) return s.words();
        if (r instanceof Never n) return "never: " + n.words();
        if (r instanceof NoAdmissionBudget b) {
            return "queue " + quoted(b.queue()) + " admits nothing: no admission rule grants it a budget";
        }
        if (r instanceof AdmissionExhausted a) {
            return "queue " + quoted(a.queue()) + " capability exhausted: minResources short of " + a.shortOf();
        }
        if (r instanceof BehindHead b) {
            return "waiting behind " + b.head() + ", the head of fifo queue " + quoted(b.queue());
        }
        if (r instanceof QueueNotOpen q) return "queue " + quoted(q.queue()) + " allocates nothing: it is not open";
        if (r instanceof Overused o) {
            return "queue " + quoted(o.queue()) + " is overused: allocated " + o.allocated() + " covers deserved "
                    + o.deserved();
        }
        if (r instanceof NoGangRule) return "no rule states this job's gang requirement";
        if (r instanceof CapabilityReached c) {
            return "queue " + quoted(c.queue()) + " capability reached: short of " + c.shortOf();
        }
        if (r instanceof KeptByLenders k) {
            return "queue " + quoted(k.queue()) + " may not borrow the room " + k.lenders().stream().map(ReasonWords::quoted)
                    .collect(java.util.stream.Collectors.joining(", ")) + " keep" + (k.lenders().size() == 1 ? "s" : "")
                    + " under a lending limit: short of " + k.shortOf();
        }
        if (r instanceof Blocked b) {
            return b.block() == Block.SCHEDULING_GATES
                    ? "pod " + b.pod() + " is waiting for its scheduling gates to be removed: "
                            + String.join(", ", b.what())
                    : "pod " + b.pod() + " needs " + String.join(", ", b.what()) + ", which Arbiter does not evaluate:"
                            + " it stays pending rather than be bound blind";
        }
        if (r instanceof NoDomainTried d) {
            return noDomain(d.want()) + "; " + room(d.room()) + ", but " + of(d.but());
        }
        if (r instanceof NoDomainClose d) return noDomain(d.want()) + "; closest " + room(d.closest());
        if (r instanceof NoDomainAllowed d) return noDomain(d.want()) + ": " + missing(d);
        if (r instanceof BudgetSpent b) return "the eviction budget of " + b.perCycle() + " pods per cycle is spent";
        if (r instanceof QueueBudgetSpent b) {
            return "the eviction budget of " + b.perQueue() + " pods per queue per cycle is spent in queue "
                    + quoted(b.queue());
        }
        if (r instanceof BudgetExceeded b) {
            return "eviction budget of " + b.perCycle() + " pods per cycle would be exceeded (" + b.already()
                    + " already, " + b.forJob() + " for this job, and no node makes room for " + b.task() + " with "
                    + b.more() + " more)";
        }
        if (r instanceof BudgetWouldPass b) {
            return "eviction budget of " + b.perCycle() + " pods per cycle would be exceeded (" + b.already()
                    + " already, at least " + b.needed() + " needed)";
        }
        if (r instanceof QueueBudgetWouldPass b) {
            return "eviction budget of " + b.perQueue() + " pods per queue per cycle would be exceeded in queue "
                    + quoted(b.queue());
        }
        if (r instanceof NothingRuns n) return "nothing runs in queue " + quoted(n.queue());
        if (r instanceof NoShareGap n) {
            return "no job of queue " + quoted(n.queue()) + " of lower priority runs, nor of this priority that would hold"
                    + " at least this job's share without one of its pods (drf)";
        }
        if (r instanceof NoLowerWork n) {
            return "no " + (n.lowerPriorityOnly() ? "lower-priority" : "other") + " work runs in queue "
                    + quoted(n.queue()) + " (priority " + n.priority() + ")";
        }
        if (r instanceof VictimsRefused v) {
            StringBuilder sb = new StringBuilder(String.join("; ", v.refusals()));
            if (v.more() > 0) sb.append("; and ").append(v.more()).append(" more refused");
            return sb.append("; trying other victims").toString();
        }
        if (r instanceof HoldsDeserved h) {
            return "queue " + quoted(h.queue()) + " already holds its deserved share " + h.deserved();
        }
        if (r instanceof NoQueueAbove) return "no other queue holds more than its deserved share";
        if (r instanceof NotReclaimable n) {
            return "queue " + quoted(n.queues()) + " holds more than its deserved share but is not reclaimable";
        }
        if (r instanceof NoReclaimGrant n) {
            return "no rule grants queue " + quoted(n.queue()) + " reclaim from " + quoted(n.above());
        }
        if (r instanceof TooLarge t) {
            return "the gang needs " + amounts(t.needs()) + " to start, but queue " + quoted(t.queue()) + " deserves "
                    + (t.deserves().isEmpty() ? "none" : amounts(t.deserves())) + " and holds "
                    + (t.holds().isEmpty() ? "none" : amounts(t.holds()));
        }
        if (r instanceof DownToFloors d) {
            return "queues " + quoted(d.queues()) + " have given back down to their floor this cycle";
        }
        if (r instanceof NoVictimPods) return "queues above their deserved share run no pod of this scheduler";
        if (r instanceof WouldPassDeserved w) {
            return "queue " + quoted(w.queue()) + " would pass its deserved share " + w.deserved();
        }
        if (r instanceof NoSingleDomain d) {
            return "no single domain (" + d.want() + ") makes room for the whole gang with the victims allowed";
        }
        if (r instanceof NoNodeSuits n) return "no node suits it: " + of(n.why());
        if (r instanceof NoVictimOnSuitableNode) return "no pod it may evict runs on a node that suits it";
        if (r instanceof RoomWithVictimsGone n) {
            return "node " + n.node() + " would have room with every allowed victim gone";
        }
        if (r instanceof ClosestNode n) {
            return "closest node " + n.node() + " lacks " + amounts(n.lacks()) + " with every allowed victim gone";
        }
        if (r instanceof WaitingForEvicted w) {
            if (w.pods() == 0) return "waiting for pods evicted for another job to leave (" + w.action() + ")";
            return "waiting for " + w.pods() + " evicted pod(s) to leave (" + w.action() + ")";
        }
        if (r instanceof WaitingForTerminating w) {
            return "waiting for terminating pods to leave " + w.nodes() + " node(s)";
        }
        if (r instanceof EvictedFor e) return "evicted by " + e.action() + " for " + e.job();
        if (r instanceof Reserving v) return "reserved nodes " + nodeList(v.nodes()) + " from " + time(v.start());
        if (r instanceof KeptOffReserved k) {
            return "nodes reserved for " + k.job() + " from " + time(k.start()) + " are kept for it: "
                    + (!k.backfill() ? "backfill is off"
                    : k.estimate() < 0 ? "this job has no runtime estimate to backfill them"
                    : "its runtime estimate of " + dev.arbiter.model.Runtimes.show(k.estimate()) + " ends later");
        }
        if (r instanceof NoPendingPods) return "no pending pods";
        if (r instanceof NotYetScheduled) return "not yet scheduled";
        throw new IllegalArgumentException("no words for " + r);
    }

    /** Node names, at most eight, then how many more. */
    private static String nodeList(List<String> nodes) {
        if (nodes.size() <= 8) return String.join(", ", nodes);
        return String.join(", ", nodes.subList(0, 8)) + " and " + (nodes.size() - 8) + " more";
    }

    /**
     * A time on the snapshot's clock: an instant (live, epoch seconds), or the simulator's clock, which counts from 0,
     * as {@code t=10m}.
     */
    public static String time(long seconds) {
        if (seconds >= 1_000_000_000L) return java.time.Instant.ofEpochSecond(seconds).toString();
        return "t=" + (seconds == 0 ? "0s" : dev.arbiter.model.Runtimes.show(seconds));
    }

    /**
     * What an eviction says of itself, on the victim's {@code Preempted} or {@code Reclaimed} event: the action, for
     * which job (and its priority), from which queue, e.g. {@code reclaim by team-a/train (priority 100) from queue
     * "team-b"}.
     */
    public static String evicted(String action, String forJob, int priority, String fromQueue) {
        return action + " by " + forJob + " (priority " + priority + ") from queue " + quoted(fromQueue);
    }

    /** kube-scheduler's form: {@code 0/12 nodes are available: 4 node(s) didn't match ..., 8 Insufficient cpu}. */
    private static void noNodeFits(StringBuilder sb, NoNodeFits n) {
        List<String> parts = new ArrayList<>(n.failedFilters().size());
        n.failedFilters().forEach((filter, count) -> parts.add(count + " " + filter));
        Collections.sort(parts);
        sb.append("0/").append(n.nodes()).append(" nodes are available");
        if (!parts.isEmpty()) sb.append(": ").append(String.join(", ", parts));
    }

    /**
     * e.g. {@code no set of victims makes room for ns/p: hysteresis spares queue "b" (it would qualify to take its pods
     * straight back); closest node node-3 lacks nvidia.com/gpu 4 with every allowed victim gone}.
     */
    private void noPlan(StringBuilder sb, NoPlan p) {
        sb.append("no set of victims makes room for ").append(p.task());
        String sep = ": ";
        if (!p.wouldReturn().isEmpty()) {
            sb.append(sep).append("hysteresis spares queue ").append(quoted(p.wouldReturn()))
                    .append(" (it would qualify to take its pods straight back)");
            sep = "; ";
        }
        if (!p.atFloor().isEmpty()) {
            sb.append(sep).append("queue ").append(quoted(p.atFloor()))
                    .append(" is at its floor (its deserved share or guarantee) in what the task needs");
            sep = "; ";
        }
        if (!p.wouldGoBelow().isEmpty()) {
            sb.append(sep).append("no victim of queue ").append(quoted(p.wouldGoBelow()))
                    .append(" leaves it at its floor in what the task needs");
            sep = "; ";
        }
        if (!p.belowFloor().isEmpty()) {
            sb.append(sep).append(p.belowFloor().size() == 1
                    ? "job " + quoted(p.belowFloor()) + " is larger than its queue's share and would leave the queue"
                            + " below its floor"
                    : p.belowFloor().size() + " jobs are larger than their queues' shares and would leave the queues"
                            + " below their floors")
                    .append(" (victims.gangBelowFloor: spare)");
            sep = "; ";
        }
        if (p.unbreakable() > 0) {
            sb.append(sep).append(p.unbreakable()).append(" gang(s) cannot be evicted whole (a member is"
                    + " protected or was bound this cycle)");
            sep = "; ";
        }
        sb.append(sep).append(of(p.closest()));
    }

    /**
     * {@code every lower-priority pod of queue "a" is protected: 3 by rule "x" (e.g. has run 20s, ...), 2 by the
     * Eviction API (e.g. ...); the first minimum runtime ends in 40s}.
     */
    private static void allProtected(StringBuilder sb, AllProtected p) {
        if (p.whose() instanceof QueuePods q) {
            sb.append("every ").append(q.lowerPriorityOnly() ? "lower-priority" : "other").append(" pod of queue ")
                    .append(quoted(q.queue())).append(" is protected");
        } else {
            sb.append("every pod of the queues above their deserved share (")
                    .append(quoted(((AboveDeservedPods) p.whose()).queues())).append(") is protected");
        }
        String sep = ": ";
        for (ProtectedBy by : p.by()) {
            sb.append(sep).append(by.count())
                    .append(by.evictionApi() ? " by " + by.rule() : " by rule \"" + by.rule() + "\"").append(" (")
                    .append(by.count() > 1 ? "e.g. " : "").append(by.example()).append(')');
            sep = ", ";
        }
        if (p.firstEndsIn() >= 0) sb.append("; the first minimum runtime ends in ").append(p.firstEndsIn()).append("s");
    }

    private static String noDomain(Object want) {
        return "no domain (" + want + ") holds the whole gang";
    }

    /** {@code rack-3: 6 of 8 nvidia.com/gpu free, needs 8}. */
    private static String room(DomainRoom d) {
        return d.domain() + ": " + Quantity.human(d.dim(), d.freeMilli()) + " of "
                + Quantity.human(d.dim(), d.allocatableMilli()) + " " + d.dim() + " free, needs "
                + Quantity.human(d.dim(), d.needMilli());
    }

    private static String missing(NoDomainAllowed d) {
        return switch (d.missing()) {
            case LABEL -> "no node carries the label " + d.want().level();
            case ANY_DOMAIN -> "the cluster has no network domains (no HyperNode, and no topology.levels in the"
                    + " policy whose label the nodes carry)";
            case TIER -> "no domain has tier " + d.want().highestTier() + " or lower";
            case ONE_DOMAIN -> "its running members span more than one domain";
        };
    }

    /** {@code "a"}. */
    public static String quoted(String name) {
        return '"' + name + '"';
    }

    /** {@code "a", "b"}. */
    public static String quoted(Collection<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String n : names) sb.append(sb.length() == 0 ? "" : ", ").append('"').append(n).append('"');
        return sb.toString();
    }

    /** e.g. {@code cpu 4, nvidia.com/gpu 10.7}, in each resource's own units. */
    public static String amounts(Resources r) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < r.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(r.name(i)).append(' ').append(Quantity.human(r.name(i), r.milliAt(i)));
        }
        return sb.toString();
    }
}
