package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import dev.arbiter.decision.Reservation;
import dev.arbiter.engine.kept.Reservations;
import dev.arbiter.engine.placement.NetworkDomains;
import dev.arbiter.engine.placement.NodeFitter;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.ReservationGrant;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.PolicySettings;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reservation and backfill (Slurm's), between admission and allocation; nothing happens unless the rules grant a queue
 * a reservation ({@link ReservationGrant}, {@code rules/reservation.drl}, on when {@code reservation.after} is set).
 *
 * <p>A granted queue's <em>head</em> — the first job in its queue's order that has not started (pending pods, fewer
 * live members than its gang needs) and that admission serves (admitted, or Pending with no rule denying it: a
 * gang waiting for its queue's admission budget is the very job a stream of small ones starves) — reserves, once it has waited at
 * least the grant's {@code afterSeconds} ({@link Reservations}: since first seen waiting), the nodes that would start
 * it soonest: among the nodes its pods' static constraints allow, each node's free room grows as the running pods there
 * reach their estimated ends (start + their job's runtime estimate, {@link PolicySettings.Runtime#estimateSeconds}; a
 * pod without one never ends here), and the earliest moment at which the nodes together hold the missing members
 * (each asking the largest of their requests) is the reservation's start; the nodes that hold most of them then are
 * reserved. A head whose queue's capability cannot hold what it still needs reserves nothing, nor one that no
 * estimated end would ever make room for. A Pending head is admitted by its reservation once the reservation starts
 * (its nodes are free as the estimates say), as an {@code AdmissionGrant} would admit it: the admission budget,
 * which only counts free room, would otherwise let the small jobs admitted before it hold it back. While the head stays the same, its reservation stays on its nodes (the start
 * follows the estimates) as long as they can still hold it.
 *
 * <p>Other work is kept off reserved nodes for the whole cycle — allocation, preemption and reclaim alike, as a
 * restriction of the node fitter ({@link NodeFitter#restrict}), so no step places it on room that evictions free
 * there — unless backfill is on and its own runtime estimate ends by the reservation's start. The reserving job itself
 * places, preempts and reclaims as usual. Its reason says {@code reserved nodes … from …}; a job kept off reserved
 * nodes that have room for it says so too.
 *
 * <p>A gang that must run within one network domain (a hard network topology) reserves within the allowed domain
 * that holds it soonest. Where this differs from Slurm's backfill: one reservation per queue (its head), reserved
 * whole nodes rather than a time-indexed map of every node, the gang's pods taken as alike (the largest request), and
 * rules that depend on other pods (pod affinity, spread, host ports) not looked at in the future.
 */
final class Reserving {
    /** A reservation of this cycle. */
    private record Active(Job job, QueueState queue, BitSet nodes, List<String> names, long start, String rule) {}

    private static final String WHY_OFF = "node(s) reserved for another job";

    private final CycleWork w;
    private final Reservations table;
    private final long now;
    private final PolicySettings settings;
    private final List<Active> active = new ArrayList<>();
    /** Per job, the nodes it may use ({@link #NONE}: all). */
    private final Map<Job, NetworkDomains.Domain> allowed = new IdentityHashMap<>();
    private final Map<BitSet, NetworkDomains.Domain> outside = new HashMap<>();
    private final Map<Job, Long> estimates = new IdentityHashMap<>();
    private static final NetworkDomains.Domain NONE = NetworkDomains.Domain.ofNodes("", new BitSet());

    Reserving(CycleWork w, Reservations table, long now) {
        this.w = w;
        this.table = table;
        this.now = now;
        this.settings = w.policy.settings;
    }

    /** Decides the cycle's reservations and keeps other work off their nodes; false when there is none. */
    boolean reserve() {
        Map<String, ReservationGrant> grants = w.policy.reservationGrants();
        if (grants.isEmpty()) {
            if (!table.isEmpty()) table.clear();
            return false;
        }
        table.begin(now);
        Set<String> waiting = new HashSet<>();
        Map<String, dev.arbiter.facts.AdmissionDenied> denied = w.policy.denials();
        Map<QueueState, Job> heads = new IdentityHashMap<>();
        for (QueueState q : w.state.queues.values()) {
            Job head = null;
            for (Job j : q.jobs) {
                if (!waitingToStart(j)) continue;
                waiting.add(j.id);
                table.waitingSince(j.id, now);
                if (head == null && (CycleWork.admitted(j) || !denied.containsKey(j.id))) head = j;
            }
            if (head != null) heads.put(q, head);
        }
        // Reservations already held are planned first (a new one never displaces them), then the others in queue
        // order; each plans on the nodes no reservation before it took, so no two reservations wait on each other.
        List<QueueState> order = new ArrayList<>();
        for (Reservations.Held h : table.all()) {
            QueueState q = w.state.queues.get(h.queue());
            if (q != null) order.add(q);
        }
        for (QueueState q : w.sortedQueues()) if (!order.contains(q)) order.add(q);
        Set<String> holding = new HashSet<>();
        BitSet taken = new BitSet();
        for (QueueState q : order) {
            Job head = heads.get(q);
            ReservationGrant grant = grants.get(q.name());
            if (grant == null || q.limit == null || head == null) continue;
            if (now - table.waitingSince(head.id, now) < grant.afterSeconds()) continue;
            if (!withinCapability(q, head.startNeed())) continue; // its queue may never run it: it reserves nothing
            Active a = plan(q, head, grant, taken);
            if (a == null) continue;
            active.add(a);
            taken.or(a.nodes);
            if (a.start <= now && !CycleWork.admitted(head)) {
                // Its nodes are free (as the estimates say): the reservation admits it, as an AdmissionGrant would.
                head.phase = "Inqueue";
                head.setReason(null, null);
            }
            holding.add(q.name());
            table.hold(new Reservations.Held(head.id, q.name(), a.names, a.start, a.rule));
        }
        for (Reservations.Held h : table.all()) if (!holding.contains(h.queue())) table.release(h.queue());
        table.keepWaiting(waiting);
        if (active.isEmpty()) return false;
        w.fitter.restrict(pod -> {
            Job j = w.state.jobs.get(pod.jobId());
            NetworkDomains.Domain d = j == null ? NONE : allowedFor(j);
            return d == NONE ? null : d;
        });
        return true;
    }

    /**
     * Whether {@code need} fits under the capability of the queue and of every ancestor, less what work there that
     * never ends by the estimates (no runtime estimate) holds: a reservation waits for the rest to end.
     */
    private boolean withinCapability(QueueState q, Resources need) {
        for (QueueState up = q; up != null; up = up.parent) {
            if (!up.hardCap().admits(endless(up), need)) return false;
        }
        return true;
    }

    /**
     * What the running work of {@code q}'s subtree without a runtime estimate holds of queue shares (worked out for
     * every queue at the first ask, one walk of the jobs).
     */
    private Resources endless(QueueState q) {
        if (endless == null) {
            Map<QueueState, Resources.Sum> sums = new IdentityHashMap<>();
            for (Job j : w.state.jobs.values()) {
                if (j.queueState == null || j.running.isEmpty() || estimateOf(j) >= 0) continue;
                Resources held = j.heldShare();
                for (QueueState up = j.queueState; up != null; up = up.parent) sums.computeIfAbsent(up, k -> new Resources.Sum()).add(held);
            }
            endless = new IdentityHashMap<>();
            sums.forEach((k, v) -> endless.put(k, v.toResources()));
        }
        return endless.getOrDefault(q, Resources.NONE);
    }

    /** Per queue, what {@link #endless} says; null until asked. */
    private Map<QueueState, Resources> endless;

    /** The job has pending pods and has not started: fewer live members than its gang needs. */
    private boolean waitingToStart(Job j) {
        if (!j.hasPending()) return false;
        GangRequirement gang = w.policy.gangFor(j);
        return gang != null && j.liveMembers() < Math.max(1, gang.minMember());
    }

    /**
     * The head's reservation: on the nodes it held last cycle if they can still hold it, else on the nodes that hold
     * it soonest; null when no estimated end would make room.
     */
    private Active plan(QueueState q, Job head, ReservationGrant grant, BitSet taken) {
        GangRequirement gang = w.policy.gangFor(head);
        int k = Math.max(1, gang.minMember()) - head.liveMembers();
        Resources each = Resources.NONE;
        Task first = null;
        int members = 0;
        for (Task t : head.pending) {
            if (members == k) break;
            if (t.placed) continue;
            if (first == null) first = t;
            each = each.max(t.request());
            members++;
        }
        if (first == null) return null;
        BitSet eligible = (BitSet) w.fitter.eligibleIndexes(first.pod).clone();
        eligible.andNot(taken);
        Reservations.Held before = table.of(q.name());
        if (before != null && before.job().equals(head.id)) {
            BitSet kept = new BitSet();
            for (String n : before.nodes()) {
                NodeState node = w.state.nodesByName.get(n);
                if (node != null && eligible.get(node.index)) kept.set(node.index);
            }
            Active again = soonest(q, head, grant, kept, each, k);
            // A start that has come stays as it was (overdue estimates would move it with the clock, and the reason
            // with it: a status write and an event every cycle).
            if (again != null && again.start() <= now && before.start() <= now) {
                again = new Active(again.job(), again.queue(), again.nodes(), again.names(), before.start(), again.rule());
            }
            if (again != null) return again;
        }
        dev.arbiter.model.NetworkTopology want = w.domains.wanted(head);
        if (want == null || !want.hard()) return soonest(q, head, grant, eligible, each, k);
        // A gang that must run within one network domain reserves within the domain that holds it soonest.
        Active best = null;
        for (NetworkDomains.Fit f : w.domains.measure(head, want, eligible)) {
            BitSet among = f.domain().nodeSet();
            among.and(eligible);
            Active a = soonest(q, head, grant, among, each, k);
            if (a != null && (best == null || a.start < best.start)) best = a;
        }
        return best;
    }

    /** The earliest time the nodes of {@code among} hold {@code k} pods asking {@code each}, and the nodes then. */
    private Active soonest(QueueState q, Job head, ReservationGrant grant, BitSet among, Resources each, int k) {
        List<String> dims = new ArrayList<>();
        for (int i = 0; i < each.size(); i++) if (each.milliAt(i) > 0) dims.add(each.name(i));
        Map<NodeState, long[]> free = new IdentityHashMap<>();
        Map<NodeState, Integer> count = new IdentityHashMap<>();
        record End(long at, NodeState node, Resources frees) {}
        List<End> ends = new ArrayList<>();
        int total = 0;
        for (int i = among.nextSetBit(0); i >= 0; i = among.nextSetBit(i + 1)) {
            NodeState n = w.state.nodes.get(i);
            long[] f = new long[dims.size()];
            for (int d = 0; d < f.length; d++) f[d] = Math.max(0, n.freeMilli(dims.get(d)));
            free.put(n, f);
            int c = fits(f, each, dims);
            count.put(n, c);
            total += c;
            for (Task t : n.tasks) {
                if (!t.running() || t.evicted || t.job == head) continue;
                long est = estimateOf(t.job);
                long started = t.pod.startedAt();
                if (est < 0 || started == PodSpec.UNKNOWN_START) continue;
                ends.add(new End(Math.max(now, started + est), n, t.request()));
            }
        }
        long start = now;
        if (total < k) {
            ends.sort(java.util.Comparator.comparingLong(End::at));
            start = -1;
            for (int e = 0; e < ends.size() && start < 0; ) {
                long at = ends.get(e).at();
                for (; e < ends.size() && ends.get(e).at() == at; e++) {
                    End end = ends.get(e);
                    long[] f = free.get(end.node());
                    for (int d = 0; d < f.length; d++) f[d] += end.frees().milli(dims.get(d));
                    int c = fits(f, each, dims);
                    total += c - count.put(end.node(), c);
                }
                if (total >= k) start = at;
            }
            if (start < 0) return null;
        }
        List<NodeState> nodes = new ArrayList<>();
        for (Map.Entry<NodeState, Integer> e : count.entrySet()) if (e.getValue() > 0) nodes.add(e.getKey());
        nodes.sort(java.util.Comparator.comparingInt((NodeState n) -> -count.get(n)).thenComparingInt(n -> n.index));
        BitSet bits = new BitSet();
        List<String> names = new ArrayList<>();
        int held = 0;
        for (NodeState n : nodes) {
            if (held >= k) break;
            held += count.get(n);
            bits.set(n.index);
            names.add(n.name());
        }
        return new Active(head, q, bits, names, start, grant.rule());
    }

    /** How many pods asking {@code each} fit in {@code free} (milli per dimension of {@code dims}). */
    private static int fits(long[] free, Resources each, List<String> dims) {
        long most = Integer.MAX_VALUE;
        for (int d = 0; d < free.length; d++) most = Math.min(most, free[d] / each.milli(dims.get(d)));
        return (int) most;
    }

    /** The job's runtime estimate in seconds, or -1: decided in one place, {@link PolicySettings.Runtime#estimateSeconds}. */
    private long estimateOf(Job j) {
        Long e = estimates.get(j);
        if (e == null) {
            List<PodSpec> pods = new ArrayList<>(j.pending.size() + j.running.size());
            for (Task t : j.pending) pods.add(t.pod);
            for (Task t : j.running) pods.add(t.pod);
            e = settings.runtime().estimateSeconds(pods, j.queue, j.priorityClassName);
            estimates.put(j, e);
        }
        return e;
    }

    /** Whether {@code j} may use {@code a}'s nodes: backfill is on and its estimate ends by the reservation's start. */
    private boolean mayBackfill(Job j, Active a) {
        if (!settings.reservation().backfill()) return false;
        long est = estimateOf(j);
        return est >= 0 && now + est <= a.start;
    }

    /** The nodes {@code j} may use this cycle ({@link #NONE}: every node). */
    private NetworkDomains.Domain allowedFor(Job j) {
        NetworkDomains.Domain d = allowed.get(j);
        if (d != null) return d;
        BitSet off = null;
        for (Active a : active) {
            if (a.job == j || mayBackfill(j, a)) continue;
            if (off == null) off = new BitSet();
            off.or(a.nodes);
        }
        if (off == null) {
            d = NONE;
        } else {
            d = outside.computeIfAbsent(off, b -> {
                BitSet rest = new BitSet();
                rest.set(0, w.state.nodes.size());
                rest.andNot(b);
                return NetworkDomains.Domain.ofNodes(WHY_OFF, rest);
            });
        }
        allowed.put(j, d);
        return d;
    }

    /** Whether parking must wait: a reservation's backfill test reads the clock, which moves every cycle. */
    boolean any() {
        return !active.isEmpty();
    }

    /**
     * The steps are over: a reserving job that started releases its reservation; one still waiting says where and
     * from when it is reserved; a job kept off reserved nodes that have room for it says so. The reservations still
     * held, for the cycle's result.
     */
    List<Reservation> finish() {
        List<Reservation> out = new ArrayList<>();
        for (Active a : active) {
            if (!waitingToStart(a.job)) {
                table.release(a.queue.name());
                continue;
            }
            Refusal why = a.job.reason == null ? new Refusal.NotYetScheduled() : a.job.reason;
            a.job.setReason(new Refusal.Because(new Refusal.Reserving(a.names, a.start), why), a.job.reasonRule);
            Set<String> own = new HashSet<>();
            for (Task t : a.job.pending) own.add(t.id());
            Set<String> on = new HashSet<>(a.names);
            int backfilled = 0;
            for (dev.arbiter.decision.Binding b : w.bindings) if (on.contains(b.node()) && !own.contains(b.pod())) backfilled++;
            out.add(new Reservation(a.job.id, a.queue.name(), a.names, a.start, a.rule, backfilled));
        }
        for (Job j : w.state.jobs.values()) {
            if (j.reason == null || !j.hasPending() || allowedFor(j) == NONE) continue;
            Refusal off = keptOff(j);
            if (off != null) j.setReason(new Refusal.Also(j.reason, off), j.reasonRule);
        }
        return out;
    }

    /** Why {@code j} may not use a reservation's nodes that have room for its next pod's scarcest resource, or null. */
    private Refusal keptOff(Job j) {
        Task next = null;
        for (Task t : j.pending) {
            if (!t.placed) {
                next = t;
                break;
            }
        }
        if (next == null) return null;
        String dim = NodeFitter.primaryDimension(next.request());
        long need = next.request().milli(dim);
        for (int k = 0; k < active.size(); k++) {
            Active a = active.get(k);
            if (a.job == j || mayBackfill(j, a)) continue;
            if (roomFor.computeIfAbsent(k + " " + dim + " " + need, key -> hasRoom(a, dim, need))) {
                return new Refusal.KeptOffReserved(a.job.id, a.start, estimateOf(j), settings.reservation().backfill());
            }
        }
        return null;
    }

    /** Whether a node of {@code a} has {@code need} of {@code dim} free (asked once per reservation and need). */
    private boolean hasRoom(Active a, String dim, long need) {
        for (int i = a.nodes.nextSetBit(0); i >= 0; i = a.nodes.nextSetBit(i + 1)) {
            if (w.state.nodes.get(i).freeMilli(dim) >= need) return true;
        }
        return false;
    }

    /** {@link #hasRoom}'s answers at the end of the cycle, by reservation, dimension and need. */
    private final Map<String, Boolean> roomFor = new HashMap<>();
}
