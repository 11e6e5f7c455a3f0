package dev.arbiter.engine.cycle;

import dev.arbiter.engine.kept.WorkingCopy;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.rules.PolicyEvaluation;
import dev.arbiter.engine.rules.PolicyException;
import dev.arbiter.engine.rules.PolicyKinds;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RuleTrace;
import dev.arbiter.engine.rules.RulesSession;
import dev.arbiter.engine.rules.SessionHook;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The differential test of the kept rules session: over generated clusters and random sequences of changes (cycles
 * executed, jobs finishing and arriving, queues reweighted, closed, reopened and capped, priority classes revalued,
 * added and removed, the clock moving on), a session kept across the cycles decides exactly what a fresh session
 * decides on the same snapshot — the same policy facts, and the same bindings, evictions, statuses and nominations.
 */
public class KeptSessionTest {
    private static final SchedulerConfig CONFIG = SchedulerConfig.simulatorDefault();

    @TempDir
    Path dir;

    @Property(tries = 60, seed = "20261201", shrinking = ShrinkingMode.OFF)
    void aKeptSessionDecidesAsAFreshOneAfterAnySequenceOfChanges(@ForAll(supplier = SmallClusters.class) SynthSpec spec) {
        long seed = spec.seed();
        ClusterGenerator generator = ClusterGenerator.create(spec);
        ClusterWorld world = new ClusterWorld(generator.manifests()).withNominations();
        Changes changes = new Changes(new Random(seed), world.snapshot());
        Scheduler fresh = new Scheduler(Shipped.RULES, CONFIG);
        Scheduler kept = fresh.keepingSession();
        // A second kept session, fed by a kept working copy: it takes the jobs and tasks that changed, not all.
        WorkingCopy copy = new WorkingCopy(CONFIG.schedulerNames(), Shipped.RULES.settings().shares().ignoredResources());
        try (RulesSession session = RulesSession.kept(Shipped.RULES); RulesSession copied = RulesSession.kept(Shipped.RULES)) {
            for (int cycle = 1; cycle <= 12; cycle++) {
                ClusterSnapshot snap = changes.applyTo(world.snapshot());
                String at = spec + ", cycle " + cycle + " after " + changes.log;
                assertSamePolicy(snap, session, at);
                assertSamePolicy(snap, copied, copy.next(snap), at + " (from a kept working copy)");
                CycleResult expected = fresh.schedule(snap, cycle);
                CycleResult actual = kept.schedule(snap, cycle);
                assertSameDecisions(expected, actual, at);
                world.apply(expected);
                changes.next(world, generator);
            }
            assertNull(session.violation(), "the shipped rules keep to the one-way contract");
        } finally {
            kept.dropSession();
        }
    }

    @Test
    void theSeedAndTheExampleWorkloadsAreDecidedAlikeByAKeptSession() {
        for (List<Path> example : List.of(List.of(Path.of("deploy/examples/seed")), List.of(Path.of("deploy/examples/workloads")))) {
            dev.arbiter.model.Manifests m = dev.arbiter.manifest.ManifestLoader.load(example);
            for (RuleBook rules : List.of(Shipped.RULES, RuleBook.load(Path.of("deploy/policies/capacity")))) {
                dev.arbiter.sim.SimulationResult expected = new dev.arbiter.sim.Simulator(new Scheduler(rules, CONFIG)).run(m, 100);
                Scheduler kept = new Scheduler(rules, CONFIG).keepingSession();
                dev.arbiter.sim.SimulationResult actual = new dev.arbiter.sim.Simulator(kept).run(m, 100);
                kept.dropSession();
                assertTrue(expected.cycles().size() > 1, example.toString());
                assertNull(dev.arbiter.sim.KeptSessionCheck.firstDifference(expected, actual), example + " under " + rules.folder());
            }
        }
    }

    @Test
    void theClockMovingOnUpdatesOneFactNotEveryRunningTask() {
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(10, 120, 3, 5, 0.7));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        world.apply(new Scheduler(Shipped.RULES, CONFIG).schedule(world.snapshot(), 1));
        ClusterSnapshot before = world.snapshot();
        Set<String> ignored = Shipped.RULES.settings().shares().ignoredResources();
        try (RulesSession session = RulesSession.kept(Shipped.RULES)) {
            WorkingCluster first = WorkingCluster.index(before, CONFIG.schedulerNames(), ignored);
            PolicyEvaluation.run(session, first, before.priorityClasses(), new HashMap<>(), new RuleTrace(), SessionHook.NONE);
            long running = first.tasks.stream().filter(Task::running).count();
            assertTrue(running > 10, "the test needs running tasks, has " + running);
            ClusterSnapshot later = new ClusterSnapshot(before.nodes(), before.pods(), before.podGroups(), before.queues(),
                    before.priorityClasses(), before.now() + 30, before.nominations(), before.namespaceLabels());
            PolicyEvaluation.run(session, WorkingCluster.index(later, CONFIG.schedulerNames(), ignored), later.priorityClasses(),
                    new HashMap<>(), new RuleTrace(), SessionHook.NONE);
            assertEquals(0, session.updatedThisCycle(dev.arbiter.facts.TaskFact.class), "running tasks updated");
            assertEquals(1, session.updatedThisCycle(dev.arbiter.facts.Clock.class), "the clock");
        }
    }

    @Test
    void theShippedRulesAndTheShippedPackMayBeKept() {
        assertNull(RulesSession.firstPhasesReadOnlyTheirFacts(Shipped.RULES));
        assertTrue(RulesSession.keepable(Shipped.RULES));
        assertTrue(RulesSession.keepable(RuleBook.load(Path.of("deploy/policies/capacity"))));
    }

    @Test
    void aFairShareRuleThatReadsAPolicyFactIsNeverKept() throws IOException {
        Path rules = copyOfShipped();
        Files.writeString(rules.resolve("extra.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.AdmissionBudget;
                import dev.arbiter.facts.QueueFact;
                import dev.arbiter.facts.ShareTerms;
                rule "extra: a queue with a budget shares by weight one"
                ruleflow-group "fair-share"
                when
                    $q : QueueFact( )
                    AdmissionBudget( queue == $q.name )
                then
                    insertLogical( new ShareTerms( $q.getName(), 1, $q.getCapability(), $q.getGuarantee(), drools.getRule().getName() ) );
                end
                """);
        RuleBook book = RuleBook.load(rules);
        assertEquals("rule \"extra: a queue with a budget shares by weight one\" in phase fair-share reads AdmissionBudget",
                RulesSession.firstPhasesReadOnlyTheirFacts(book));
        assertFalse(RulesSession.keepable(book));
    }

    @Test
    void aRuleThatInsertsWithoutInsertLogicalEndsTheKeptSessionAndTheDecisionsStayRight() throws IOException {
        Path rules = copyOfShipped();
        Files.writeString(rules.resolve("victims.drl"), Files.readString(rules.resolve("victims.drl"))
                .replace("insertLogical( new Protected", "insert( new Protected"));
        RuleBook book = RuleBook.load(rules);
        try (RulesSession session = RulesSession.kept(book)) {
            SynthSpec spec = SynthSpec.small(8, 60, 2, 11, 0.7);
            WorkingCluster state = WorkingCluster.index(new ClusterWorld(ClusterGenerator.generate(spec)).snapshot(),
                    CONFIG.schedulerNames(), book.settings().shares().ignoredResources());
            PolicyEvaluation.run(session, state, List.of(), new HashMap<>(), new RuleTrace(), SessionHook.NONE);
            assertTrue(session.violation() != null && session.violation().startsWith(
                    "rule \"victims: a pod marked volcano.sh/preemptable false is never evicted\" inserts Protected without insertLogical"),
                    String.valueOf(session.violation()));
            assertFalse(session.stillKeepable());
        }
        // The scheduler drops such a session after each cycle, so its decisions still equal a fresh session's.
        for (long seed = 1; seed <= 3; seed++) {
            ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(10, 80, 3, seed, 0.6));
            ClusterWorld world = new ClusterWorld(generator.manifests());
            Scheduler fresh = new Scheduler(book, CONFIG);
            Scheduler kept = fresh.keepingSession();
            Random rnd = new Random(seed);
            for (int cycle = 1; cycle <= 6; cycle++) {
                ClusterSnapshot snap = world.snapshot();
                CycleResult expected = fresh.schedule(snap, cycle);
                assertSameDecisions(expected, kept.schedule(snap, cycle), "seed " + seed + " cycle " + cycle);
                world.apply(expected);
                world.churn(0.2, rnd, generator);
            }
        }
    }

    @Test
    void aFailedCycleStartsAFreshSession() throws IOException {
        Path rules = copyOfShipped();
        // Throws only while some queue holds a job with more than 3 pending tasks: the failure depends on the facts.
        Files.writeString(rules.resolve("fails.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.JobFact;
                import dev.arbiter.facts.NoPreemption;
                rule "fails: a big pending job divides by zero"
                ruleflow-group "policy"
                when
                    $j : JobFact( pendingTasks > 3, queue == "boom" )
                then
                    insertLogical( new NoPreemption( $j.getId(), "x" + (1 / 0), drools.getRule().getName() ) );
                end
                """);
        RuleBook book = RuleBook.load(rules);
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(10, 80, 3, 5, 0.5));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        Scheduler fresh = new Scheduler(book, CONFIG);
        Scheduler kept = fresh.keepingSession();
        ClusterSnapshot first = world.snapshot();
        CycleResult expected = fresh.schedule(first, 1);
        assertSameDecisions(expected, kept.schedule(first, 1), "cycle 1");
        world.apply(expected);
        // A queue named boom appears with a big job: the cycle fails in both; the next (boom gone) agrees again.
        ClusterSnapshot bad = withBoomQueue(world.snapshot());
        assertThrows(PolicyException.class, () -> fresh.schedule(bad, 2));
        assertThrows(PolicyException.class, () -> kept.schedule(bad, 2));
        ClusterSnapshot after = world.snapshot();
        assertSameDecisions(fresh.schedule(after, 3), kept.schedule(after, 3), "cycle 3");
        kept.dropSession();
    }

    @Test
    void aReloadStartsAFreshSessionOnTheNewRules() throws IOException {
        Path rules = copyOfShipped();
        Scheduler kept = new Scheduler(RuleBook.load(rules), CONFIG).keepingSession();
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(10, 80, 3, 9, 0.5));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        world.apply(kept.schedule(world.snapshot(), 1));
        Files.writeString(rules.resolve("policy.yaml"), Files.readString(rules.resolve("policy.yaml"))
                .replace("mode: binpack", "mode: spread"));
        RuleBook reloaded = RuleBook.load(rules);
        Scheduler next = kept.withRules(reloaded);
        assertTrue(next.keepsSession());
        ClusterSnapshot snap = world.snapshot();
        assertSameDecisions(new Scheduler(reloaded, CONFIG).schedule(snap, 2), next.schedule(snap, 2), "after the reload");
        next.dropSession();
    }

    // ---- the random changes ------------------------------------------------------------------------------------

    /** Changes to the cluster beyond executing decisions: churn, queue edits, priority class edits. */
    private static final class Changes {
        private final Random rnd;
        private final List<QueueSpec> queues;
        private final List<PriorityClassSpec> classes;
        final List<String> log = new ArrayList<>();

        Changes(Random rnd, ClusterSnapshot start) {
            this.rnd = rnd;
            this.queues = new ArrayList<>(start.queues());
            this.classes = new ArrayList<>(start.priorityClasses());
        }

        ClusterSnapshot applyTo(ClusterSnapshot s) {
            return new ClusterSnapshot(s.nodes(), s.pods(), s.podGroups(), List.copyOf(queues), List.copyOf(classes), s.now(),
                    s.nominations(), s.namespaceLabels());
        }

        void next(ClusterWorld world, ClusterGenerator generator) {
            int what = rnd.nextInt(10);
            switch (what) {
                case 0, 1, 2 -> log.add("nothing");
                case 3, 4 -> log.add("churn " + world.churn(new double[] {0.01, 0.1, 0.3}[rnd.nextInt(3)], rnd, generator));
                case 5 -> editQueue(q -> new QueueSpec(q.name(), 1 + rnd.nextInt(8), q.priority(), q.capability(), q.guarantee(),
                        q.reclaimable(), q.state(), q.parent(), q.arrivalCycle(), q.dequeueStrategy(), q.deserved()), "weight");
                case 6 -> editQueue(q -> new QueueSpec(q.name(), q.weight(), q.priority(), q.capability(), q.guarantee(),
                        q.reclaimable(), "Open".equals(q.state()) || q.state() == null ? "Closed" : "Open", q.parent(),
                        q.arrivalCycle(), q.dequeueStrategy(), q.deserved()), "state");
                case 7 -> editQueue(q -> new QueueSpec(q.name(), q.weight(), q.priority(), q.capability(), q.guarantee(),
                        !q.reclaimable(), q.state(), q.parent(), q.arrivalCycle(),
                        QueueSpec.FIFO.equals(q.dequeueStrategy()) ? QueueSpec.TRAVERSE : QueueSpec.FIFO, q.deserved()), "reclaimable");
                case 8 -> editClass();
                default -> {
                    world.churn(0.05, rnd, generator);
                    editClass();
                }
            }
        }

        private void editQueue(java.util.function.UnaryOperator<QueueSpec> edit, String what) {
            if (queues.isEmpty()) return;
            int i = rnd.nextInt(queues.size());
            queues.set(i, edit.apply(queues.get(i)));
            log.add(what + " of " + queues.get(i).name());
        }

        private void editClass() {
            int pick = rnd.nextInt(3);
            if (pick == 0 && !classes.isEmpty()) {
                int i = rnd.nextInt(classes.size());
                PriorityClassSpec c = classes.get(i);
                classes.set(i, new PriorityClassSpec(c.name(), c.value() + rnd.nextInt(2001) - 1000, c.globalDefault(), c.preemptionPolicy()));
                log.add("value of " + c.name());
            } else if (pick == 1 && !classes.isEmpty()) {
                log.add("removed class " + classes.remove(rnd.nextInt(classes.size())).name());
            } else {
                String name = "extra-" + rnd.nextInt(3);
                classes.removeIf(c -> c.name().equals(name));
                // Kubernetes admits one globalDefault class at most (with two, which one wins is not defined).
                boolean asDefault = rnd.nextInt(4) == 0 && classes.stream().noneMatch(PriorityClassSpec::globalDefault);
                classes.add(new PriorityClassSpec(name, rnd.nextInt(1000), asDefault, rnd.nextBoolean() ? "Never" : null));
                log.add("class " + name);
            }
        }
    }

    // ---- comparisons ---------------------------------------------------------------------------------------------

    /** The policy of a fresh session and of {@code kept}, on the same snapshot, kind by kind. */
    private static void assertSamePolicy(ClusterSnapshot snap, RulesSession kept, String at) {
        Set<String> ignored = Shipped.RULES.settings().shares().ignoredResources();
        assertSamePolicy(snap, kept, WorkingCluster.index(snap, CONFIG.schedulerNames(), ignored), at);
    }

    /** The policy of {@code kept} on {@code state} (a working copy of {@code snap}) is a fresh session's on a fresh index. */
    private static void assertSamePolicy(ClusterSnapshot snap, RulesSession kept, WorkingCluster state, String at) {
        Set<String> ignored = Shipped.RULES.settings().shares().ignoredResources();
        Policy expected = PolicyEvaluation.run(Shipped.RULES, WorkingCluster.index(snap, CONFIG.schedulerNames(), ignored),
                snap.priorityClasses(), new HashMap<>(), new RuleTrace(), SessionHook.NONE);
        Policy actual = PolicyEvaluation.run(kept, state, snap.priorityClasses(), new HashMap<>(), new RuleTrace(),
                SessionHook.NONE);
        for (PolicyKinds.Kind<?> kind : PolicyKinds.all()) {
            assertEquals(expected.all(kind.type()), actual.all(kind.type()), kind.type().getSimpleName() + " at " + at);
        }
        assertEquals(new HashSet<>(expected.conflicts), new HashSet<>(actual.conflicts), "conflicts at " + at);
    }

    public static void assertSameDecisions(CycleResult expected, CycleResult actual, String at) {
        assertEquals(expected.bindings(), actual.bindings(), "bindings at " + at);
        assertEquals(expected.evictions(), actual.evictions(), "evictions at " + at);
        assertEquals(expected.podGroups(), actual.podGroups(), "PodGroup statuses at " + at);
        assertEquals(expected.queues(), actual.queues(), "Queue statuses at " + at);
        assertEquals(expected.nominations(), actual.nominations(), "nominations at " + at);
        assertEquals(expected.wakeAt(), actual.wakeAt(), "wake-up at " + at);
        assertEquals(expected.rulesGeneration(), actual.rulesGeneration(), at);
    }

    private static ClusterSnapshot withBoomQueue(ClusterSnapshot s) {
        List<QueueSpec> queues = new ArrayList<>(s.queues());
        QueueSpec q = queues.get(0);
        queues.add(new QueueSpec("boom", 1, 0, q.capability(), q.guarantee(), true, q.state(), q.parent(), 0, q.dequeueStrategy(), null));
        List<dev.arbiter.model.PodGroupSpec> groups = new ArrayList<>(s.podGroups());
        List<dev.arbiter.model.PodSpec> pods = new ArrayList<>(s.pods());
        dev.arbiter.model.PodGroupSpec g = groups.stream().filter(x -> pods.stream().filter(p -> !p.isBound()
                && x.name().equals(p.groupName())).count() > 3).findFirst().orElseThrow();
        groups.set(groups.indexOf(g), new dev.arbiter.model.PodGroupSpec(g.namespace(), g.name(), "boom", g.minMember(),
                g.minTaskMember(), g.minResources(), g.priorityClassName(), g.phase(), g.arrivalCycle(), g.creationOrder()));
        return new ClusterSnapshot(s.nodes(), pods, groups, queues, s.priorityClasses(), s.now(), s.nominations(), s.namespaceLabels());
    }

    private Path copyOfShipped() throws IOException {
        Path rules = Files.createDirectories(dir.resolve("rules"));
        try (Stream<Path> files = Files.list(Path.of("rules"))) {
            for (Path f : files.toList()) Files.copy(f, rules.resolve(f.getFileName()));
        }
        return rules;
    }
}
