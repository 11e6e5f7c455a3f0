package dev.arbiter.policy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The policy's settings: the numbers and orders a platform engineer tunes, read from {@code policy.yaml} beside the
 * rules (see {@link PolicySettingsReader}) and inserted into every rules session as one fact, so rules read them
 * ({@code PolicySettings( $min : churn.minRuntimeSeconds )}) instead of repeating literals. The Java mechanism reads
 * the rest (orders, budgets, scoring, limits) from here too. {@link #defaults()} is the shipped behaviour.
 *
 * @param churn how reluctantly to evict (see {@link Churn})
 * @param orders who is served first: queues, jobs within a queue, tasks within a job
 * @param victims the order victims are taken in, and what a victim that would break its gang brings
 * @param scoring how nodes are scored: binpack or spread, with optional per-resource weights
 * @param shares which resource dimensions queue shares leave out (kube-scheduler's {@code IgnoredResources})
 * @param cycle how the cycle's steps run: admission order, nominated jobs first, the eviction actions in order
 * @param limits what one rules session may do: firings and time
 * @param topology where network domains come from besides HyperNodes, and how a constrained gang picks one
 * @param runtime how long a job is expected to run when its pods do not say (see {@link Runtime})
 * @param reservation whether a long-waiting head job reserves nodes, and backfill on them (see {@link Reservation})
 */
public record PolicySettings(Churn churn, Orders orders, Victims victims, Scoring scoring, Shares shares, Cycle cycle,
                             Limits limits, Topology topology, Runtime runtime, Reservation reservation) {
    /** Settings with the shipped topology, runtime and reservation settings. */
    public PolicySettings(Churn churn, Orders orders, Victims victims, Scoring scoring, Shares shares, Cycle cycle,
                          Limits limits) {
        this(churn, orders, victims, scoring, shares, cycle, limits, Topology.DEFAULT);
    }

    /** Settings with the shipped runtime and reservation settings. */
    public PolicySettings(Churn churn, Orders orders, Victims victims, Scoring scoring, Shares shares, Cycle cycle,
                          Limits limits, Topology topology) {
        this(churn, orders, victims, scoring, shares, cycle, limits, topology, Runtime.NONE, Reservation.OFF);
    }

    /**
     * Runtime estimates where the pods say none ({@code arbiter.dev/runtime-estimate}, {@link
     * dev.arbiter.model.Runtimes}): a default per queue, else per PriorityClass, in seconds. A job with neither has no
     * estimate: start-time estimates say so and backfill never counts on it ending.
     */
    public record Runtime(Map<String, Long> defaultByQueue, Map<String, Long> defaultByPriorityClass) {
        public static final Runtime NONE = new Runtime(Map.of(), Map.of());

        public Runtime {
            defaultByQueue = Map.copyOf(defaultByQueue);
            defaultByPriorityClass = Map.copyOf(defaultByPriorityClass);
        }

        /**
         * A job's estimated running time in seconds: its pods' largest {@code arbiter.dev/runtime-estimate}, else the
         * default of its queue, else of its PriorityClass, else -1 (none). One place decides it for the start-time
         * estimates and for backfill.
         */
        public long estimateSeconds(Iterable<dev.arbiter.model.PodSpec> pods, String queue, String priorityClass) {
            long most = -1;
            for (dev.arbiter.model.PodSpec p : pods) most = Math.max(most, dev.arbiter.model.Runtimes.estimateOf(p));
            return most >= 0 ? most : defaultSeconds(queue, priorityClass);
        }

        /** The default estimate in seconds for a job of {@code queue} and {@code priorityClass}, or -1 for none. */
        public long defaultSeconds(String queue, String priorityClass) {
            Long q = queue == null ? null : defaultByQueue.get(queue);
            if (q != null) return q;
            Long p = priorityClass == null ? null : defaultByPriorityClass.get(priorityClass);
            return p == null ? -1 : p;
        }
    }

    /**
     * Reservation and backfill (Slurm's), off by default: when a queue's head job has waited longer than
     * {@code after} (null: never), the engine reserves the nodes that would start it soonest; with {@code backfill},
     * other work may use those nodes only if its runtime estimate ends before the reservation starts.
     */
    public record Reservation(Duration after, boolean backfill) {
        public static final Reservation OFF = new Reservation(null, true);

        /** Whether head jobs reserve nodes at all. */
        public boolean enabled() {
            return after != null;
        }

        /** {@code after} in seconds, or -1 when off. */
        public long afterSeconds() {
            return after == null ? -1 : after.toSeconds();
        }
    }

    /**
     * Network topology: {@code levels} are node label keys, broadest first (e.g. {@code [block, rack]}), that make
     * domains on clusters without HyperNodes — each value of a key is one domain, and the last key is tier 1;
     * {@code choice} is which domain a constrained gang takes among those where it fits; with
     * {@code preferFullerDomains}, gangs without a constraint take, among equally good nodes, those in fuller domains
     * (so whole domains stay free for constrained gangs).
     */
    public record Topology(List<String> levels, DomainChoice choice, boolean preferFullerDomains) {
        public static final Topology DEFAULT = new Topology(List.of(), DomainChoice.BEST_FIT, true);

        public Topology {
            levels = List.copyOf(levels);
        }

        /** The tier of label level {@code key} (the last level is tier 1), or 0 when it is not a level. */
        public int tierOf(String key) {
            int i = levels.indexOf(key);
            return i < 0 ? 0 : levels.size() - i;
        }
    }
    /**
     * Churn control: a pod that has run less than {@code minRuntimeSeconds} is not reclaimed (nor preempted, when
     * {@code minRuntimeAgainstPreemption}); each cycle evicts at most {@code maxEvictionsPerCycle} pods in all and
     * {@code maxEvictionsPerQueuePerCycle} from one victim queue (0 = unlimited); with {@code hysteresis}, reclaim
     * never evicts a unit that could reclaim its way straight back.
     */
    public record Churn(long minRuntimeSeconds, boolean minRuntimeAgainstPreemption, int maxEvictionsPerCycle,
                        int maxEvictionsPerQueuePerCycle, boolean hysteresis) {}

    public record Orders(List<OrderKey<QueueKey>> queues, List<OrderKey<JobKey>> jobs, List<OrderKey<TaskKey>> tasks) {
        public Orders {
            queues = List.copyOf(queues);
            jobs = List.copyOf(jobs);
            tasks = List.copyOf(tasks);
        }
    }

    /**
     * The victim order; what a victim that would break its gang means; whether reclaim may take a whole gang that
     * would leave its queue below its floor; {@code nonPreemptibleFrom}: the job priority from which a job is never a
     * victim, of preemption or reclaim, whatever its queue's share (KAI's non-preemptible priorities), unless its
     * PodGroup says it is preemptable; null: no such level.
     */
    public record Victims(List<VictimKey> order, BreakingGang breakingGang, GangBelowFloor gangBelowFloor,
                          Integer nonPreemptibleFrom) {
        public Victims {
            order = List.copyOf(order);
        }

        /** Without a non-preemptible priority level. */
        public Victims(List<VictimKey> order, BreakingGang breakingGang, GangBelowFloor gangBelowFloor) {
            this(order, breakingGang, gangBelowFloor, null);
        }
    }

    /**
     * {@code weights}: per resource, how much it counts when choosing among nodes that fit (Volcano's binpack
     * arguments); empty means the scarcest resource the pod asks for decides alone.
     */
    public record Scoring(ScoringMode mode, Map<String, Integer> weights) {
        public Scoring {
            weights = Map.copyOf(weights);
        }
    }

    /**
     * {@code ignoredResources}: dimensions queue shares leave out. {@code usageHalfLife}: how fast a queue's past
     * usage is forgotten (Kueue's admission fair sharing {@code usageHalfLifeTime}, KAI's time-based fairshare
     * half-life); null: past usage is not tracked (the queue order key {@code usage} needs it).
     * {@code usageSamplingInterval}: how often each queue's decayed usage is sampled and stored (on the Queue, live).
     */
    public record Shares(Set<String> ignoredResources, Duration usageHalfLife, Duration usageSamplingInterval) {
        public static final Duration DEFAULT_SAMPLING_INTERVAL = Duration.ofMinutes(5);

        public Shares {
            ignoredResources = Set.copyOf(ignoredResources);
        }

        /** Without tracking past usage. */
        public Shares(Set<String> ignoredResources) {
            this(ignoredResources, null, DEFAULT_SAMPLING_INTERVAL);
        }

        /** Whether queues' decayed past usage is tracked. */
        public boolean tracksUsage() {
            return usageHalfLife != null;
        }
    }

    /**
     * {@code admission}: queues take turns one job each, or each queue admits all it can in queue order;
     * {@code nominatedFirst}: jobs whose room the last cycle's evictions made are allocated before anyone else;
     * {@code evictions}: the eviction actions that run after allocation, in order.
     */
    public record Cycle(AdmissionOrder admission, boolean nominatedFirst, List<EvictionAction> evictions) {
        public Cycle {
            evictions = List.copyOf(evictions);
        }
    }

    /**
     * One rules phase may fire at most {@code max(minFirings, firingsPerFact × facts)} rules and run at most
     * {@code deadline}; past either the cycle fails, naming the rule.
     */
    public record Limits(long firingsPerFact, long minFirings, Duration deadline) {
        /** The firing limit of one phase over {@code facts} facts. */
        public long firingLimit(long facts) {
            return Math.max(minFirings, firingsPerFact * facts);
        }
    }

    /** Convenience for rules: the minimum runtime before reclaim, in seconds. */
    public long getMinRuntimeSeconds() {
        return churn.minRuntimeSeconds();
    }

    /** Convenience for rules: whether a priority level makes jobs never victims ({@link Victims#nonPreemptibleFrom}). */
    public boolean isNonPreemptibleLevelSet() {
        return victims.nonPreemptibleFrom() != null;
    }

    /** Convenience for rules: the job priority from which a job is never a victim (when {@link #isNonPreemptibleLevelSet}). */
    public int getNonPreemptibleFrom() {
        return victims.nonPreemptibleFrom() == null ? Integer.MAX_VALUE : victims.nonPreemptibleFrom();
    }

    /** Convenience for rules: whether the minimum runtime also shields pods from preemption. */
    public boolean isMinRuntimeAgainstPreemption() {
        return churn.minRuntimeAgainstPreemption();
    }

    /** The shipped behaviour, as {@code rules/policy.yaml} states it. */
    public static PolicySettings defaults() {
        return new PolicySettings(
                new Churn(60, false, 100, 20, true),
                new Orders(
                        List.of(new OrderKey<>(QueueKey.PRIORITY, Direction.DESC), new OrderKey<>(QueueKey.SHARE, Direction.ASC),
                                new OrderKey<>(QueueKey.NAME, Direction.ASC)),
                        List.of(new OrderKey<>(JobKey.PRIORITY, Direction.DESC), new OrderKey<>(JobKey.CREATION, Direction.ASC),
                                new OrderKey<>(JobKey.NAME, Direction.ASC)),
                        List.of(new OrderKey<>(TaskKey.PRIORITY, Direction.DESC), new OrderKey<>(TaskKey.LEADER, Direction.FIRST),
                                new OrderKey<>(TaskKey.CREATION, Direction.ASC), new OrderKey<>(TaskKey.NAME, Direction.ASC))),
                new Victims(List.of(VictimKey.SURPLUS_FIRST, VictimKey.CLOSEST_QUEUE_FIRST, VictimKey.QUEUE_SERVED_LAST_FIRST,
                        VictimKey.PRIORITY_ASC, VictimKey.LEADER_LAST, VictimKey.NEWEST_FIRST), BreakingGang.EVICT_WHOLE_GANG,
                        GangBelowFloor.EVICT),
                new Scoring(ScoringMode.BINPACK, Map.of()),
                new Shares(Set.of("pods")),
                new Cycle(AdmissionOrder.INTERLEAVED, true, List.of(EvictionAction.PREEMPT, EvictionAction.RECLAIM)),
                new Limits(20, 200_000, Duration.ofSeconds(30)),
                Topology.DEFAULT, Runtime.NONE, Reservation.OFF);
    }

    /**
     * How long a queue's head job waits before it reserves nodes, in seconds; -1 when reservation is off (for rules:
     * {@code PolicySettings( $after : reservationAfterSeconds >= 0 )}).
     */
    public long reservationAfterSeconds() {
        return reservation.afterSeconds();
    }

    /** These settings with another scoring mode (a scheduler's {@code --scoring} overrides the policy's). */
    public PolicySettings withScoring(ScoringMode mode) {
        return new PolicySettings(churn, orders, victims, new Scoring(mode, scoring.weights()), shares, cycle, limits,
                topology, runtime, reservation);
    }
}
