package dev.arbiter.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Drools engine and the plain-Java reference agree, cycle after cycle, on many random clusters: the same gangs
 * bind (to the same nodes), the same pods are evicted, every queue deserves the same share and every PodGroup ends
 * in the same phase. Both see the same snapshot each cycle; the world then advances by the engine's decisions.
 * A disagreement is a bug in one of them and is reported with the seed that reproduces it
 * ({@code DifferentialTest.spec(seed)}).
 */
class DifferentialTest {
    private static final int SEEDS = Integer.getInteger("arbiter.differential.seeds", 400);
    private static final int CYCLES = 6;
    private static final RuleBook RULES = RuleBook.load(Path.of("rules"));

    /** The cluster a seed stands for: 2–30 nodes, 0–160 pending pods, 1–6 queues, 0–95% of GPUs busy. */
    static SynthSpec spec(long seed) {
        Random r = new Random(seed * 7919);
        return SynthSpec.small(2 + r.nextInt(29), r.nextInt(161), 1 + r.nextInt(6), seed, r.nextDouble() * 0.95);
    }

    @Test
    void theEngineAndTheReferenceAgreeOnEveryCycleOfManyRandomClusters() {
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        Scheduler fresh = new Scheduler(RULES, config);
        // As run has it, for every other cluster: one rules session and working copy kept from cycle to cycle (and
        // from cluster to cluster: a new node list starts the copy afresh, the session takes the new facts).
        Scheduler kept = fresh.keepingSession().keepingWorkingCopy();
        ReferenceScheduler reference = new ReferenceScheduler(config);
        List<String> failures = new ArrayList<>();
        int cycles = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Scheduler engine = seed % 2 == 0 ? kept : fresh;
            ClusterWorld world = new ClusterWorld(ClusterGenerator.generate(spec(seed)));
            for (int cycle = 1; cycle <= CYCLES; cycle++) {
                ClusterSnapshot snap = world.snapshot();
                CycleResult e = engine.schedule(snap, cycle);
                CycleResult ref = reference.schedule(snap, cycle);
                cycles++;
                List<String> diffs = DecisionDiff.compare(snap, e, ref);
                if (!diffs.isEmpty()) {
                    failures.add("seed " + seed + " " + spec(seed) + " cycle " + cycle + ":\n    " + String.join("\n    ", diffs));
                    break;
                }
                if (!world.apply(e)) break;
            }
        }
        kept.dropSession();
        System.out.println("differential: " + SEEDS + " clusters, " + cycles + " cycles compared, "
                + failures.size() + " disagreements");
        assertTrue(failures.isEmpty(), failures.size() + " of " + SEEDS + " clusters disagree:\n"
                + String.join("\n", failures.subList(0, Math.min(10, failures.size()))));
    }

    /**
     * Fleets large enough that the eviction budgets bind (100 a cycle, 20 a victim queue), with 2% churn between
     * cycles: the engine's remembered victim searches and budget shortcuts must still decide as the reference, which
     * remembers nothing and searches every time. The test also checks that budgets did bind, so it keeps covering them.
     */
    @Test
    void theyAgreeOnFleetsWhereTheEvictionBudgetsBind() {
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        // As run has it: the rules session and the working copy kept across cycles, through the churn.
        Scheduler engine = new Scheduler(RULES, config).keepingSession().keepingWorkingCopy();
        ReferenceScheduler reference = new ReferenceScheduler(config);
        List<String> failures = new ArrayList<>();
        int budgetBound = 0;
        for (long seed = 1; seed <= 8; seed++) {
            Random r = new Random(seed);
            ClusterGenerator generator = ClusterGenerator.create(
                    SynthSpec.fleet(100 + r.nextInt(200), 1_000 + r.nextInt(2_000), 3 + r.nextInt(10), seed));
            ClusterWorld world = new ClusterWorld(generator.manifests());
            for (int cycle = 1; cycle <= 4; cycle++) {
                ClusterSnapshot snap = world.snapshot();
                CycleResult e = engine.schedule(snap, cycle);
                List<String> diffs = DecisionDiff.compare(snap, e, reference.schedule(snap, cycle));
                if (!diffs.isEmpty()) {
                    failures.add("fleet seed " + seed + " cycle " + cycle + ":\n    " + String.join("\n    ", diffs));
                    break;
                }
                if (budgetBinds(e)) budgetBound++;
                world.apply(e);
                world.churn(0.02, new Random(seed * 31 + cycle), generator);
            }
        }
        engine.dropSession();
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(budgetBound > 0, "no cycle reached an eviction budget: the test no longer covers them");
    }

    /** The cycle spent the cluster-wide budget, or a job waited for a budget (its status says so). */
    private static boolean budgetBinds(CycleResult r) {
        return r.evictions().size() >= 100
                || r.podGroups().stream().anyMatch(g -> g.reason() != null && g.reason().contains("eviction budget"));
    }
}
