package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The shipped policy ({@code rules/}), compiled once per test JVM, and readers for what a cycle decided. */
public final class Shipped {
    public static final RuleBook RULES = RuleBook.load(Path.of("rules"));

    private Shipped() {}

    public static Scheduler scheduler() {
        return new Scheduler(RULES, SchedulerConfig.simulatorDefault());
    }

    public static CycleResult cycle(ClusterSnapshot s) {
        return scheduler().schedule(s, 1);
    }

    public static SimulationResult simulate(Manifests m) {
        return new Simulator(scheduler()).run(m, 100);
    }

    public static Set<String> bound(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (Binding b : r.bindings()) out.add(b.pod());
        return out;
    }

    public static Set<String> evicted(CycleResult r) {
        Set<String> out = new TreeSet<>();
        for (Eviction e : r.evictions()) out.add(e.pod());
        return out;
    }

    public static QueueStatus queue(List<QueueStatus> qs, String name) {
        return qs.stream().filter(q -> q.queue().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no queue " + name));
    }

    public static PodGroupStatus group(List<PodGroupStatus> gs, String id) {
        return gs.stream().filter(g -> g.podGroup().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no PodGroup " + id));
    }

    /** Whole units of one resource, e.g. {@code gpus(status.deserved(), "nvidia.com/gpu")}. */
    public static long units(dev.arbiter.model.Resources r, String dim) {
        return r.milli(dim) / 1000;
    }
}
