package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.engine.Scheduler;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the real scheduler on manifests, with no cluster: the simulator plays the API server and the kubelets.
 *
 * <p>Rules of the simulated world: an object with {@code simulation.arbiter.dev/arrival-cycle: N} appears before
 * cycle N (cycles count from 1; 0 means present from the start). Cycle N happens at simulated second
 * {@code N × cycleSeconds}. A bound pod runs at once and started at its bind cycle's time (a pod bound in the
 * manifests started at time 0 unless it carries {@code status.startTime}). An evicted pod leaves its node before the
 * next cycle and is not recreated. A real PodGroup keeps the phase the last cycle gave it. The run stops after a
 * cycle that changed nothing when no arrivals remain, or at {@code maxCycles}.
 *
 * <p>After every cycle it checks that no node holds more than its allocatable in any dimension; a violation is a
 * scheduler bug and fails the run.
 */
public final class Simulator {
    private final Scheduler scheduler;

    public Simulator(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    public SimulationResult run(Manifests m, int maxCycles) {
        return run(m, maxCycles, 1);
    }

    public SimulationResult run(Manifests m, int maxCycles, long cycleSeconds) {
        return run(m, maxCycles, cycleSeconds, false);
    }

    /**
     * With {@code recreateEvicted}, an evicted pod comes back pending before the next cycle, as its controller (a
     * Job, a training operator) would recreate it: demand stays constant, which is how churn is judged.
     */
    public SimulationResult run(Manifests m, int maxCycles, long cycleSeconds, boolean recreateEvicted) {
        World world = new World(m, cycleSeconds, recreateEvicted);
        List<CycleResult> cycles = new ArrayList<>();
        List<PodGroupStatus> lastGroups = List.of();
        boolean stable = false;
        for (int cycle = 1; cycle <= maxCycles; cycle++) {
            CycleResult r = scheduler.schedule(world.snapshot(cycle), cycle);
            boolean nominated = world.nominate(r);
            cycles.add(r);
            boolean changed = world.apply(r, cycle) || nominated;
            world.checkCapacity(cycle);
            lastGroups = r.podGroups();
            if (!changed && !world.arrivalsAfter(cycle)) {
                stable = true;
                break;
            }
        }
        return new SimulationResult(cycles, world.outcomes(), lastGroups,
                cycles.isEmpty() ? List.of() : cycles.get(cycles.size() - 1).queues(), m.notices(), stable);
    }

    /** The simulated cluster's mutable state. */
    private static final class World {
        private final Manifests m;
        private final Map<String, PodSpec> pods = new LinkedHashMap<>();
        private final Map<String, String> evictedFrom = new LinkedHashMap<>();
        /** Room made for pending pods by the last cycle's evictions, held for them in the next cycle only. */
        private Map<String, String> nominations = Map.of();
        private final Map<String, String> groupPhase = new HashMap<>();
        private final java.util.Set<String> overcommittedAtStart;

        private final long cycleSeconds;
        private final boolean recreateEvicted;

        World(Manifests m, long cycleSeconds, boolean recreateEvicted) {
            this.m = m;
            this.cycleSeconds = cycleSeconds;
            this.recreateEvicted = recreateEvicted;
            for (PodSpec p : m.pods()) {
                PodSpec created = p.withCreationOrder(createdAt(p.arrivalCycle(), p.creationOrder()));
                if (created.isBound() && created.startedAt() == PodSpec.UNKNOWN_START) created = created.withStartedAt(0);
                pods.put(p.key(), created);
            }
            for (PodGroupSpec g : m.podGroups()) groupPhase.put(g.key(), g.phase() == null ? "Pending" : g.phase());
            this.overcommittedAtStart = overcommitted();
        }

        ClusterSnapshot snapshot(int cycle) {
            List<NodeSpec> nodes = m.nodes().stream().filter(n -> n.arrivalCycle() <= cycle).toList();
            List<PodSpec> ps = pods.values().stream().filter(p -> p.arrivalCycle() <= cycle).toList();
            List<PodGroupSpec> groups = m.podGroups().stream().filter(g -> g.arrivalCycle() <= cycle)
                    .map(g -> withPhase(g, groupPhase.get(g.key()))).toList();
            return new ClusterSnapshot(nodes, ps, groups,
                    m.queues().stream().filter(q -> q.arrivalCycle() <= cycle).toList(), m.priorityClasses(),
                    cycle * cycleSeconds, nominations);
        }

        /** An object that arrives later was created later, whatever its place in the files. */
        private static long createdAt(int arrivalCycle, long fileOrder) {
            return (long) arrivalCycle << 32 | fileOrder;
        }

        private static PodGroupSpec withPhase(PodGroupSpec g, String phase) {
            return new PodGroupSpec(g.namespace(), g.name(), g.queue(), g.minMember(), g.minTaskMember(),
                    g.minResources(), g.priorityClassName(), phase, g.arrivalCycle(),
                    createdAt(g.arrivalCycle(), g.creationOrder()));
        }

        /** Carries the cycle's nominations into the next snapshot; true if there are any (the world is not settled). */
        boolean nominate(CycleResult r) {
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
                pods.put(b.pod(), p.withNode(b.node(), "Running").withStartedAt(cycle * cycleSeconds));
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

        boolean arrivalsAfter(int cycle) {
            return m.nodes().stream().anyMatch(n -> n.arrivalCycle() > cycle)
                    || pods.values().stream().anyMatch(p -> p.arrivalCycle() > cycle)
                    || m.podGroups().stream().anyMatch(g -> g.arrivalCycle() > cycle)
                    || m.queues().stream().anyMatch(q -> q.arrivalCycle() > cycle);
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
                if (p.isBound() && !"Succeeded".equals(p.phase()) && !"Failed".equals(p.phase())) {
                    used.merge(p.nodeName(), p.requests(), Resources::add);
                }
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
                else out.add(new PodOutcome(p.key(), now.isBound() ? "Running" : "Pending", now.nodeName()));
            }
            return out;
        }
    }
}
