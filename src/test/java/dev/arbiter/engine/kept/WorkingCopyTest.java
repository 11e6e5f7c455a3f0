package dev.arbiter.engine.kept;

import dev.arbiter.engine.cycle.KeptSessionTest;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.engine.cycle.SmallClusters;
import dev.arbiter.engine.rules.SessionHook;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import org.junit.jupiter.api.Test;

/**
 * The differential test of the working copy kept across cycles ({@link WorkingCopy}): over generated clusters and
 * random sequences of changes — cycles executed (pods bound, evicted, recreated at the end of the list; PodGroups
 * changing phase), jobs finishing and arriving, nominations carried over, pods turning terminating, finishing or
 * passing to another scheduler, PodGroups vanishing under their pods and coming back, nodes cordoned and uncordoned,
 * a pod moved within the list or updated in place, PriorityClasses revalued, a snapshot given twice, only new pending
 * work arriving, input no real cluster gives (a pod listed twice) — a scheduler keeping its working copy, with or
 * without a kept rules session, decides exactly what a fresh index decides on the same snapshot: the same bindings,
 * evictions, statuses and nominations, also where it passes over jobs it parked ({@link CycleWork#staysParked}).
 */
class WorkingCopyTest {
    private static final SchedulerConfig CONFIG = SchedulerConfig.simulatorDefault();

    private static final int TRIES = 50;

    @Property(tries = TRIES, seed = "20261202", shrinking = ShrinkingMode.OFF)
    void aKeptWorkingCopyDecidesAsAFreshIndexAfterAnySequenceOfChanges(@ForAll(supplier = SmallClusters.class) SynthSpec spec) {
        TRIED.incrementAndGet();
        World w = World.of(spec);
        Scheduler fresh = new Scheduler(Shipped.RULES, CONFIG);
        Scheduler copying = fresh.keepingWorkingCopy();
        Scheduler keeping = fresh.withoutTrace().keepingSession().keepingWorkingCopy();
        try {
            ClusterSnapshot snap = w.first();
            for (int cycle = 1; cycle <= 14; cycle++) {
                String at = spec + ", cycle " + cycle + " after " + w.edits().log;
                CycleResult expected = fresh.schedule(snap, cycle);
                KeptSessionTest.assertSameDecisions(expected, copying.schedule(snap, cycle), at);
                KeptSessionTest.assertSameDecisions(expected, keeping.schedule(snap, cycle), at + " (kept session too)");
                PARKED_PASSES.addAndGet(copying.parkedPasses() + keeping.parkedPasses());
                snap = w.after(snap, expected);
            }
        } finally {
            copying.dropSession();
            keeping.dropSession();
        }
    }

    /**
     * How many sequences the property above tried, and how many times their kept schedulers passed over a parked job:
     * when it ran in full, parking must have been put to the test.
     */
    private static final java.util.concurrent.atomic.AtomicInteger TRIED = new java.util.concurrent.atomic.AtomicInteger();
    private static final java.util.concurrent.atomic.AtomicInteger PARKED_PASSES = new java.util.concurrent.atomic.AtomicInteger();

    @net.jqwik.api.lifecycle.AfterContainer
    static void parkedJobsWerePassedOver() {
        if (TRIED.get() < TRIES) return; // (another property of the class run alone, or a single try)
        assertTrue(PARKED_PASSES.get() > 0, "no sequence of changes left a parked job to pass over");
    }

    @Test
    void anUnchangedPodOfAnUnchangedJobKeepsItsTaskAndAChangedOneGetsANewOne() {
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(8, 80, 2, 11, 0.5));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        WorkingCopy copy = new WorkingCopy(CONFIG.schedulerNames(), Shipped.RULES.settings().shares().ignoredResources());
        ClusterSnapshot start = world.snapshot();
        WorkingCluster first = copy.next(start);
        Map<String, Task> before = new java.util.HashMap<>();
        for (Task t : first.tasks) before.put(t.id(), t);
        world.apply(new Scheduler(Shipped.RULES, CONFIG).schedule(start, 1));
        ClusterSnapshot next = world.snapshot();
        WorkingCluster second = copy.next(next);
        // The PodGroups the cycle left as they were: the same object in both snapshots.
        Set<PodGroupSpec> unchangedGroups = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        unchangedGroups.addAll(start.podGroups());
        Set<PodGroupSpec> nextGroups = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        nextGroups.addAll(next.podGroups());
        unchangedGroups.retainAll(nextGroups);
        int kept = 0, made = 0;
        for (Task t : second.tasks) {
            Task old = before.get(t.id());
            boolean sameGroup = t.job.implicit || next.podGroups().stream()
                    .anyMatch(g -> g.key().equals(t.job.id) && unchangedGroups.contains(g));
            if (old != null && old.pod == t.pod && sameGroup) {
                assertSame(old, t, t.id());
                kept++;
            } else {
                if (old != null) assertNotSame(old, t, t.id());
                made++;
            }
        }
        assertTrue(kept > 0 && made > 0, kept + " kept, " + made + " made again");
        assertEquals(WorkingCluster.index(next, CONFIG.schedulerNames(), Shipped.RULES.settings().shares().ignoredResources())
                .tasks.size(), second.tasks.size());
    }

    /**
     * A kept job keeps its tasks' order only while their priorities stand: when a PriorityClass's value changes, the
     * kept tasks take the new value, and the job's pending tasks are sorted again.
     */
    @Test
    void aChangedPriorityClassReordersTheTasksOfAKeptJob() {
        ClusterSnapshot base = dev.arbiter.scenario.ClusterBuilder.cluster().nodes(1, "nvidia.com/gpu", 8)
                .priorityClass("a", 10).priorityClass("b", 20)
                .job("ns/mixed").priorityClass("a").minMember(1).pods(2, "nvidia.com/gpu", 8).phase("Inqueue").end()
                .snapshot();
        List<PodSpec> pods = new ArrayList<>();
        for (PodSpec p : base.pods()) {
            pods.add(!p.name().equals("mixed-1") ? p : new PodSpec(p.namespace(), p.name(), p.schedulerName(), p.nodeName(),
                    p.phase(), "b", p.priority(), p.preemptionPolicy(), p.requests(), p.nodeSelector(), p.tolerations(),
                    p.labels(), p.annotations(), p.arrivalCycle(), p.creationOrder(), p.terminating(), p.startedAt(),
                    p.placement()));
        }
        ClusterSnapshot first = new ClusterSnapshot(base.nodes(), pods, base.podGroups(), base.queues(),
                base.priorityClasses(), base.now(), base.nominations(), base.namespaceLabels(), base.hyperNodes());
        List<dev.arbiter.model.PriorityClassSpec> raised = new ArrayList<>();
        for (dev.arbiter.model.PriorityClassSpec c : first.priorityClasses()) {
            raised.add(c.name().equals("a") ? new dev.arbiter.model.PriorityClassSpec("a", 30, false, c.preemptionPolicy()) : c);
        }
        ClusterSnapshot second = new ClusterSnapshot(first.nodes(), first.pods(), first.podGroups(), first.queues(), raised,
                first.now(), first.nominations(), first.namespaceLabels(), first.hyperNodes());
        Scheduler fresh = new Scheduler(Shipped.RULES, CONFIG);
        Scheduler copying = fresh.keepingWorkingCopy();
        try {
            assertEquals(Set.of("ns/mixed-1"), Shipped.bound(copying.schedule(first, 1)), "class b (20) goes before a (10)");
            CycleResult expected = fresh.schedule(second, 2);
            assertEquals(Set.of("ns/mixed-0"), Shipped.bound(expected), "raised to 30, class a goes first");
            KeptSessionTest.assertSameDecisions(expected, copying.schedule(second, 2), "after class a was raised");
        } finally {
            copying.dropSession();
        }
    }

    /** Room held for a nominated task last cycle is not held in the next, when the snapshot no longer nominates it. */
    @Test
    void aNominationOfTheLastCycleIsForgottenWithIt() {
        ClusterSnapshot base = dev.arbiter.scenario.ClusterBuilder.cluster().nodes(1, "nvidia.com/gpu", 8)
                .job("ns/j").pods(1, "nvidia.com/gpu", 4).phase("Inqueue").end().snapshot();
        ClusterSnapshot nominated = new ClusterSnapshot(base.nodes(), base.pods(), base.podGroups(), base.queues(),
                base.priorityClasses(), base.now(), Map.of("ns/j-0", "node-1"), base.namespaceLabels(), base.hyperNodes());
        WorkingCopy copy = new WorkingCopy(CONFIG.schedulerNames(), Shipped.RULES.settings().shares().ignoredResources());
        Task held = copy.next(nominated).tasks.get(0);
        assertTrue(held.holding, "the nominated node holds the task's request");
        Task next = copy.next(base).tasks.get(0);
        assertSame(held, next, "the task is kept");
        assertFalse(next.holding, "nothing is held for it any more");
        assertEquals(null, next.nominated);
    }

    /**
     * What the copy counts as pods come and go agrees with its tasks after every change: the tasks made this cycle,
     * the priority class names in use, and the running tasks by key (when the copy has them all).
     */
    @Property(tries = 25, seed = "20261203", shrinking = ShrinkingMode.OFF)
    void whatTheCopyCountsAgreesWithItsTasks(@ForAll(supplier = SmallClusters.class) SynthSpec spec) {
        World w = World.of(spec);
        Scheduler fresh = new Scheduler(Shipped.RULES, CONFIG);
        WorkingCopy copy = new WorkingCopy(CONFIG.schedulerNames(), Shipped.RULES.settings().shares().ignoredResources());
        Set<Task> before = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        ClusterSnapshot snap = w.first();
        int checked = 0;
        for (int cycle = 1; cycle <= 12; cycle++) {
            String at = "cycle " + cycle + " after " + w.edits().log;
            WorkingCluster s = copy.next(snap);
            if (s.newTasks != null) {
                checked++;
                Set<Task> now = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
                now.addAll(s.tasks);
                Set<Task> made = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
                made.addAll(s.newTasks);
                for (Task t : s.tasks) assertEquals(!before.contains(t), made.contains(t), at + ": made this cycle, " + t);
                assertTrue(now.containsAll(made), at + ": every task made is one of the cycle's");
                Set<String> names = new HashSet<>();
                for (Task t : s.tasks) names.add(t.priorityClassName);
                assertEquals(names, new HashSet<>(s.taskClassNames), at + ": class names");
                Set<String> looked = new HashSet<>(names);
                for (Job j : s.jobs.values()) looked.add(j.priorityClassName);
                Set<String> counted = new HashSet<>(s.jobClassNames);
                counted.addAll(s.taskClassNames);
                assertEquals(looked, counted, at + ": the class names of jobs and tasks");
                if (s.runningById != null) {
                    int running = 0;
                    for (Task t : s.tasks) {
                        if (!t.running()) continue;
                        running++;
                        assertSame(t, s.runningById.get(t.id()), at + ": running by key");
                    }
                    assertEquals(running, s.runningById.size(), at + ": running tasks");
                }
            }
            before = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            before.addAll(s.newTasks == null ? List.of() : s.tasks);
            snap = w.after(snap, fresh.schedule(snap, cycle));
        }
        if (spec.pendingPods() > 0) assertTrue(checked > 0, "some cycles were kept");
    }

    /**
     * A property's world: the generated cluster living as a live one would (nominations carried over; evicted pods
     * recreated, one time in two), and the edits laid over it, all seeded by the spec's seed.
     */
    private record World(ClusterGenerator generator, ClusterWorld world, Edits edits) {
        static World of(SynthSpec spec) {
            ClusterGenerator generator = ClusterGenerator.create(spec);
            Random rnd = new Random(spec.seed());
            ClusterWorld world = new ClusterWorld(generator.manifests()).withNominations();
            if (rnd.nextBoolean()) world.recreatingEvicted();
            return new World(generator, world, new Edits(rnd));
        }

        ClusterSnapshot first() {
            return edits.applyTo(world.snapshot());
        }

        /** See {@link Edits#after}. */
        ClusterSnapshot after(ClusterSnapshot snap, CycleResult r) {
            return edits.after(snap, r, world, generator);
        }
    }

    /**
     * The result with each pod bound and evicted once. A pod listed twice (an edit below; input no real cluster gives:
     * informers and the manifest loader have each object once) is two tasks to a fresh index, which may bind or evict
     * both; the world takes the first.
     */
    private static CycleResult onceEach(CycleResult r) {
        Set<String> bound = new HashSet<>(), evicted = new HashSet<>();
        List<dev.arbiter.decision.Binding> bindings = new ArrayList<>();
        for (dev.arbiter.decision.Binding b : r.bindings()) if (bound.add(b.pod())) bindings.add(b);
        List<dev.arbiter.decision.Eviction> evictions = new ArrayList<>();
        for (dev.arbiter.decision.Eviction e : r.evictions()) if (evicted.add(e.pod())) evictions.add(e);
        if (bindings.size() == r.bindings().size() && evictions.size() == r.evictions().size()) return r;
        return new CycleResult(r.cycle(), r.rulesGeneration(), bindings, evictions, r.podGroups(), r.queues(),
                r.phaseMillis(), r.rulesFired(), r.nominations(), r.wakeAt());
    }

    /**
     * A pod listed twice is input no real cluster gives: the copy indexes it afresh and keeps nothing of it, also when
     * it holds nothing yet (found with seed 777001: a copy that kept such a walk held a task whose entry it had lost,
     * and when the task's PodGroup changed later, the task stayed with the old job).
     */
    @Test
    void aPodListedTwiceIsIndexedAfreshAndNothingOfItIsKept() {
        ClusterSnapshot start = new ClusterWorld(ClusterGenerator.create(SynthSpec.small(4, 30, 2, 5, 0.5)).manifests())
                .snapshot();
        List<PodSpec> pods = new ArrayList<>(start.pods());
        pods.add(pods.get(0));
        ClusterSnapshot twice = new ClusterSnapshot(start.nodes(), pods, start.podGroups(), start.queues(),
                start.priorityClasses(), start.now(), start.nominations(), start.namespaceLabels(), start.hyperNodes());
        Set<String> names = CONFIG.schedulerNames();
        Set<String> ignored = Shipped.RULES.settings().shares().ignoredResources();
        for (boolean holding : new boolean[] {false, true}) {
            WorkingCopy copy = new WorkingCopy(names, ignored);
            if (holding) copy.next(start);
            assertEquals(holding, copy.holdsState());
            copy.next(twice);
            assertFalse(copy.holdsState(), "nothing of a snapshot with a pod listed twice is kept (holding " + holding + ")");
        }
    }

    @Test
    void aFailedCycleDropsTheCopyAndTheNextStartsAfresh() {
        ClusterGenerator generator = ClusterGenerator.create(SynthSpec.small(6, 60, 2, 4, 0.4));
        ClusterWorld world = new ClusterWorld(generator.manifests());
        Scheduler fresh = new Scheduler(Shipped.RULES, CONFIG);
        // A cycle that fails after its working copy was brought up to date: the policy phase throws.
        java.util.concurrent.atomic.AtomicBoolean fail = new java.util.concurrent.atomic.AtomicBoolean();
        Scheduler copying = fresh.withHook(new SessionHook() {
            @Override
            public void fired(org.kie.api.runtime.KieSession session, String group) {
                if (fail.get() && group.equals("policy")) throw new IllegalStateException("the policy phase fails");
            }
        }).keepingWorkingCopy();
        assertTrue(copying.keepsWorkingCopy());
        ClusterSnapshot snap = world.snapshot();
        copying.schedule(snap, 1);
        assertTrue(copying.holdsWorkingCopy(), "a cycle leaves its copy kept");
        fail.set(true);
        assertThrows(IllegalStateException.class, () -> copying.schedule(snap, 2));
        assertFalse(copying.holdsWorkingCopy(), "the failed cycle dropped its half-used copy");
        fail.set(false);
        KeptSessionTest.assertSameDecisions(fresh.schedule(snap, 3), copying.schedule(snap, 3), "after the failed cycle");
        assertTrue(copying.holdsWorkingCopy(), "the next cycle keeps a new copy");
        assertThrows(NullPointerException.class, () -> copying.schedule(null, 4));
        assertFalse(copying.holdsWorkingCopy(), "a null snapshot fails the cycle, and drops the copy");
        KeptSessionTest.assertSameDecisions(fresh.schedule(snap, 5), copying.schedule(snap, 5), "after a null snapshot");
    }

    /**
     * Changes the world does not make, laid over each of its snapshots: each object it changes stays the same object
     * from cycle to cycle while unchanged (as an informer cache hands them out).
     */
    private static final class Edits {
        private final Random rnd;
        final List<String> log = new ArrayList<>();
        private final Set<String> terminating = new HashSet<>();
        private final Set<String> finished = new HashSet<>();
        private final Set<String> foreign = new HashSet<>();
        /** Pods given as a new, equal object in their place (an informer's update that changed nothing we read). */
        private final Set<String> updated = new HashSet<>();
        private final Set<String> hiddenGroups = new HashSet<>();
        private final Set<String> cordoned = new HashSet<>();
        /** PriorityClasses whose value is raised, by how much (kept tasks must take their class's new value). */
        private final Map<String, Integer> raised = new java.util.HashMap<>();
        private String movedToEnd;
        private String listedTwice;
        private final Map<Object, Object> made = new IdentityHashMap<>();

        Edits(Random rnd) {
            this.rnd = rnd;
        }

        /**
         * The snapshot after a cycle that decided {@code r} on {@code snap}: one time in eight the same one again,
         * else the world with {@code r} executed and one more change made.
         */
        ClusterSnapshot after(ClusterSnapshot snap, CycleResult r, ClusterWorld world, ClusterGenerator generator) {
            if (rnd.nextInt(8) == 0) {
                log.add("the same snapshot again");
                return snap;
            }
            world.apply(onceEach(r));
            next(world, generator);
            return applyTo(world.snapshot());
        }

        void next(ClusterWorld world, ClusterGenerator generator) {
            ClusterSnapshot s = world.snapshot();
            movedToEnd = null;
            listedTwice = null;
            switch (rnd.nextInt(14)) {
                case 0 -> log.add("nothing");
                case 1 -> log.add("arrivals " + world.arrive(1 + rnd.nextInt(8), generator));
                case 2, 3 -> log.add("churn " + world.churn(new double[] {0.02, 0.1, 0.3}[rnd.nextInt(3)], rnd, generator));
                case 4 -> pick(s.pods(), p -> p.isBound(), terminating, "terminating");
                case 5 -> pick(s.pods(), p -> true, finished, "succeeded");
                case 6 -> pick(s.pods(), p -> true, foreign, "another scheduler's");
                case 7 -> toggle(s.podGroups().stream().map(PodGroupSpec::key).toList(), hiddenGroups, "PodGroup hidden");
                case 8 -> toggle(s.nodes().stream().map(NodeSpec::name).toList(), cordoned, "node cordoned");
                case 9 -> {
                    if (!s.pods().isEmpty()) movedToEnd = s.pods().get(rnd.nextInt(s.pods().size())).key();
                    log.add("moved " + movedToEnd);
                }
                case 10 -> {
                    if (!s.pods().isEmpty() && rnd.nextInt(3) == 0) listedTwice = s.pods().get(rnd.nextInt(s.pods().size())).key();
                    log.add("listed twice " + listedTwice);
                }
                case 11 -> {
                    if (s.priorityClasses().isEmpty()) break;
                    String name = s.priorityClasses().get(rnd.nextInt(s.priorityClasses().size())).name();
                    int by = new int[] {-2_000_000, 1, 5_000_000}[rnd.nextInt(3)];
                    raised.merge(name, by, Integer::sum);
                    log.add("priority class " + name + " raised by " + by);
                }
                case 12 -> pick(s.pods(), p -> true, updated, "updated in place");
                default -> {
                    raised.clear();
                    updated.clear();
                    terminating.clear();
                    finished.clear();
                    foreign.clear();
                    hiddenGroups.clear();
                    cordoned.clear();
                    log.add("edits undone");
                }
            }
        }

        private void pick(List<PodSpec> pods, java.util.function.Predicate<PodSpec> which, Set<String> into, String what) {
            List<PodSpec> candidates = pods.stream().filter(which).toList();
            if (candidates.isEmpty()) return;
            String key = candidates.get(rnd.nextInt(candidates.size())).key();
            into.add(key);
            log.add(what + " " + key);
        }

        private void toggle(List<String> keys, Set<String> set, String what) {
            if (keys.isEmpty()) return;
            String key = keys.get(rnd.nextInt(keys.size()));
            if (!set.remove(key)) set.add(key);
            log.add(what + " " + key + " " + set.contains(key));
        }

        ClusterSnapshot applyTo(ClusterSnapshot s) {
            List<NodeSpec> nodes = s.nodes();
            if (!cordoned.isEmpty()) {
                nodes = new ArrayList<>();
                for (NodeSpec n : s.nodes()) nodes.add(cordoned.contains(n.name()) ? edited(n, () -> new NodeSpec(n.name(),
                        n.labels(), n.taints(), true, n.allocatable(), n.arrivalCycle())) : n);
            }
            List<PodGroupSpec> groups = new ArrayList<>();
            for (PodGroupSpec g : s.podGroups()) if (!hiddenGroups.contains(g.key())) groups.add(g);
            List<PodSpec> pods = new ArrayList<>();
            PodSpec moved = null;
            for (PodSpec p : s.pods()) {
                PodSpec q = p;
                if (terminating.contains(p.key()) && p.isBound()) q = edited(q, q::withTerminating);
                if (finished.contains(p.key())) {
                    PodSpec from = q;
                    q = edited(from, () -> from.withNode(from.nodeName(), "Succeeded"));
                }
                if (updated.contains(p.key())) {
                    PodSpec from = q;
                    q = edited(from, () -> new PodSpec(from.namespace(), from.name(), from.schedulerName(), from.nodeName(),
                            from.phase(), from.priorityClassName(), from.priority(), from.preemptionPolicy(), from.requests(),
                            from.nodeSelector(), from.tolerations(), from.labels(), from.annotations(), from.arrivalCycle(),
                            from.creationOrder(), from.terminating(), from.startedAt(), from.placement()));
                }
                if (foreign.contains(p.key())) {
                    PodSpec from = q;
                    q = edited(from, () -> new PodSpec(from.namespace(), from.name(), "default-scheduler", from.nodeName(),
                            from.phase(), from.priorityClassName(), from.priority(), from.preemptionPolicy(), from.requests(),
                            from.nodeSelector(), from.tolerations(), from.labels(), from.annotations(), from.arrivalCycle(),
                            from.creationOrder(), from.terminating(), from.startedAt(), from.placement()));
                }
                if (p.key().equals(movedToEnd)) {
                    moved = q;
                    continue;
                }
                pods.add(q);
                if (p.key().equals(listedTwice)) pods.add(q);
            }
            if (moved != null) pods.add(moved);
            List<dev.arbiter.model.PriorityClassSpec> classes = s.priorityClasses();
            if (!raised.isEmpty()) {
                classes = new ArrayList<>();
                for (dev.arbiter.model.PriorityClassSpec c : s.priorityClasses()) {
                    Integer by = raised.get(c.name());
                    classes.add(by == null ? c : new dev.arbiter.model.PriorityClassSpec(c.name(), c.value() + by,
                            c.globalDefault(), c.preemptionPolicy()));
                }
            }
            return new ClusterSnapshot(nodes, pods, groups, s.queues(), classes, s.now(), s.nominations(),
                    s.namespaceLabels(), s.hyperNodes());
        }

        @SuppressWarnings("unchecked")
        private <T> T edited(T original, java.util.function.Supplier<T> edit) {
            return (T) made.computeIfAbsent(original, k -> edit.get());
        }
    }
}
