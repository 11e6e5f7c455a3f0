package dev.arbiter.forecast;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Runtimes;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs the cluster forward from an immutable snapshot with the real engine ({@link Simulator}) and gives each pending
 * job its estimated start: the time of the cycle that binds its gang.
 *
 * <p>The forward world: every object of the snapshot is there and nothing new arrives. A running pod ends at its start
 * plus its job's runtime estimate ({@link PolicySettings.Runtime#estimateSeconds}, the one place that decides it; a pod
 * bound but not started yet, without {@code status.startTime}, counts as starting at the snapshot's time); a pending
 * pod, once bound, runs its job's estimate. A running pod whose job has no estimate, or that has already run past its
 * estimate, has no known end: it runs on to the end of the forward run. Such a pod of another scheduler (a DaemonSet's,
 * the system's) is taken to be there for good rather than to end at an unknown time: no one waits on it. The snapshot's
 * nominations and queue usage carry into the first cycle, which happens at the snapshot's time.
 *
 * <p>The criterion for "none", exactly: a pending job that the forward run binds within the horizon gets that cycle's
 * time. One it does not bind gets none: {@link StartEstimate.None#WAITS_ON_UNKNOWN_END} when at the end of the run a pod
 * of this scheduler's without a known end is still running (it may start when that ends, and no one said when), naming that pod's job
 * (one of the job's own queue first, then the one with the most such pods, then by name); else {@link
 * StartEstimate.None#BEYOND_HORIZON} when the run stopped at the horizon (simulated seconds) or the cap on cycles; else
 * {@link StartEstimate.None#NEVER} (the run settled with nothing left to end). So a time is given only when the job
 * starts in a world where every job without an estimate is still running then: it assumes those run at least that long.
 * Never a made-up number: no job's end is ever guessed.
 */
public final class Forecaster {
    /**
     * How far to look: {@code horizonSeconds} of simulated time, at most {@code maxCycles} cycles of {@code
     * cycleSeconds} (idle stretches are skipped, so a cycle is a change, not a tick); {@code recreateEvicted} as the
     * simulator's.
     */
    public record Settings(long horizonSeconds, int maxCycles, long cycleSeconds, boolean recreateEvicted) {
        public static final long WEEK = 7L * 24 * 3600;

        /** A week ahead, at most 2,000 changes, cycles of {@code cycleSeconds}. */
        public static Settings defaults(long cycleSeconds) {
            return new Settings(WEEK, 2_000, cycleSeconds, false);
        }
    }

    private final RuleBook rules;
    private final SchedulerConfig config;
    private final Settings settings;

    public Forecaster(RuleBook rules, SchedulerConfig config, Settings settings) {
        this.rules = rules;
        this.config = config;
        this.settings = settings;
    }

    /** Whether a forecast could give anyone an estimate: the policy has a default, or some pod states its estimate. */
    public static boolean anyEstimate(PolicySettings.Runtime runtime, Iterable<PodSpec> pods) {
        if (!runtime.defaultByQueue().isEmpty() || !runtime.defaultByPriorityClass().isEmpty()) return true;
        for (PodSpec p : pods) if (p.annotations().containsKey(Runtimes.ESTIMATE)) return true;
        return false;
    }

    /** The estimated start of every job pending in {@code s}. */
    public Forecast forecast(ClusterSnapshot s) {
        PolicySettings.Runtime runtime = rules.settings().runtime();
        long now = s.now();
        Map<String, PodGroupSpec> groups = new HashMap<>();
        for (PodGroupSpec g : s.podGroups()) groups.put(g.key(), g);
        Map<String, List<PodSpec>> byJob = new LinkedHashMap<>();
        for (PodSpec p : s.pods()) byJob.computeIfAbsent(p.jobId(), j -> new ArrayList<>()).add(p);

        Map<String, String> queueOf = new HashMap<>();
        Map<String, Long> estimateOf = new HashMap<>();
        Set<String> pending = new java.util.TreeSet<>();
        for (Map.Entry<String, List<PodSpec>> e : byJob.entrySet()) {
            PodGroupSpec g = groups.get(e.getKey());
            PodSpec first = e.getValue().get(0);
            String queue = g != null && g.queue() != null ? g.queue()
                    : first.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
            String priorityClass = g != null && g.priorityClassName() != null ? g.priorityClassName() : first.priorityClassName();
            queueOf.put(e.getKey(), queue);
            estimateOf.put(e.getKey(), runtime.estimateSeconds(e.getValue(), queue, priorityClass));
            boolean anyRunning = false, anyWaiting = false;
            for (PodSpec p : e.getValue()) {
                if (p.finished()) continue;
                if (p.isBound()) anyRunning = true;
                else if (!p.terminating() && config.schedulerNames().contains(p.schedulerName())) anyWaiting = true;
            }
            if (anyWaiting && !anyRunning) pending.add(e.getKey());
        }

        int first = firstCycle(s);
        long cs = settings.cycleSeconds();
        long origin = now - first * cs;
        // The forward world: each pod's simulated running time is its job's estimate, counted from its start. A pod
        // bound but not started yet (no status.startTime) starts now: the simulator starts it at the origin, so its
        // running time is the estimate plus the time from the origin to now.
        Set<String> noEnd = new HashSet<>();
        List<PodSpec> pods = new ArrayList<>(s.pods().size());
        for (PodSpec p : s.pods()) {
            long estimate = estimateOf.get(p.jobId());
            Map<String, String> ann = new HashMap<>(p.annotations());
            ann.remove(Runtimes.SIMULATED);
            long runFor = -1;
            if (!p.finished() && !p.terminating()) {
                if (estimate < 0) runFor = -1;
                else if (!p.isBound()) runFor = estimate;
                else if (p.startedAt() == PodSpec.UNKNOWN_START) runFor = estimate + (now - origin);
                else if (p.startedAt() + estimate > now) runFor = estimate; // else it ran past its estimate: end unknown
                if (runFor >= 0) ann.put(Runtimes.SIMULATED, Long.toString(runFor));
                else if (config.schedulerNames().contains(p.schedulerName())) noEnd.add(p.key());
                // else: another scheduler's pod (a DaemonSet's, the system's) without an estimate: there for good
            }
            pods.add(ann.equals(p.annotations()) ? p : p.withAnnotations(ann));
        }
        Manifests world = new Manifests(s.nodes(), pods, s.podGroups(), s.queues(), s.priorityClasses(), List.of(),
                s.namespaceLabels(), s.hyperNodes(), s.usage());

        Simulator.Options options = new Simulator.Options(settings.maxCycles(), cs, settings.recreateEvicted(), true)
                .from(first, origin, now + settings.horizonSeconds());
        Scheduler scheduler = new Scheduler(rules, config).keepingWorkingCopy().withoutTrace();
        SimulationResult run;
        try {
            run = new Simulator(scheduler).run(world, options, s.nominations(), null);
        } finally {
            scheduler.dropSession();
        }

        Map<String, String> podJob = new HashMap<>();
        for (PodSpec p : s.pods()) podJob.put(p.key(), p.jobId());
        Map<String, Long> started = new HashMap<>();
        for (CycleResult c : run.cycles()) {
            for (Binding b : c.bindings()) {
                String job = podJob.get(b.pod());
                if (job != null && pending.contains(job)) started.putIfAbsent(job, options.timeOf(c.cycle()));
            }
        }
        // Jobs still running at the end with no known end: what the jobs that did not start may wait on.
        Map<String, Integer> unknownRunning = new TreeMap<>();
        for (PodOutcome o : run.pods()) {
            if (!"Running".equals(o.phase()) || !noEnd.contains(o.pod())) continue;
            unknownRunning.merge(podJob.get(o.pod()), 1, Integer::sum);
        }

        Map<String, StartEstimate> out = new TreeMap<>();
        for (String job : pending) {
            String queue = queueOf.get(job);
            Long at = started.get(job);
            if (at != null) out.put(job, StartEstimate.known(job, queue, at));
            else if (!unknownRunning.isEmpty())
                out.put(job, new StartEstimate(job, queue, -1, StartEstimate.None.WAITS_ON_UNKNOWN_END,
                        waitedOn(unknownRunning, queueOf, queue)));
            else out.put(job, new StartEstimate(job, queue, -1,
                        run.stable() ? StartEstimate.None.NEVER : StartEstimate.None.BEYOND_HORIZON, null));
        }
        return new Forecast(now, settings.horizonSeconds(), out);
    }

    /** One of {@code queue}'s own first, then the one running the most pods without an end, then by name. */
    private static String waitedOn(Map<String, Integer> unknownRunning, Map<String, String> queueOf, String queue) {
        String best = null;
        for (Map.Entry<String, Integer> e : unknownRunning.entrySet()) {
            if (best == null || better(e.getKey(), best, unknownRunning, queueOf, queue)) best = e.getKey();
        }
        return best;
    }

    private static boolean better(String a, String b, Map<String, Integer> count, Map<String, String> queueOf, String queue) {
        boolean aSame = queue.equals(queueOf.get(a)), bSame = queue.equals(queueOf.get(b));
        if (aSame != bSame) return aSame;
        int c = Integer.compare(count.get(a), count.get(b));
        return c != 0 ? c > 0 : a.compareTo(b) < 0;
    }

    /** The first forward cycle: one by which every object of the snapshot has arrived (they are all there). */
    private static int firstCycle(ClusterSnapshot s) {
        int first = 1;
        for (NodeSpec n : s.nodes()) first = Math.max(first, n.arrivalCycle());
        for (PodSpec p : s.pods()) first = Math.max(first, p.arrivalCycle());
        for (PodGroupSpec g : s.podGroups()) first = Math.max(first, g.arrivalCycle());
        for (QueueSpec q : s.queues()) first = Math.max(first, q.arrivalCycle());
        return first;
    }

}
