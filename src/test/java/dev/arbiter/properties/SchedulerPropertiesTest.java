package dev.arbiter.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The scheduler's promises over generated clusters (2–24 nodes, 0–120 pending pods, 1–5 queues, 0–95% of GPUs busy),
 * checked after every cycle of multi-cycle runs of the real engine with the shipped rules. Seeds are fixed so the build
 * is reproducible; a failure names the generated cluster ({@code SynthSpec}) and the cycle.
 *
 * <p>Together the properties run well over 10,000 cycles (counted, and checked when the class finishes).
 */
class SchedulerPropertiesTest {
    static final RuleBook RULES = RuleBook.load(Path.of("rules"));
    static final AtomicInteger CYCLES = new AtomicInteger();
    static final int MIN_CYCLES = 10_000;
    static final java.util.Set<String> RAN = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Set when a property fails: it stops early, so the cycle total no longer means anything. */
    static volatile boolean failed;

    private static void check(boolean ok, String message) {
        if (!ok) failed = true;
        assertTrue(ok, message);
    }

    private static SynthSpec spec(long seed, int nodes, int pods, int queues, int fillPercent) {
        return SynthSpec.small(nodes, pods, queues, seed, fillPercent / 100.0);
    }

    /** Schedulers of the current try that keep state across cycles, disposed of after it. */
    private static final List<Scheduler> KEPT = new java.util.ArrayList<>();

    /**
     * The engine for a try: for an odd seed as {@code run} has it, keeping its rules session and working copy across
     * cycles; for an even one, fresh every cycle. The properties hold for both.
     */
    private static Scheduler engine(long seed) {
        Scheduler fresh = new Scheduler(RULES, SchedulerConfig.simulatorDefault());
        if (seed % 2 == 0) return fresh;
        Scheduler kept = fresh.keepingSession().keepingWorkingCopy();
        KEPT.add(kept);
        return kept;
    }

    @AfterTry
    void dropKeptState() {
        KEPT.forEach(Scheduler::dropSession);
        KEPT.clear();
    }

    /**
     * After every cycle: no node over capacity; bindings respect nodeSelector, node affinity, taints, cordons, host ports,
     * topology spread and pod (anti-)affinity (the generated clusters carry every kind); a gang binds only
     * with minMember (and minTaskMember per role) running and evictions never leave a whole gang broken; a preemption
     * evicts only strictly lower-priority work of its own queue; reclaim takes only from other, reclaimable queues above
     * their deserved share; {@code preemptionPolicy: Never} never evicts; pods marked not preemptable are never evicted.
     * Ten cycles per cluster; when a cycle changes nothing, 10% of the pods churn (jobs finish, new ones arrive).
     */
    @Property(tries = 850, seed = "20261129", shrinking = ShrinkingMode.OFF)
    void safetyInvariantsHoldAfterEveryCycle(@ForAll @LongRange(min = 1, max = 1_000_000_000L) long seed,
                                             @ForAll @IntRange(min = 2, max = 24) int nodes,
                                             @ForAll @IntRange(min = 0, max = 120) int pods,
                                             @ForAll @IntRange(min = 1, max = 5) int queues,
                                             @ForAll @IntRange(min = 0, max = 95) int fillPercent) {
        RAN.add("safety");
        SynthSpec spec = spec(seed, nodes, pods, queues, fillPercent);
        ClusterGenerator generator = ClusterGenerator.create(spec);
        ClusterWorld world = new ClusterWorld(generator.manifests());
        Scheduler engine = engine(seed);
        Random churn = new Random(seed);
        for (int cycle = 1; cycle <= 10; cycle++) {
            ClusterSnapshot snap = world.snapshot();
            CycleFacts facts = new CycleFacts(snap);
            CycleResult r = engine.schedule(snap, cycle);
            CYCLES.incrementAndGet();
            boolean changed = world.apply(r);
            List<String> violations = SchedulerInvariants.check(facts, r, world);
            check(violations.isEmpty(), spec + " cycle " + cycle + ":\n  " + String.join("\n  ", violations));
            if (!changed) world.churn(0.10, churn, generator);
        }
    }

    /**
     * A live cluster's lifetime: each cycle's nominations carried into the next snapshot (room held for preemptors),
     * evicted pods recreated by their controllers, and 5% of the pods churning every cycle, for 25 cycles. Every cycle's
     * decisions bind only pending pods, each once, and evict only running ones (as {@code arbiter bench --soak} checks
     * at fleet scale), and every safety invariant holds.
     */
    @Property(tries = 200, seed = "20261201", shrinking = ShrinkingMode.OFF)
    void nominationsOverManyCyclesNeverBindAPodTwice(@ForAll @LongRange(min = 1, max = 1_000_000_000L) long seed,
                                                     @ForAll @IntRange(min = 2, max = 24) int nodes,
                                                     @ForAll @IntRange(min = 20, max = 160) int pods,
                                                     @ForAll @IntRange(min = 1, max = 5) int queues,
                                                     @ForAll @IntRange(min = 30, max = 95) int fillPercent) {
        RAN.add("nominations");
        SynthSpec spec = spec(seed, nodes, pods, queues, fillPercent);
        ClusterGenerator generator = ClusterGenerator.create(spec);
        ClusterWorld world = new ClusterWorld(generator.manifests()).withNominations().recreatingEvicted();
        Scheduler engine = engine(seed);
        Random churn = new Random(seed);
        for (int cycle = 1; cycle <= 25; cycle++) {
            ClusterSnapshot snap = world.snapshot();
            CycleFacts facts = new CycleFacts(snap);
            CycleResult r = engine.schedule(snap, cycle);
            CYCLES.incrementAndGet();
            List<String> decisions = dev.arbiter.bench.Soak.checkDecisions(snap, r);
            check(decisions.isEmpty(), spec + " cycle " + cycle + ":\n  " + String.join("\n  ", decisions));
            world.apply(r);
            List<String> violations = SchedulerInvariants.check(facts, r, world);
            check(violations.isEmpty(), spec + " cycle " + cycle + ":\n  " + String.join("\n  ", violations));
            world.churn(0.05, churn, generator);
        }
    }

    /**
     * No starvation with idle capacity. Run until a cycle changes nothing (at most 60 cycles). Then every pending pod
     * that is a gang of one (a pod without PodGroup, or a single-pod PodGroup with minMember 1) must not satisfy all of:
     * its queue exists and is Open; the queue's allocation does not cover its deserved share; the pod fits under the
     * queue's real capability (its capability bounded by the cluster less other queues' guarantees) on top of the
     * queue's allocation — and, unless the last cycle admitted its job, also on top of what admission holds in reserve
     * for the queue's other admitted jobs ({@link CycleFacts#reserved}); and some schedulable node it may use (selector,
     * node affinity, taints, cordon, and its rules that depend on the pods there: {@link PlacementOracle}) has room for
     * it in every dimension. Such a pod would have been admitted and placed by the last
     * cycle, so it is starving next to idle capacity.
     */
    @Property(tries = 250, seed = "20261130", shrinking = ShrinkingMode.OFF)
    void noPodStarvesNextToIdleCapacity(@ForAll @LongRange(min = 1, max = 1_000_000_000L) long seed,
                                        @ForAll @IntRange(min = 2, max = 24) int nodes,
                                        @ForAll @IntRange(min = 0, max = 120) int pods,
                                        @ForAll @IntRange(min = 1, max = 5) int queues,
                                        @ForAll @IntRange(min = 0, max = 95) int fillPercent) {
        RAN.add("starvation");
        SynthSpec spec = spec(seed, nodes, pods, queues, fillPercent);
        ClusterWorld world = new ClusterWorld(ClusterGenerator.generate(spec));
        Scheduler engine = engine(seed);
        ClusterSnapshot last = null;
        CycleResult lastResult = null;
        for (int cycle = 1; cycle <= 60 && last == null; cycle++) {
            ClusterSnapshot snap = world.snapshot();
            CycleResult r = engine.schedule(snap, cycle);
            CYCLES.incrementAndGet();
            if (!world.apply(r)) {
                last = snap;
                lastResult = r;
            }
        }
        check(last != null, spec + ": still changing after 60 cycles");
        List<String> starving = starving(new CycleFacts(last), lastResult);
        check(starving.isEmpty(), spec + ":\n  " + String.join("\n  ", starving));
    }

    private static List<String> starving(CycleFacts f, CycleResult r) {
        List<String> out = new ArrayList<>();
        Map<String, Resources> free = f.freeByNode();
        Map<String, String> phases = new java.util.HashMap<>();
        r.podGroups().forEach(g -> phases.put(g.podGroup(), g.phase()));
        for (CycleFacts.JobView j : f.jobs.values()) {
            if (j.pods().size() != 1 || j.minMember() > 1) continue;
            PodSpec p = j.pods().get(0);
            if (p.isBound() || !p.schedulerName().equals(ClusterGenerator.SCHEDULER)) continue;
            QueueSpec q = f.queues.get(j.queue());
            if (q == null || !"Open".equals(q.state())) continue;
            QueueStatus s = CycleFacts.status(r.queues(), q.name());
            Resources allocated = f.allocated(q.name());
            if (s.deserved().fitsIn(allocated)) continue;
            var real = f.realCapability(q.name());
            if (!real.admits(allocated.add(p.requests()))) continue;
            if (!"Inqueue".equals(phases.get(j.id()))
                    && !real.minus(allocated).minus(f.reserved(q.name(), j, phases)).admits(p.requests())) continue;
            PlacementOracle oracle = new PlacementOracle(f.snap);
            for (NodeSpec n : f.snap.nodes()) {
                if (oracle.violation(p, n.name()) == null && p.requests().fitsIn(free.get(n.name()))) {
                    out.add(p.key() + " (" + j.phase() + ", queue " + q.name() + " allocated " + allocated + " of deserved "
                            + s.deserved() + ") stays pending although " + n.name() + " has room " + free.get(n.name()));
                    break;
                }
            }
        }
        return out;
    }

    /** The same snapshot gives the same decisions, in the same order, from two schedulers (five cycles per cluster). */
    @Property(tries = 160, seed = "20261131", shrinking = ShrinkingMode.OFF)
    void decisionsAreDeterministic(@ForAll @LongRange(min = 1, max = 1_000_000_000L) long seed,
                                   @ForAll @IntRange(min = 2, max = 24) int nodes,
                                   @ForAll @IntRange(min = 0, max = 120) int pods,
                                   @ForAll @IntRange(min = 1, max = 5) int queues,
                                   @ForAll @IntRange(min = 0, max = 95) int fillPercent) {
        SynthSpec spec = spec(seed, nodes, pods, queues, fillPercent);
        ClusterGenerator generator = ClusterGenerator.create(spec);
        ClusterWorld world = new ClusterWorld(generator.manifests());
        RAN.add("determinism");
        Scheduler a = engine(seed);
        Scheduler b = engine(seed + 1); // one of the two keeps its state across cycles: they still decide alike
        Random churn = new Random(seed);
        for (int cycle = 1; cycle <= 5; cycle++) {
            ClusterSnapshot snap = world.snapshot();
            CycleResult ra = a.schedule(snap, cycle);
            CycleResult rb = b.schedule(snap, cycle);
            CYCLES.addAndGet(2);
            check(ra.bindings().equals(rb.bindings()), spec + " cycle " + cycle + ": bindings differ");
            check(ra.evictions().equals(rb.evictions()), spec + " cycle " + cycle + ": evictions differ");
            check(ra.podGroups().equals(rb.podGroups()), spec + " cycle " + cycle + ": PodGroup statuses differ: "
                    + firstDifference(ra.podGroups(), rb.podGroups()));
            check(ra.queues().equals(rb.queues()), spec + " cycle " + cycle + ": queue statuses differ: "
                    + firstDifference(ra.queues(), rb.queues()));
            if (!world.apply(ra)) world.churn(0.10, churn, generator);
        }
    }

    private static String firstDifference(List<?> a, List<?> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!a.get(i).equals(b.get(i))) return a.get(i) + " vs " + b.get(i);
        }
        return a.size() + " vs " + b.size() + " entries";
    }

    @AfterContainer
    static void enoughCycles() {
        System.out.println("scheduler properties: " + CYCLES.get() + " generated cycles checked");
        // A single property was selected, or one failed and stopped early: the total applies to a full, clean run.
        if (RAN.size() < 3 || failed) return;
        assertTrue(CYCLES.get() >= MIN_CYCLES, "only " + CYCLES.get() + " cycles ran; the properties must cover at least "
                + MIN_CYCLES);
    }
}
