package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Runtimes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Runs the real scheduler on manifests, with no cluster: the simulator plays the API server and the kubelets.
 *
 * <p>Rules of the simulated world: an object with {@code simulation.arbiter.dev/arrival-cycle: N} appears before
 * cycle N (cycles count from 1; 0 means present from the start). Cycle N happens at simulated second
 * {@code N × cycleSeconds}. A bound pod runs at once and started at its bind cycle's time (a pod bound in the
 * manifests started at time 0 unless it carries {@code status.startTime}); a pod with {@code
 * simulation.arbiter.dev/runtime} ({@link Runtimes#SIMULATED}) Succeeds that long after it started and frees its room,
 * others run to the end of the run. An evicted pod leaves its node before the
 * next cycle and is not recreated. A real PodGroup keeps the phase the last cycle gave it. The run stops after a
 * cycle that changed nothing when no arrivals remain, no running pod is due to end and the policy expects no change
 * (e.g. no protection about to expire), or after {@code maxCycles} cycles. Idle stretches are skipped: after a cycle that changed nothing, the
 * next cycle is the next arrival's or the policy's wake-up time, so cycle numbers keep counting simulated time.
 *
 * <p>After every cycle it checks that no node holds more than its allocatable in any dimension; a violation is a
 * scheduler bug and fails the run.
 */
public final class Simulator {
    private final Scheduler scheduler;

    public Simulator(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * How to simulate: at most {@code maxCycles} cycles of {@code cycleSeconds} simulated seconds each;
     * {@code recreateEvicted}: an evicted pod comes back pending before the next cycle, as its controller (a Job, a
     * training operator) would recreate it, so demand stays constant; {@code followWakeUps}: when nothing changes,
     * keep going to the time the policy said it may decide otherwise (a protection expiring), not only to the next
     * arrival — a story that moves time explicitly turns this off.
     */
    public record Options(int maxCycles, long cycleSeconds, boolean recreateEvicted, boolean followWakeUps,
                          int firstCycle, long origin, long until) {
        /** Cycles from 1 at {@code N × cycleSeconds}, with no end but {@code maxCycles}. */
        public Options(int maxCycles, long cycleSeconds, boolean recreateEvicted, boolean followWakeUps) {
            this(maxCycles, cycleSeconds, recreateEvicted, followWakeUps, 1, 0, -1);
        }

        public static Options defaults(int maxCycles) {
            return new Options(maxCycles, 1, false, true);
        }

        /**
         * These options, running on from a snapshot (the start-time forecast): the first cycle is {@code firstCycle}
         * (objects that arrive by it are there), cycle N happens at {@code origin + N × cycleSeconds}, and no cycle
         * runs after simulated second {@code until} (-1: none).
         */
        public Options from(int firstCycle, long origin, long until) {
            return new Options(maxCycles, cycleSeconds, recreateEvicted, followWakeUps, firstCycle, origin, until);
        }

        /** The simulated second of cycle {@code cycle}. */
        public long timeOf(int cycle) {
            return origin + cycle * cycleSeconds;
        }
    }

    public SimulationResult run(Manifests m, int maxCycles) {
        return run(m, Options.defaults(maxCycles));
    }

    public SimulationResult run(Manifests m, int maxCycles, long cycleSeconds) {
        return run(m, new Options(maxCycles, cycleSeconds, false, true));
    }

    public SimulationResult run(Manifests m, int maxCycles, long cycleSeconds, boolean recreateEvicted) {
        return run(m, new Options(maxCycles, cycleSeconds, recreateEvicted, true));
    }

    public SimulationResult run(Manifests m, Options options) {
        return run(m, options, null);
    }

    /**
     * {@link #run(Manifests, Options)}, showing {@code observer} (when not null) each cycle's snapshot and what the
     * scheduler decided on it, before the decisions are executed (an audit reads both; neither may be changed).
     */
    public SimulationResult run(Manifests m, Options options, BiConsumer<ClusterSnapshot, CycleResult> observer) {
        return run(m, options, Map.of(), observer);
    }

    /**
     * {@link #run(Manifests, Options, BiConsumer)}, the first cycle holding room for pending pods as {@code
     * nominations} say (pod to node: what the cycle before the first made room for, as a snapshot carries it).
     */
    public SimulationResult run(Manifests m, Options options, Map<String, String> nominations,
                                BiConsumer<ClusterSnapshot, CycleResult> observer) {
        World world = new World(m, options.cycleSeconds(), options.origin(), options.recreateEvicted());
        world.nominations = Map.copyOf(nominations);
        return run(world, options.firstCycle(), options, observer, null, null);
    }

    /**
     * A change made to the simulated world before cycle {@code cycle} runs: {@code change} gets the snapshot that
     * cycle would see and returns the world as it is to be from then on (nodes, pods, PodGroups, queues, nominations
     * and usage of the objects present; objects arriving later still arrive). What {@code arbiter whatif} proposes is
     * checked this way: a queue raised, jobs ended, nodes added, a pod's constraint dropped.
     */
    public record Intervention(int cycle, java.util.function.UnaryOperator<ClusterSnapshot> change) {}

    /** {@link #run(Manifests, Options)} with {@code intervention} made to the world on its way. */
    public SimulationResult runWith(Manifests m, Options options, Intervention intervention) {
        return run(new World(m, options.cycleSeconds(), options.origin(), options.recreateEvicted()), options.firstCycle(),
                options, null, intervention, null);
    }

    /**
     * The world as cycle {@code cycle} would see it: the simulation of {@code m} run up to that cycle (cycles before
     * it run, idle ones skipped as ever), then its snapshot, before the rules decide anything on it. A simulation
     * that settles earlier gives the settled world at that cycle's time.
     */
    public ClusterSnapshot stateAt(Manifests m, Options options, int cycle) {
        World world = new World(m, options.cycleSeconds(), options.origin(), options.recreateEvicted());
        run(world, options.firstCycle(), options, null, null, cycle);
        return world.snapshot(cycle);
    }

    /**
     * Runs on from {@code state}, the snapshot of cycle {@code cycle} (from {@link #stateAt}, changed or not), as the
     * simulated world would: its pods where they are, its nominations and usage. Nothing else arrives. Stops after
     * {@code options.maxCycles()} cycles, when the world settles, or after a cycle for which {@code until} holds.
     */
    public SimulationResult runFrom(ClusterSnapshot state, int cycle, Options options,
                                    java.util.function.Predicate<CycleResult> until) {
        World world = new World(state, options.cycleSeconds(), options.recreateEvicted());
        return run(world, cycle, options, until == null ? null : (s, r) -> {
            if (until.test(r)) throw new Stop();
        }, null, null);
    }

    /** Thrown by an observer to end a run after the cycle it saw (its decisions executed). */
    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }

    private SimulationResult run(World world, int firstCycle, Options options, BiConsumer<ClusterSnapshot, CycleResult> observer,
                                 Intervention intervention, Integer stopBefore) {
        int maxCycles = options.maxCycles();
        long cycleSeconds = options.cycleSeconds();
        List<CycleResult> cycles = new ArrayList<>();
        List<PodGroupStatus> lastGroups = List.of();
        boolean stable = false;
        int cycle = firstCycle;
        boolean intervened = intervention == null;
        for (int run = 0; run < maxCycles; run++) {
            if (stopBefore != null && cycle >= stopBefore) break;
            if (options.until() >= 0 && options.timeOf(cycle) > options.until()) break;
            world.finishDue(cycle);
            if (!intervened && cycle >= intervention.cycle()) {
                world.adopt(intervention.change().apply(world.snapshot(intervention.cycle())), intervention.cycle());
                intervened = true;
                cycle = intervention.cycle();
            }
            ClusterSnapshot snapshot = world.snapshot(cycle);
            CycleResult r = scheduler.schedule(snapshot, cycle);
            boolean stop = false;
            if (observer != null) {
                try {
                    observer.accept(snapshot, r);
                } catch (Stop s) {
                    stop = true;
                }
            }
            boolean nominated = world.nominate(r);
            cycles.add(r);
            boolean changed = world.apply(r, cycle) || nominated;
            world.checkCapacity(cycle);
            lastGroups = r.podGroups();
            if (stop) break;
            if (changed) {
                cycle++;
                continue;
            }
            // Nothing changed: nothing will until an arrival or until the policy said it may decide otherwise
            // (a protection expiring). Skip the idle cycles in between; with neither, the world is stable.
            int next = world.nextArrivalAfter(cycle);
            if (options.followWakeUps()) next = Math.min(next, wakeCycle(r, cycleSeconds, options.origin()));
            if (!intervened) next = Math.min(next, intervention.cycle());
            if (next == Integer.MAX_VALUE) {
                stable = true;
                break;
            }
            cycle = Math.max(next, cycle + 1);
        }
        return new SimulationResult(cycles, world.outcomes(), lastGroups,
                cycles.isEmpty() ? List.of() : cycles.get(cycles.size() - 1).queues(), world.m.notices(), stable);
    }

    private static int wakeCycle(CycleResult r, long cycleSeconds, long origin) {
        if (r.wakeAt() < 0) return Integer.MAX_VALUE;
        return (int) Math.min(Integer.MAX_VALUE - 1, ceilDiv(r.wakeAt() - origin, cycleSeconds));
    }

    /** The first cycle at or after simulated second {@code t} measured from the origin (t ≥ 0 here in practice). */
    private static long ceilDiv(long t, long cycleSeconds) {
        return Math.max(0, Math.floorDiv(t + cycleSeconds - 1, cycleSeconds));
    }

    /** The simulated cluster's mutable state. */
    private static final class World {
        /** The objects: the manifests' nodes, PodGroups and queues (as an intervention left them). */
        private Manifests m;
        private final Map<String, PodSpec> pods = new LinkedHashMap<>();
        private final Map<String, String> evictedFrom = new LinkedHashMap<>();
        /** Room made for pending pods by the last cycle's evictions, held for them in the next cycle only. */
        Map<String, String> nominations = Map.of();
        /** The queues' decayed past usage as last sampled (the Queues' annotation, live), by queue. */
        private final Map<String, dev.arbiter.model.QueueUsage> usage = new java.util.TreeMap<>();
        private final Map<String, String> groupPhase = new HashMap<>();
        private final java.util.Set<String> overcommittedAtStart;

        private final long cycleSeconds;
        /** Simulated second of cycle 0: cycle N happens at {@code origin + N × cycleSeconds}. */
        private final long origin;
        private final boolean recreateEvicted;

        World(Manifests m, long cycleSeconds, long origin, boolean recreateEvicted) {
            this.m = m;
            this.cycleSeconds = cycleSeconds;
            this.origin = origin;
            this.recreateEvicted = recreateEvicted;
            usage.putAll(m.queueUsage());
            for (PodSpec p : m.pods()) {
                PodSpec created = p.withCreationOrder(createdAt(p.arrivalCycle(), p.creationOrder()));
                if (created.isBound() && created.startedAt() == PodSpec.UNKNOWN_START) created = created.withStartedAt(origin);
                pods.put(p.key(), created);
            }
            for (PodGroupSpec g : m.podGroups()) groupPhase.put(g.key(), g.phase() == null ? "Pending" : g.phase());
            this.overcommittedAtStart = overcommitted();
        }

        /** The world a snapshot shows: its objects as they are (created, started, in their phases), its nominations. */
        World(ClusterSnapshot state, long cycleSeconds, boolean recreateEvicted) {
            this.m = new Manifests(state.nodes(), state.pods(), state.podGroups(), state.queues(), state.priorityClasses(),
                    List.of(), state.namespaceLabels(), state.hyperNodes(), state.usage());
            this.cycleSeconds = cycleSeconds;
            this.origin = 0;
            this.recreateEvicted = recreateEvicted;
            usage.putAll(state.usage());
            for (PodSpec p : state.pods()) pods.put(p.key(), p);
            for (PodGroupSpec g : state.podGroups()) groupPhase.put(g.key(), g.phase() == null ? "Pending" : g.phase());
            nominations = state.nominations();
            this.overcommittedAtStart = overcommitted();
        }

        /**
         * Takes {@code changed} (a snapshot of cycle {@code cycle}, changed) as the world: its nodes, pods, PodGroups
         * and queues replace those present by then; objects that arrive later are kept.
         */
        void adopt(ClusterSnapshot changed, int cycle) {
            List<NodeSpec> nodes = new ArrayList<>(changed.nodes());
            m.nodes().stream().filter(n -> n.arrivalCycle() > cycle).forEach(nodes::add);
            List<PodGroupSpec> groups = new ArrayList<>(changed.podGroups());
            m.podGroups().stream().filter(g -> g.arrivalCycle() > cycle).forEach(groups::add);
            List<dev.arbiter.model.QueueSpec> queues = new ArrayList<>(changed.queues());
            m.queues().stream().filter(q -> q.arrivalCycle() > cycle).forEach(queues::add);
            m = new Manifests(nodes, m.pods(), groups, queues, changed.priorityClasses(), m.notices(), m.namespaceLabels(),
                    m.hyperNodes(), m.queueUsage());
            Map<String, PodSpec> later = new LinkedHashMap<>();
            pods.forEach((k, p) -> {
                if (p.arrivalCycle() > cycle) later.put(k, p);
            });
            pods.clear();
            for (PodSpec p : changed.pods()) pods.put(p.key(), p);
            pods.putAll(later);
            for (PodGroupSpec g : changed.podGroups()) groupPhase.put(g.key(), g.phase() == null ? "Pending" : g.phase());
            nominations = changed.nominations();
            usage.clear();
            usage.putAll(changed.usage());
        }

        ClusterSnapshot snapshot(int cycle) {
            List<NodeSpec> nodes = m.nodes().stream().filter(n -> n.arrivalCycle() <= cycle).toList();
            List<PodSpec> ps = pods.values().stream().filter(p -> p.arrivalCycle() <= cycle).toList();
            List<PodGroupSpec> groups = m.podGroups().stream().filter(g -> g.arrivalCycle() <= cycle)
                    .map(g -> withPhase(g, groupPhase.get(g.key()))).toList();
            return new ClusterSnapshot(nodes, ps, groups,
                    m.queues().stream().filter(q -> q.arrivalCycle() <= cycle).toList(), m.priorityClasses(),
                    origin + cycle * cycleSeconds, nominations, m.namespaceLabels(), m.hyperNodes()).withUsage(usage);
        }

        /** An object that arrives later was created later, whatever its place in the files. */
        private static long createdAt(int arrivalCycle, long fileOrder) {
            return (long) arrivalCycle << 32 | fileOrder;
        }

        private static PodGroupSpec withPhase(PodGroupSpec g, String phase) {
            return g.withPhase(phase, createdAt(g.arrivalCycle(), g.creationOrder()));
        }

        /** Carries the cycle's nominations into the next snapshot; true if there are any (the world is not settled). */
        boolean nominate(CycleResult r) {
            usage.putAll(r.usage()); // stored as the actuator stores it on the Queue; a new sample is no change

            Map<String, String> next = new HashMap<>();
            for (dev.arbiter.decision.Nomination n : r.nominations()) next.put(n.pod(), n.node());
            nominations = next;
            return !next.isEmpty();
        }

        /** Executes a cycle's decisions; true if anything changed. Terminating pods are gone after a cycle. */
        boolean apply(CycleResult r, int cycle) {
            boolean changed = pods.values().removeIf(PodSpec::terminating);
            for (Binding b : r.bindings()) {
                PodSpec p = pods.get(b.pod());
                if (p == null || p.isBound()) throw new IllegalStateException("cycle " + r.cycle() + " bound " + b.pod() + " which is not pending");
                pods.put(b.pod(), p.withNode(b.node(), "Running").withStartedAt(origin + cycle * cycleSeconds));
                changed = true;
            }
            for (Eviction e : r.evictions()) {
                PodSpec p = recreateEvicted ? pods.get(e.pod()) : pods.remove(e.pod());
                if (p == null) throw new IllegalStateException("cycle " + r.cycle() + " evicted " + e.pod() + " which is not running");
                evictedFrom.put(e.pod(), e.node());
                if (recreateEvicted) pods.put(e.pod(), p.withNode(null, "Pending").withStartedAt(PodSpec.UNKNOWN_START));
                changed = true;
            }
            for (PodGroupStatus s : r.podGroups()) {
                String before = groupPhase.get(s.podGroup());
                if (before != null && !before.equals(s.phase())) {
                    groupPhase.put(s.podGroup(), s.phase());
                    changed = true;
                }
            }
            return changed;
        }

        /**
         * Pods whose simulated running time ({@link Runtimes#SIMULATED}) has passed by {@code cycle}'s time have
         * Succeeded: they stay where they ran, holding nothing.
         */
        void finishDue(int cycle) {
            long now = origin + cycle * cycleSeconds;
            for (Map.Entry<String, PodSpec> e : pods.entrySet()) {
                long end = endOf(e.getValue());
                if (end != Runtimes.UNKNOWN && end <= now) e.setValue(e.getValue().withNode(e.getValue().nodeName(), "Succeeded"));
            }
        }

        /** When a running pod with a simulated running time ends, in simulated seconds, or {@link Runtimes#UNKNOWN}. */
        private static long endOf(PodSpec p) {
            if (!p.isBound() || p.finished() || p.terminating() || p.startedAt() == PodSpec.UNKNOWN_START) return Runtimes.UNKNOWN;
            long runtime = Runtimes.simulatedOf(p);
            return runtime == Runtimes.UNKNOWN ? Runtimes.UNKNOWN : p.startedAt() + runtime;
        }

        /**
         * The first cycle after {@code cycle} at which something arrives or a running pod ends, or
         * {@link Integer#MAX_VALUE}.
         */
        int nextArrivalAfter(int cycle) {
            int next = Integer.MAX_VALUE;
            for (PodSpec p : pods.values()) {
                long end = endOf(p);
                if (end == Runtimes.UNKNOWN) continue;
                long at = Math.max(cycle + 1L, ceilDiv(end - origin, cycleSeconds));
                next = (int) Math.min(next, Math.min(Integer.MAX_VALUE - 1L, at));
            }
            for (NodeSpec n : m.nodes()) if (n.arrivalCycle() > cycle) next = Math.min(next, n.arrivalCycle());
            for (PodSpec p : pods.values()) if (p.arrivalCycle() > cycle) next = Math.min(next, p.arrivalCycle());
            for (PodGroupSpec g : m.podGroups()) if (g.arrivalCycle() > cycle) next = Math.min(next, g.arrivalCycle());
            for (dev.arbiter.model.QueueSpec q : m.queues()) if (q.arrivalCycle() > cycle) next = Math.min(next, q.arrivalCycle());
            return next;
        }

        /** Nodes the manifests already over-commit are not ours to judge; every other node must stay within capacity. */
        void checkCapacity(int cycle) {
            for (String node : overcommitted()) {
                if (!overcommittedAtStart.contains(node)) {
                    throw new IllegalStateException("after cycle " + cycle + " node " + node + " is over capacity");
                }
            }
        }

        private java.util.Set<String> overcommitted() {
            java.util.Set<String> out = new java.util.TreeSet<>();
            Map<String, Resources> used = new HashMap<>();
            for (PodSpec p : pods.values()) {
                if (p.isBound() && !p.finished()) used.merge(p.nodeName(), p.requests(), Resources::add);
            }
            for (NodeSpec n : m.nodes()) {
                Resources u = used.getOrDefault(n.name(), Resources.NONE);
                if (!u.fitsIn(n.allocatable())) out.add(n.name());
            }
            return out;
        }

        List<PodOutcome> outcomes() {
            List<PodOutcome> out = new ArrayList<>();
            for (PodSpec p : m.pods()) {
                PodSpec now = pods.get(p.key());
                if (now == null) out.add(new PodOutcome(p.key(), "Evicted", null));
                else if (now.finished()) out.add(new PodOutcome(p.key(), now.phase(), now.nodeName()));
                else out.add(new PodOutcome(p.key(), now.isBound() ? "Running" : "Pending", now.nodeName()));
            }
            return out;
        }
    }
}
