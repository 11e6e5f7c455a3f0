package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.decision.Refusal;
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

    /**
     * Places {@code pods} pods of {@code gpus} GPUs each first-fit on nodes {@code node-1..} whose free GPUs
     * {@code free} holds, taking their room: the nodes, one per pod, or null (and nothing taken) when they do not all fit.
     */
    public static String[] firstFit(int[] free, int pods, int gpus) {
        String[] placed = new String[pods];
        int n = 0;
        for (int p = 0; p < pods; p++) {
            for (int k = 0; k < free.length; k++) {
                if (free[k] >= gpus) {
                    free[k] -= gpus;
                    placed[n++] = "node-" + (k + 1);
                    break;
                }
            }
        }
        if (n == pods) return placed;
        for (int p = 0; p < n; p++) free[Integer.parseInt(placed[p].substring(5)) - 1] += gpus;
        return null;
    }

    /** A copy of the shipped rules in {@code dir/name} without the file {@code left}: the shipped policy, one part off. */
    public static Path rulesWithout(Path dir, String name, String left) throws java.io.IOException {
        Path out = java.nio.file.Files.createDirectories(dir.resolve(name));
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(Path.of("rules"))) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals(left)) java.nio.file.Files.copy(f, out.resolve(f.getFileName()));
            }
        }
        return out;
    }

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

    /** Why the PodGroup is not running, as data (the refusal its reason words). */
    public static Refusal why(CycleResult r, String id) {
        Refusal why = group(r.podGroups(), id).why();
        if (why == null) throw new AssertionError(id + " has no refusal: " + group(r.podGroups(), id));
        return why;
    }

    /**
     * The first part of {@code r} of type {@code type}, depth first (the allocation step's before an eviction step's);
     * fails, showing the refusal, when it holds none.
     */
    public static <T extends Refusal> T part(Refusal r, Class<T> type) {
        T found = find(r, type);
        if (found == null) throw new AssertionError("no " + type.getSimpleName() + " in " + r);
        return found;
    }

    /** What {@code action} (preempt, reclaim) was refused for, in {@code r}; fails when it was not tried. */
    public static Refusal attempted(Refusal r, String action) {
        Refusal found = findAttempt(r, action);
        if (found == null) throw new AssertionError("no " + action + " in " + r);
        return found;
    }

    private static <T extends Refusal> T find(Refusal r, Class<T> type) {
        if (type.isInstance(r)) return type.cast(r);
        for (Refusal p : inside(r)) {
            T found = find(p, type);
            if (found != null) return found;
        }
        return null;
    }

    private static Refusal findAttempt(Refusal r, String action) {
        if (r instanceof Refusal.Attempted a && a.action().equals(action)) return a.why();
        for (Refusal p : inside(r)) {
            Refusal found = findAttempt(p, action);
            if (found != null) return found;
        }
        return null;
    }

    private static List<Refusal> inside(Refusal r) {
        if (r instanceof Refusal.Also a) return List.of(a.first(), a.then());
        if (r instanceof Refusal.Because b) return List.of(b.what(), b.cause());
        if (r instanceof Refusal.Attempted a) return List.of(a.why());
        if (r instanceof Refusal.NoDomainTried d) return List.of(d.but());
        if (r instanceof Refusal.NoPlan p) return List.of(p.closest());
        if (r instanceof Refusal.NoNodeSuits n) return List.of(n.why());
        return List.of();
    }

    /** Whole units of one resource, e.g. {@code gpus(status.deserved(), "nvidia.com/gpu")}. */
    public static long units(dev.arbiter.model.Resources r, String dim) {
        return r.milli(dim) / 1000;
    }
}
