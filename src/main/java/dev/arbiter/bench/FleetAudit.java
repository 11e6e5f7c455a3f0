package dev.arbiter.bench;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts, cycle after cycle, how often reclaim and preemption evict more than they need (issue 35). Fed each cycle's
 * snapshot and what the scheduler decided on it ({@link dev.arbiter.sim.Simulator#run(dev.arbiter.model.Manifests,
 * dev.arbiter.sim.Simulator.Options, java.util.function.BiConsumer)}), it judges the decisions from the outside, with
 * plain arithmetic on requests:
 *
 * <ul>
 *   <li><b>groups</b>: the jobs that evicted ({@link Eviction#forPodGroup()}), per action, and their victims;</li>
 *   <li><b>below floor</b>: (victim queue, cycle) pairs where reclaim left the queue below its floor, {@code max(deserved,
 *   spec guarantee)}, in a dimension one of its reclaimers asks for that it held more than the floor of when reclaim
 *   began ({@link QueueStatus#allocated()} after the cycle plus the requests of the pods reclaimed from the queue this
 *   cycle: the status counts this cycle's bindings and pipelined placements and leaves evicted pods out; reclaim is
 *   the cycle's last step, so pods preempted inside the queue were gone already). A pair is a <b>last resort</b> (the documented exception, {@code victims.gangBelowFloor: evict}) when the
 *   queue's evictions include every running pod of a job whose request exceeds the floor in such a dimension, else a
 *   <b>violation</b>;</li>
 *   <li><b>over-freed</b>: groups whose victims free more GPUs than their nominated pods need, beyond the GPUs already
 *   idle on the nominated nodes, by at least the smallest victim's GPUs ({@code freed - need - idle}); and the GPUs
 *   beyond, summed over those groups;</li>
 *   <li><b>non-minimal</b>: groups with a victim unit (the pods the group took from a job, or one of them, where the
 *   job then keeps all its pods or at least minMember, counting what other groups took from it) that could have
 *   stayed: every nominated pod of every group still fits its node with the unit running (node resources only, every
 *   dimension), and, for a unit of the group's own queue, the queue's capability still admits the unit in what the
 *   group asks for;</li>
 *   <li><b>CPU-only evicting GPU pods</b>: groups asking for no GPU that evicted a pod holding GPUs although a node
 *   they were nominated to had their CPU and memory idle before the cycle.</li>
 * </ul>
 *
 * <p>Idle before the cycle: a node's allocatable less the pods bound to it in the snapshot and the room it holds for
 * other groups' pods nominated to it by the previous cycle. Shares leave out the {@code pods} slot, as the shipped
 * policy's {@code shares.ignoredResources} does. Queues are judged as leaves (the generated fleets are flat).
 */
public final class FleetAudit {
    /** The counts over the cycles seen. */
    public record Counts(int cycles, int evictingCycles, int reclaimGroups, int reclaimVictims, int preemptGroups,
                         int preemptVictims, int floorViolations, int floorLastResort, int overFreedReclaim,
                         long gpusBeyondReclaim, int overFreedPreempt, long gpusBeyondPreempt, int nonMinimalPlans,
                         int cpuOnlyEvictingGpu, int unnominatedGroups) {
        public static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        public Counts plus(Counts o) {
            return new Counts(cycles + o.cycles, evictingCycles + o.evictingCycles, reclaimGroups + o.reclaimGroups,
                    reclaimVictims + o.reclaimVictims, preemptGroups + o.preemptGroups, preemptVictims + o.preemptVictims,
                    floorViolations + o.floorViolations, floorLastResort + o.floorLastResort,
                    overFreedReclaim + o.overFreedReclaim, gpusBeyondReclaim + o.gpusBeyondReclaim,
                    overFreedPreempt + o.overFreedPreempt, gpusBeyondPreempt + o.gpusBeyondPreempt, nonMinimalPlans + o.nonMinimalPlans, cpuOnlyEvictingGpu + o.cpuOnlyEvictingGpu,
                    unnominatedGroups + o.unnominatedGroups);
        }

        /** One line per metric. */
        public String render() {
            StringBuilder sb = new StringBuilder();
            line(sb, "cycles (with evictions)", cycles + " (" + evictingCycles + ")");
            line(sb, "reclaim groups (victims)", reclaimGroups + " (" + reclaimVictims + ")");
            line(sb, "preempt groups (victims)", preemptGroups + " (" + preemptVictims + ")");
            line(sb, "below floor: violations", String.valueOf(floorViolations));
            line(sb, "below floor: last resort", String.valueOf(floorLastResort));
            line(sb, "reclaim freed > 1 victim beyond", overFreedReclaim + " groups, " + gpusBeyondReclaim + " GPUs beyond need");
            line(sb, "preempt freed > 1 victim beyond", overFreedPreempt + " groups, " + gpusBeyondPreempt + " GPUs beyond need");
            line(sb, "plans with an unneeded victim", String.valueOf(nonMinimalPlans));
            line(sb, "CPU-only evicting GPU pods", String.valueOf(cpuOnlyEvictingGpu));
            line(sb, "groups with no nomination", String.valueOf(unnominatedGroups));
            return sb.toString();
        }

        private static void line(StringBuilder sb, String name, String value) {
            sb.append(String.format("%-32s %s%n", name, value));
        }
    }

    private final String gpu;
    private Counts counts = Counts.NONE;
    /** One line per floor violation and per non-minimal plan: what an engine change should be checked against. */
    private final List<String> findings = new ArrayList<>();

    /** {@code gpu}: the GPU resource name (e.g. {@code nvidia.com/gpu}). */
    public FleetAudit(String gpu) {
        this.gpu = gpu;
    }

    public Counts counts() {
        return counts;
    }

    /** The floor violations and non-minimal plans seen, one line each (cycle, queue or group, the evictions). */
    public List<String> findings() {
        return List.copyOf(findings);
    }

    /** Judges one cycle: the snapshot it saw and what it decided. */
    public void observe(ClusterSnapshot before, CycleResult r) {
        new Cycle(before, r).judge();
    }

    private static final String PODS = "pods";

    private static Resources share(PodSpec p) {
        return p.requests().without(PODS);
    }

    /** One cycle's facts, indexed. */
    private final class Cycle {
        final ClusterSnapshot snap;
        final CycleResult r;
        final Map<String, PodSpec> pods = new HashMap<>();
        final Map<String, PodGroupSpec> groups = new HashMap<>();
        final Map<String, QueueSpec> queues = new HashMap<>();
        final Map<String, NodeSpec> nodes = new HashMap<>();
        /** Running pods per job, and what pods bound before the cycle hold per node. */
        final Map<String, List<PodSpec>> running = new HashMap<>();
        final Map<String, Resources> boundOn = new HashMap<>();
        /** Evictions per group that evicted, in order; evicted pods per job. */
        final Map<String, List<Eviction>> byGroup = new LinkedHashMap<>();
        final Map<String, List<PodSpec>> evictedOfJob = new HashMap<>();
        /** This cycle's nominations per group, and nominated requests per node. */
        final Map<String, List<Nomination>> nominatedOf = new HashMap<>();
        final Map<String, Resources> nominatedOn = new HashMap<>();

        Cycle(ClusterSnapshot snap, CycleResult r) {
            this.snap = snap;
            this.r = r;
            for (PodSpec p : snap.pods()) {
                pods.put(p.key(), p);
                if (!p.isBound() || p.finished()) continue;
                running.computeIfAbsent(p.jobId(), k -> new ArrayList<>()).add(p);
                boundOn.merge(p.nodeName(), p.requests(), Resources::add);
            }
            for (PodGroupSpec g : snap.podGroups()) groups.put(g.key(), g);
            for (QueueSpec q : snap.queues()) queues.put(q.name(), q);
            for (NodeSpec n : snap.nodes()) nodes.put(n.name(), n);
            for (Eviction e : r.evictions()) {
                byGroup.computeIfAbsent(e.forPodGroup(), k -> new ArrayList<>()).add(e);
                PodSpec p = pods.get(e.pod());
                if (p != null) evictedOfJob.computeIfAbsent(p.jobId(), k -> new ArrayList<>()).add(p);
            }
            for (Nomination n : r.nominations()) {
                PodSpec p = pods.get(n.pod());
                if (p == null) continue;
                nominatedOf.computeIfAbsent(p.jobId(), k -> new ArrayList<>()).add(n);
                nominatedOn.merge(n.node(), p.requests(), Resources::add);
            }
        }

        void judge() {
            int reclaimGroups = 0, reclaimVictims = 0, preemptGroups = 0, preemptVictims = 0;
            for (Map.Entry<String, List<Eviction>> g : byGroup.entrySet()) {
                boolean reclaim = g.getValue().stream().anyMatch(e -> e.action().equals("reclaim"));
                if (reclaim) {
                    reclaimGroups++;
                    reclaimVictims += g.getValue().size();
                } else {
                    preemptGroups++;
                    preemptVictims += g.getValue().size();
                }
            }
            int[] floors = floors();
            int overFreedReclaim = 0, overFreedPreempt = 0, nonMinimal = 0, cpuOnly = 0, unnominated = 0;
            long beyondReclaim = 0, beyondPreempt = 0;
            for (Map.Entry<String, List<Eviction>> g : byGroup.entrySet()) {
                String group = g.getKey();
                List<PodSpec> victims = g.getValue().stream().map(e -> pods.get(e.pod())).filter(p -> p != null).toList();
                List<Nomination> noms = nominatedOf.getOrDefault(group, List.of());
                if (noms.isEmpty()) {
                    unnominated++;
                    continue;
                }
                long beyond = beyondNeed(group, victims, noms);
                boolean reclaim = g.getValue().stream().anyMatch(e -> e.action().equals("reclaim"));
                if (beyond >= 0 && reclaim) {
                    overFreedReclaim++;
                    beyondReclaim += beyond;
                } else if (beyond >= 0) {
                    overFreedPreempt++;
                    beyondPreempt += beyond;
                }
                String unneeded = unneededUnit(group, victims);
                if (unneeded != null) {
                    nonMinimal++;
                    findings.add("cycle " + r.cycle() + ": group " + group + " (" + g.getValue().get(0).action()
                            + ") evicted " + names(victims) + " from " + nodesOf(g.getValue()) + ", nominated "
                            + noms + "; " + unneeded + " was not needed");
                }
                if (cpuOnlyEvictingGpu(group, victims, noms)) cpuOnly++;
            }
            counts = counts.plus(new Counts(1, r.evictions().isEmpty() ? 0 : 1, reclaimGroups, reclaimVictims,
                    preemptGroups, preemptVictims, floors[0], floors[1], overFreedReclaim, beyondReclaim, overFreedPreempt,
                    beyondPreempt, nonMinimal, cpuOnly,
                    unnominated));
        }

        // ---- below floor ------------------------------------------------------------------------------------------

        /** {violations, last resort}: the (victim queue, this cycle) pairs reclaim left below their floor. */
        int[] floors() {
            // Per victim queue of reclaim: the dimensions its reclaimers ask for.
            Map<String, Set<String>> askedOf = new TreeMap<>();
            for (Eviction e : r.evictions()) {
                if (!e.action().equals("reclaim")) continue;
                PodSpec v = pods.get(e.pod());
                if (v == null) continue;
                Set<String> dims = askedOf.computeIfAbsent(queueOf(v.jobId()), k -> new LinkedHashSet<>());
                dims.addAll(askedBy(e.forPodGroup()));
            }
            // What each queue's reclaimed pods held: reclaim runs last in the cycle, after allocation and preemption, so
            // the queue held the status's allocation plus them when reclaim began (as SchedulerInvariants#reclaim
            // reconstructs it). A pod preempted inside the queue earlier in the cycle is not added back: the queue had
            // already lost it (and held its preemptor's pipelined share, which the status counts).
            Map<String, Resources> evictedFrom = new HashMap<>();
            Map<String, List<PodSpec>> evictedPods = new HashMap<>();
            for (Eviction e : r.evictions()) {
                PodSpec v = pods.get(e.pod());
                if (v == null || !e.action().equals("reclaim")) continue;
                String q = queueOf(v.jobId());
                evictedFrom.merge(q, share(v), Resources::add);
                evictedPods.computeIfAbsent(q, k -> new ArrayList<>()).add(v);
            }
            int violations = 0, lastResort = 0;
            for (Map.Entry<String, Set<String>> a : askedOf.entrySet()) {
                String q = a.getKey();
                QueueStatus s = status(q);
                if (s == null) continue;
                QueueSpec spec = queues.get(q);
                Resources floor = spec == null ? s.deserved() : s.deserved().max(spec.guarantee());
                Resources after = s.allocated();
                Resources held = after.add(evictedFrom.getOrDefault(q, Resources.NONE));
                List<String> below = new ArrayList<>();
                for (String d : a.getValue()) {
                    long least = floor.milli(d);
                    if (held.milli(d) > least && after.milli(d) < least) below.add(d);
                }
                if (below.isEmpty()) continue;
                String wholeJob = wholeJobLargerThanFloor(evictedPods.get(q), floor, below);
                if (wholeJob != null) {
                    lastResort++;
                    continue;
                }
                violations++;
                StringBuilder why = new StringBuilder("cycle " + r.cycle() + ": reclaim left queue " + q + " below its floor");
                for (String d : below) {
                    why.append("; ").append(d).append(" floor ").append(floor.milli(d)).append(" held ")
                            .append(held.milli(d)).append(" -> ").append(after.milli(d)).append(" (milli)");
                }
                why.append("; evicted");
                for (Eviction e : r.evictions()) {
                    PodSpec v = pods.get(e.pod());
                    if (v != null && queueOf(v.jobId()).equals(q)) {
                        why.append(' ').append(e.pod()).append(" from ").append(e.node()).append(" (").append(e.action())
                                .append(" for ").append(e.forPodGroup()).append(')');
                    }
                }
                findings.add(why.toString());
            }
            return new int[] {violations, lastResort};
        }

        /** A job all of whose running pods the queue lost this cycle, holding more than the floor in one of {@code dims}. */
        private String wholeJobLargerThanFloor(List<PodSpec> evicted, Resources floor, List<String> dims) {
            Map<String, List<PodSpec>> byJob = new LinkedHashMap<>();
            for (PodSpec p : evicted) byJob.computeIfAbsent(p.jobId(), k -> new ArrayList<>()).add(p);
            for (Map.Entry<String, List<PodSpec>> j : byJob.entrySet()) {
                if (j.getValue().size() != running.getOrDefault(j.getKey(), List.of()).size()) continue;
                Resources total = sum(j.getValue());
                for (String d : dims) if (total.milli(d) > floor.milli(d)) return j.getKey();
            }
            return null;
        }

        /** The dimensions a group's pending pods ask for (its reclaimer's or preemptor's needs), the pods slot aside. */
        Set<String> askedBy(String group) {
            Set<String> dims = new LinkedHashSet<>();
            for (PodSpec p : snap.pods()) {
                if (p.isBound() || !p.jobId().equals(group)) continue;
                Resources s = share(p);
                for (int i = 0; i < s.size(); i++) if (s.milliAt(i) > 0) dims.add(s.name(i));
            }
            return dims;
        }

        // ---- freed beyond need ------------------------------------------------------------------------------------

        /** The GPUs the group freed beyond need and idle room when that is at least its smallest victim's; else -1. */
        long beyondNeed(String group, List<PodSpec> victims, List<Nomination> noms) {
            long freed = 0, smallest = Long.MAX_VALUE;
            for (PodSpec v : victims) {
                long g = v.requests().milli(gpu);
                freed += g;
                if (g > 0) smallest = Math.min(smallest, g);
            }
            if (smallest == Long.MAX_VALUE) return -1;
            long need = 0;
            Set<String> nodesOf = new LinkedHashSet<>();
            for (Nomination n : noms) {
                need += pods.get(n.pod()).requests().milli(gpu);
                nodesOf.add(n.node());
            }
            long idle = 0;
            for (String n : nodesOf) idle += Math.max(0, idleBefore(n, group).milli(gpu));
            long beyond = freed - need - idle;
            return beyond >= smallest ? beyond / 1000 : -1;
        }

        /**
         * A node's room before the cycle: allocatable less the pods bound to it and the room held for pods (of other
         * groups than {@code group}) the previous cycle nominated to it.
         */
        Resources idleBefore(String node, String group) {
            NodeSpec n = nodes.get(node);
            if (n == null) return Resources.NONE;
            Resources idle = n.allocatable().subtract(boundOn.getOrDefault(node, Resources.NONE));
            for (Map.Entry<String, String> held : snap.nominations().entrySet()) {
                if (!held.getValue().equals(node)) continue;
                PodSpec p = pods.get(held.getKey());
                if (p != null && !p.isBound() && !p.jobId().equals(group)) idle = idle.subtract(p.requests());
            }
            return idle;
        }

        // ---- unneeded victims -------------------------------------------------------------------------------------

        /** A victim unit of the group that could have stayed running (its pods' names), or null. */
        String unneededUnit(String group, List<PodSpec> victims) {
            Map<String, List<PodSpec>> byJob = new LinkedHashMap<>();
            for (PodSpec v : victims) byJob.computeIfAbsent(v.jobId(), k -> new ArrayList<>()).add(v);
            for (Map.Entry<String, List<PodSpec>> j : byJob.entrySet()) {
                String job = j.getKey();
                int wasRunning = running.getOrDefault(job, List.of()).size();
                int evicted = evictedOfJob.getOrDefault(job, List.of()).size();
                // Kept running, the unit leaves the job with wasRunning - evicted + |unit| pods: all of them (nothing
                // was evicted from it), or at least minMember — never a broken gang, whichever groups took the rest.
                List<List<PodSpec>> units = new ArrayList<>();
                int part = j.getValue().size();
                int min = Math.max(1, minMember(job));
                if (part == evicted || wasRunning - evicted + part >= min) units.add(j.getValue());
                if (part > 1 && wasRunning - evicted + 1 >= min) for (PodSpec p : j.getValue()) units.add(List.of(p));
                for (List<PodSpec> unit : units) if (couldStay(group, unit)) return names(unit);
            }
            return null;
        }

        /** Whether every nominated pod still fits its node, and the group's queue its capability, with the unit kept. */
        boolean couldStay(String group, List<PodSpec> unit) {
            Map<String, Resources> kept = new HashMap<>();
            for (PodSpec p : unit) kept.merge(p.nodeName(), p.requests(), Resources::add);
            for (Map.Entry<String, Resources> k : kept.entrySet()) {
                Resources wanted = nominatedOn.get(k.getKey());
                if (wanted == null) continue;
                if (!wanted.fitsIn(roomAfter(k.getKey()).subtract(k.getValue()))) return false;
            }
            String q = queueOf(group);
            QueueSpec spec = queues.get(q);
            QueueStatus s = status(q);
            if (spec != null && s != null && spec.capability() != null && !spec.capability().isUnlimited()
                    && queueOf(unit.get(0).jobId()).equals(q)) {
                Resources asked = Resources.NONE;
                for (Nomination n : nominatedOf.getOrDefault(group, List.of())) asked = asked.add(share(pods.get(n.pod())));
                Resources more = sum(unit).onlyDimensionsOf(asked);
                if (!spec.capability().admits(s.allocated(), more)) return false;
            }
            return true;
        }

        /** A node's room once the cycle's decisions are carried out (nominated pods not yet there). */
        Resources roomAfter(String node) {
            NodeSpec n = nodes.get(node);
            Resources room = n == null ? Resources.NONE : n.allocatable().subtract(boundOn.getOrDefault(node, Resources.NONE));
            for (Binding b : r.bindings()) {
                PodSpec p = pods.get(b.pod());
                if (p != null && b.node().equals(node)) room = room.subtract(p.requests());
            }
            for (Eviction e : r.evictions()) {
                PodSpec p = pods.get(e.pod());
                if (p != null && e.node().equals(node)) room = room.add(p.requests());
            }
            return room;
        }

        // ---- CPU-only groups evicting GPU pods --------------------------------------------------------------------

        boolean cpuOnlyEvictingGpu(String group, List<PodSpec> victims, List<Nomination> noms) {
            if (askedBy(group).contains(gpu)) return false;
            if (victims.stream().noneMatch(v -> v.requests().milli(gpu) > 0)) return false;
            Map<String, Resources> wanted = new HashMap<>();
            for (Nomination n : noms) wanted.merge(n.node(), pods.get(n.pod()).requests(), Resources::add);
            for (Map.Entry<String, Resources> w : wanted.entrySet()) {
                Resources idle = idleBefore(w.getKey(), group);
                if (w.getValue().milli("cpu") <= idle.milli("cpu") && w.getValue().milli("memory") <= idle.milli("memory")) {
                    return true;
                }
            }
            return false;
        }

        // ---- helpers ----------------------------------------------------------------------------------------------

        QueueStatus status(String queue) {
            for (QueueStatus s : r.queues()) if (s.queue().equals(queue)) return s;
            return null;
        }

        String queueOf(String job) {
            PodGroupSpec g = groups.get(job);
            if (g != null) return g.queue() == null ? QueueSpec.DEFAULT : g.queue();
            for (PodSpec p : jobPods(job)) return p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
            return QueueSpec.DEFAULT;
        }

        int minMember(String job) {
            PodGroupSpec g = groups.get(job);
            return g == null ? 1 : g.minMember();
        }

        private List<PodSpec> jobPods(String job) {
            List<PodSpec> out = running.get(job);
            if (out != null) return out;
            return snap.pods().stream().filter(p -> p.jobId().equals(job)).limit(1).toList();
        }
    }

    private static Resources sum(List<PodSpec> ps) {
        Resources r = Resources.NONE;
        for (PodSpec p : ps) r = r.add(share(p));
        return r;
    }

    private static String nodesOf(List<Eviction> ev) {
        return String.join(",", ev.stream().map(Eviction::node).distinct().toList());
    }

    private static String names(List<PodSpec> ps) {
        List<String> out = new ArrayList<>();
        for (PodSpec p : ps) out.add(p.key());
        return String.join(",", out);
    }
}
