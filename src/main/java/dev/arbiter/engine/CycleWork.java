package dev.arbiter.engine;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.facts.GangRequirement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared state of one cycle's Java steps: the working copy, the rules' policy, the node fitter and victim search,
 * and the decisions made so far. Each step ({@link Admission}, {@link Allocation}, {@link EvictionPhase},
 * {@link StatusReport}) reads and extends it in turn.
 */
final class CycleWork {
    final CycleState state;
    final Policy policy;
    final NodeFitter fitter;
    final VictimSelector victims;
    /** The cycle's network domains (HyperNodes and the policy's label levels). */
    final NetworkDomains domains;
    final Comparator<QueueState> queueOrder;
    final List<Binding> bindings = new ArrayList<>();
    final List<Eviction> evictions = new ArrayList<>();
    final List<Nomination> nominations = new ArrayList<>();
    final Map<Job, Integer> boundThisCycle = new HashMap<>();
    final Map<String, Integer> evictedPerQueue = new HashMap<>();
    /** The running tasks the rules protect from eviction (each with its {@link Task#protection}). */
    final List<Task> protectedRunning = new ArrayList<>();

    CycleWork(CycleState state, Policy policy, SchedulerConfig config) {
        this.state = state;
        this.policy = policy;
        dev.arbiter.policy.PolicySettings settings = policy.settings;
        boolean spread = config.scoring() != null ? config.scoring().equals("spread")
                : settings.scoring().mode() == dev.arbiter.policy.ScoringMode.SPREAD;
        this.fitter = new NodeFitter(state, spread ? NodeFitter.Scoring.SPREAD : NodeFitter.Scoring.BINPACK,
                settings.scoring().weights());
        this.domains = new NetworkDomains(state.nodes, state.hyperNodes, settings.topology());
        fitter.useDomains(domains);
        this.victims = new VictimSelector(state, fitter, settings.victims());
        this.queueOrder = Orders.queues(settings.orders().queues());
        Comparator<Job> jobOrder = Orders.jobs(settings.orders().jobs());
        for (QueueState q : state.queues.values()) {
            q.jobs.sort(jobOrder);
            q.limit = policy.limits().get(q.name());
        }
        Comparator<Task> taskOrder = Orders.tasks(settings.orders().tasks());
        // A kept job with the same tasks, of the same priorities, is in the order the last cycle sorted it into.
        for (Job j : state.jobs.values()) if (!(j.sameTasks && state.samePriorities)) j.pending.sort(taskOrder);
        // Only running tasks can be victims: the only tasks whose protection anyone reads.
        Map<String, dev.arbiter.facts.Protected> protectedTasks = policy.protectedTasks();
        if (protectedTasks.isEmpty()) {
            // none: every task starts the cycle unprotected
        } else if (state.runningById != null && protectedTasks.size() < state.runningById.size()) {
            protectedTasks.forEach((id, p) -> {
                Task t = state.runningById.get(id);
                if (t != null) protect(t, p);
            });
        } else {
            for (Task t : state.tasks) {
                if (!t.running()) continue;
                dev.arbiter.facts.Protected p = protectedTasks.get(t.id());
                if (p != null) protect(t, p);
            }
        }
    }

    /** A running task the rules protect from eviction, for this cycle. */
    private void protect(Task t, dev.arbiter.facts.Protected p) {
        t.protection = p;
        state.touch(t);
        protectedRunning.add(t);
    }

    static boolean admitted(Job j) {
        return j.phase.equals("Inqueue") || j.phase.equals("Running");
    }

    static String behindHead(QueueState q, Job head) {
        return "waiting behind " + head.id + ", the head of fifo queue \"" + q.name() + "\"";
    }

    /** Gives the room held for the job's nominated tasks back to the node, for the job itself to use. */
    void releaseNominatedRoom(Job j) {
        for (Task t : j.pending) {
            if (t.holding) {
                t.nominated.give(t.request());
                t.holding = false;
                state.touch(t);
                fitter.capacityReleased(List.of(t.nominated));
            }
        }
    }

    /** Holds the room again for nominated tasks the job could not place (it keeps waiting for them). */
    void holdNominatedRoom(Job j) {
        for (Task t : j.pending) {
            if (t.nominated != null && !t.holding && !t.placed) {
                if (t.request().fitsIn(t.nominated.free())) {
                    t.nominated.take(t.request());
                    t.holding = true;
                    fitter.changed();
                } else {
                    t.nominated = null;
                }
                state.touch(t);
            }
        }
    }

    static boolean gangSatisfied(Job j, GangRequirement g, GangTransaction tx) {
        // Too few members decides most jobs, and needs no words.
        if (j.liveMembers() + (tx == null ? 0 : tx.placed()) < Math.max(g.minMember(), 1)) return false;
        return gangShortfall(j, g, tx) == null;
    }

    /**
     * Why the job's gang cannot start with what runs and what {@code tx} placed (null: no transaction), e.g.
     * {@code gang of 4 needs 4 tasks, 2 placeable} or {@code role worker needs 2, 1 placeable}; null when it can.
     */
    static String gangShortfall(Job j, GangRequirement g, GangTransaction tx) {
        int have = j.liveMembers() + (tx == null ? 0 : tx.placed());
        if (have < Math.max(g.minMember(), 1)) {
            return "gang of " + g.minMember() + " needs " + Math.max(g.minMember(), 1) + " tasks, " + have + " placeable";
        }
        if (g.minTaskMember().isEmpty()) return null;
        Map<String, Integer> running = j.liveRunningByRole();
        for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(g.minTaskMember()).entrySet()) {
            int role = running.getOrDefault(e.getKey(), 0) + (tx == null ? 0 : tx.placedInRole(e.getKey()));
            if (role < e.getValue()) return "role " + e.getKey() + " needs " + e.getValue() + ", " + role + " placeable";
        }
        return null;
    }

    /** Texts many jobs' reasons share, one string each (see {@link #join}). */
    private final SharedTexts texts = new SharedTexts();

    /**
     * {@code a + sep + b}, as one shared string for equal parts: in a large cycle thousands of jobs wait for the same
     * reasons, and their texts need not be built once per job.
     */
    String join(String a, String sep, String b) {
        return texts.join(a, sep, b);
    }

    /** {@link #join}'s texts: one string per equal parts. */
    static final class SharedTexts {
        private final Map<Joined, String> joined = new HashMap<>();
        private String lastA, lastSep, lastB, lastJoined;

        private record Joined(String a, String sep, String b) {}

        String join(String a, String sep, String b) {
            // Jobs one after another mostly wait for the same reasons (a queue's gangs of one shape): the last answer
            // serves while the parts are the very same strings.
            if (a == lastA && sep == lastSep && b == lastB) return lastJoined;
            String s = joined.computeIfAbsent(new Joined(a, sep, b), k -> a + sep + b);
            lastA = a;
            lastSep = sep;
            lastB = b;
            lastJoined = s;
            return s;
        }
    }

    List<QueueState> sortedQueues() {
        List<QueueState> qs = new ArrayList<>(state.queues.values());
        qs.sort(queueOrder);
        return qs;
    }
}
