package dev.arbiter.whatif;

import dev.arbiter.authoring.Explainer;
import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.ReasonWords;
import dev.arbiter.decision.Refusal;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.policy.BreakingGang;
import dev.arbiter.policy.EvictionAction;
import dev.arbiter.policy.GangBelowFloor;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.sim.Simulator;
import dev.arbiter.whatif.Answer.Remedy;
import dev.arbiter.whatif.Answer.Verdict;
import dev.arbiter.whatif.Change.EndedJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * What would start a pending job: candidate changes to the world or the policy, each checked by running the real
 * engine ({@link Scheduler}, through the simulator's {@link Simulator#runFrom}) on the changed snapshot for the next
 * cycle, and the cycles after it while the job waits for the victims it evicted (at most {@value #CHECK_CYCLES} in
 * all). Only changes after which at least minMember of the job's pods are bound are kept. The search:
 *
 * <ol>
 *   <li>The state unchanged: if the engine starts the job, there is nothing to find ({@link Verdict#STARTS_UNCHANGED}).</li>
 *   <li>Quota: each queue on the job's path whose capability bounds what the job asks for, raised by k times the
 *       job's per-pod request, k the smallest that works (binary search from 1 to the job's pending pods); when the
 *       refusal speaks of the deserved share, the queue's explicit deserved share the same way, or its weight (the
 *       smallest that works, searched up to 1024 times the weight).</li>
 *   <li>Policy: the settings that can keep a job from its victims (churn.minRuntime down to the largest value that
 *       works, the eviction budgets up to the smallest, hysteresis, minRuntimeAgainstPreemption, nonPreemptibleFrom,
 *       breakingGang, gangBelowFloor, a missing eviction action), each tried alone; only when the cycle tried an
 *       eviction action for the job (or leaves one out).</li>
 *   <li>The job's own constraints, one at a time: its network topology softened or dropped, a Kueue topology
 *       annotation, a nodeSelector entry, a required node affinity expression, pod (anti-)affinity term or
 *       DoNotSchedule spread constraint dropped, a toleration added for a taint of a node it could otherwise use.</li>
 *   <li>Running jobs ending: per pod still short, the node where the cheapest jobs (fewest GPUs x lowest priority)
 *       make room for one more pod, until the pending pods fit on paper; then the engine checks the set, and each job
 *       is dropped from it again if the job starts without it (Kueue's "remove until it fits, add back what is not
 *       needed", the other way round).</li>
 *   <li>Hardware: nodes like the largest node the job's pods may use (its labels, a new hostname, its taints and
 *       allocatable), as few as hold the pods still short on paper, then more while the engine says no.</li>
 * </ol>
 *
 * The pre-filters are cheap: a kind is tried only when it can matter (a capability bounding the job's resources, a
 * refusal naming the deserved share, a pod younger than the minimum runtime, ...), and amounts are first checked at
 * their largest (if that does not start the job, no smaller amount will).
 */
public final class WhatIf {
    /** The most cycles one check runs: the next cycle, and two more for evictions to take effect. */
    static final int CHECK_CYCLES = 3;

    /**
     * What is asked: the job ({@code ns/podgroup}) in {@code state}, the snapshot of {@code cycle}. With a {@code limit}
     * (positive), the search stops after the cost tier in which it has found that many changes: every later tier is
     * dearer, so the first {@code limit} are the same; -1 searches every tier.
     */
    public record Question(ClusterSnapshot state, int cycle, String job, RuleBook rules, SchedulerConfig config,
                           long cycleSeconds, int limit) {
        /** Every tier searched. */
        public Question(ClusterSnapshot state, int cycle, String job, RuleBook rules, SchedulerConfig config,
                        long cycleSeconds) {
            this(state, cycle, job, rules, config, cycleSeconds, -1);
        }
    }

    private final Question q;
    private final String job;
    private final List<PodSpec> pods;
    private final List<PodSpec> pending;
    private final Set<String> podKeys = new java.util.HashSet<>();
    private final PodGroupSpec group;
    private final String queue;
    private final int needed;
    private final int boundAtStart;
    /** The largest request of any pending pod, per resource (the shape a node or a quota raise must hold). */
    private final Resources podShape;
    private int engineCycles;

    private WhatIf(Question q) {
        this.q = q;
        this.job = q.job();
        List<PodSpec> ps = new ArrayList<>();
        List<PodSpec> pend = new ArrayList<>();
        int bound = 0;
        for (PodSpec p : q.state().pods()) {
            if (!p.jobId().equals(job)) continue;
            ps.add(p);
            podKeys.add(p.key());
            if (p.terminating() || p.finished()) continue;
            if (p.isBound()) bound++;
            else pend.add(p);
        }
        this.pods = ps;
        this.pending = pend;
        this.boundAtStart = bound;
        this.group = q.state().podGroups().stream().filter(g -> g.key().equals(job)).findFirst().orElse(null);
        this.queue = group != null ? group.queue()
                : ps.isEmpty() ? QueueSpec.DEFAULT : ps.get(0).annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT);
        this.needed = Math.max(1, group != null ? group.minMember() : 1);
        Resources shape = Resources.NONE;
        for (PodSpec p : pend) shape = shape.max(p.requests());
        this.podShape = shape;
    }

    /**
     * Answers {@code q}.
     *
     * @throws IllegalArgumentException when the job has no pod in the state (a PodGroup whose pods do not exist)
     */
    public static Answer ask(Question q) {
        return new WhatIf(q).answer();
    }

    private Answer answer() {
        long t0 = System.nanoTime();
        if (pods.isEmpty()) throw new IllegalArgumentException("PodGroup " + job + " has no pod at cycle " + q.cycle() + ": nothing to start");
        if (boundAtStart >= needed) {
            return new Answer(job, queue, q.cycle(), Verdict.NOT_PENDING, null, null,
                    "running: " + boundAtStart + " of its pods bound (minMember " + needed + ")", List.of(), List.of(), 0,
                    millis(t0));
        }
        Run today = check(q.state(), q.rules(), true);
        PodGroupStatus status = today.cycles.isEmpty() ? null : statusOf(today.cycles.get(0));
        String reason = status == null ? null : status.reason();
        String rule = status == null ? null : status.rule();
        if (today.started) {
            return new Answer(job, queue, q.cycle(), Verdict.STARTS_UNCHANGED, null, null, today.outcome(), List.of(),
                    List.of(), engineCycles, millis(t0));
        }
        Refusal why = status == null ? null : status.why();
        List<Remedy> found = new ArrayList<>();
        List<String> notFound = new ArrayList<>();
        List<Runnable> tiers = List.of(() -> quota(why, found, notFound), () -> policy(why, today, found, notFound),
                () -> ownConstraints(why, found, notFound), () -> jobsEnding(why, today, found, notFound),
                () -> hardware(why, found, notFound));
        String[] names = {"quota", "policy", "job spec", "jobs end", "hardware"};
        for (int i = 0; i < tiers.size(); i++) {
            if (q.limit() > 0 && found.size() >= q.limit()) {
                notFound.add(names[i] + ": not tried (" + found.size() + " cheaper changes found; --all tries every kind)");
                continue;
            }
            tiers.get(i).run();
        }
        found.sort(Comparator.comparing(Remedy::tier).thenComparingLong(Remedy::cost)
                .thenComparing(r -> r.change().words()));
        return new Answer(job, queue, q.cycle(), found.isEmpty() ? Verdict.NONE_IN_REACH : Verdict.CHANGES_FOUND, reason,
                rule, null, found, notFound, engineCycles, millis(t0));
    }

    private static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    // ---- checking with the engine ------------------------------------------------------------------------------------

    /** The cycles a check ran, and whether the job started in them. */
    private final class Run {
        final boolean started;
        final List<CycleResult> cycles;

        Run(boolean started, List<CycleResult> cycles) {
            this.started = started;
            this.cycles = cycles;
        }

        /** e.g. {@code binds in cycle 31} or {@code cycle 30 evicts 2 pods (reclaim), binds in cycle 31}. */
        String outcome() {
            StringBuilder sb = new StringBuilder();
            for (CycleResult c : cycles) {
                Map<String, Integer> evicted = new LinkedHashMap<>();
                for (Eviction e : c.evictions()) if (job.equals(e.forPodGroup())) evicted.merge(e.action(), 1, Integer::sum);
                int bound = 0;
                for (Binding b : c.bindings()) if (podKeys.contains(b.pod())) bound++;
                if (!evicted.isEmpty()) {
                    sb.append(sb.length() == 0 ? "" : ", ").append("cycle ").append(c.cycle()).append(" evicts ");
                    int n = evicted.values().stream().mapToInt(Integer::intValue).sum();
                    sb.append(n).append(n == 1 ? " pod (" : " pods (").append(String.join(", ", evicted.keySet())).append(")");
                }
                if (bound > 0) {
                    sb.append(sb.length() == 0 ? "" : ", ").append("binds ").append(bound).append(bound == 1 ? " pod" : " pods")
                            .append(" in cycle ").append(c.cycle());
                }
            }
            return sb.toString();
        }
    }

    /** Runs the engine on {@code s} under {@code book} from the asked cycle, for at most {@value #CHECK_CYCLES} cycles. */
    private Run check(ClusterSnapshot s, RuleBook book, boolean traced) {
        Scheduler scheduler = new Scheduler(book, q.config());
        if (!traced) scheduler = scheduler.withoutTrace();
        Simulator sim = new Simulator(scheduler);
        List<CycleResult> seen = new ArrayList<>();
        int[] bound = {0};
        for (PodSpec p : s.pods()) if (podKeys.contains(p.key()) && p.isBound() && !p.terminating() && !p.finished()) bound[0]++;
        if (bound[0] >= needed) return new Run(true, seen);
        sim.runFrom(s, q.cycle(), new Simulator.Options(CHECK_CYCLES, q.cycleSeconds(), false, false), r -> {
            seen.add(r);
            engineCycles++;
            boolean moved = false;
            for (Binding b : r.bindings()) {
                if (podKeys.contains(b.pod())) {
                    bound[0]++;
                    moved = true;
                }
            }
            for (Eviction e : r.evictions()) {
                if (podKeys.contains(e.pod())) bound[0]--;
                if (job.equals(e.forPodGroup())) moved = true;
            }
            for (dev.arbiter.decision.Nomination n : r.nominations()) moved |= podKeys.contains(n.pod());
            // Started; or the cycle did nothing for the job (no binding, no eviction or nomination for it): it will
            // not start in the next cycle, and waiting longer is not what whatif asks.
            return bound[0] >= needed || !moved;
        });
        return new Run(bound[0] >= needed, seen);
    }

    private Run check(Change c) {
        return check(c.apply(q.state()), c.apply(q.rules()), false);
    }

    private PodGroupStatus statusOf(CycleResult r) {
        for (PodGroupStatus g : r.podGroups()) if (g.podGroup().equals(job)) return g;
        return null;
    }

    /**
     * The smallest k in [1, max] for which {@code at(k)} starts the job, with its run; null when even {@code max} does
     * not. Monotone changes only (more of it never stops the job from starting).
     */
    private Found smallest(int max, IntFunction<Change> at) {
        if (max < 1) return null;
        Change top = at.apply(max);
        Run r = check(top);
        if (!r.started) return null;
        Found best = new Found(top, r);
        // Small amounts are the common answer: double from 1 until one works, then halve the gap.
        int lo = 1, hi = max; // hi works
        for (int k = 1; k < max; k *= 2) {
            Change c = at.apply(k);
            Run run = check(c);
            if (run.started) {
                hi = k;
                best = new Found(c, run);
                break;
            }
            lo = k + 1;
            if (k > max / 2) break;
        }
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            Change c = at.apply(mid);
            Run run = check(c);
            if (run.started) {
                hi = mid;
                best = new Found(c, run);
            } else {
                lo = mid + 1;
            }
        }
        return best;
    }

    private record Found(Change change, Run run) {}

    private void add(List<Remedy> found, Found f, Cost.Tier tier, long cost, String blocks) {
        found.add(new Remedy(f.change(), tier, cost, blocks, f.run().outcome()));
    }

    // ---- quota ---------------------------------------------------------------------------------------------------------

    private void quota(Refusal why, List<Remedy> found, List<String> notFound) {
        Map<String, QueueSpec> queues = new HashMap<>();
        for (QueueSpec qs : q.state().queues()) queues.put(qs.name(), qs);
        Resources asked = podShape.without("pods");
        int max = pending.size();
        boolean tried = false;
        Set<String> seen = new LinkedHashSet<>();
        for (QueueSpec qs = queues.get(queue); qs != null && seen.add(qs.name()); qs = queues.get(qs.parentOrRoot())) {
            QueueSpec queueSpec = qs;
            Caps caps = qs.capability();
            if (caps != null && bounds(caps, asked)) {
                tried = true;
                Found f = smallest(max, k -> {
                    Resources by = onlyBounded(caps, asked).scale(k, 1);
                    Map<String, Long> to = new java.util.TreeMap<>(caps.asMilliMap());
                    for (int i = 0; i < by.size(); i++) to.merge(by.name(i), by.milliAt(i), Long::sum);
                    return new Change.CapabilityRaised(queueSpec.name(), caps, Caps.ofMilli(to), by);
                });
                if (f != null) {
                    Change.CapabilityRaised c = (Change.CapabilityRaised) f.change();
                    add(found, f, Cost.Tier.QUOTA, Cost.weight(c.by()),
                            blocks(why, "queue " + qs.name() + "'s capability " + caps, Refusal.CapabilityReached.class,
                                    Refusal.AdmissionExhausted.class));
                } else {
                    notFound.add("quota: raising queue " + qs.name() + "'s capability by the whole job's request does not start it");
                }
            }
            if (why != null && holdsAny(why, Refusal.Overused.class, Refusal.HoldsDeserved.class, Refusal.WouldPassDeserved.class,
                    Refusal.TooLarge.class, Refusal.KeptByLenders.class)) {
                tried = true;
                String blocks = blocks(why, "queue " + qs.name() + "'s deserved share", Refusal.Overused.class,
                        Refusal.HoldsDeserved.class, Refusal.WouldPassDeserved.class, Refusal.TooLarge.class,
                        Refusal.KeptByLenders.class);
                Found f;
                if (qs.deserved() != null) {
                    Resources from = qs.deserved();
                    f = smallest(max, k -> {
                        Resources by = asked.scale(k, 1);
                        return new Change.DeservedRaised(queueSpec.name(), from, from.add(by), by);
                    });
                    if (f != null) add(found, f, Cost.Tier.QUOTA, Cost.weight(((Change.DeservedRaised) f.change()).by()), blocks);
                } else {
                    int w = Math.max(1, qs.weight());
                    f = smallest(1024 * w - w, k -> new Change.WeightRaised(queueSpec.name(), queueSpec.weight(), w + k));
                    if (f != null) {
                        Change.WeightRaised c = (Change.WeightRaised) f.change();
                        add(found, f, Cost.Tier.QUOTA, c.to() - c.from(), blocks);
                    }
                }
                if (f == null) notFound.add("quota: no raise of queue " + qs.name() + "'s deserved share within reach starts it");
            }
        }
        if (!tried) notFound.add("quota: no queue of " + job + " has a capability on what it asks for, and no refusal names a deserved share");
    }

    private static boolean bounds(Caps caps, Resources asked) {
        for (int i = 0; i < asked.size(); i++) if (asked.milliAt(i) > 0 && caps.asMilliMap().containsKey(asked.name(i))) return true;
        return false;
    }

    private static Resources onlyBounded(Caps caps, Resources asked) {
        Map<String, Long> m = new java.util.TreeMap<>();
        for (int i = 0; i < asked.size(); i++) if (caps.asMilliMap().containsKey(asked.name(i))) m.put(asked.name(i), asked.milliAt(i));
        return Resources.ofMilli(m);
    }

    // ---- policy settings ---------------------------------------------------------------------------------------------

    private void policy(Refusal why, Run today, List<Remedy> found, List<String> notFound) {
        PolicySettings s = q.rules().settings();
        PolicySettings.Churn churn = s.churn();
        boolean attempted = why != null && holdsAny(why, Refusal.Attempted.class);
        List<EvictionAction> actions = s.cycle().evictions();
        List<Change> singles = new ArrayList<>();
        for (EvictionAction a : EvictionAction.values()) {
            if (actions.contains(a)) continue;
            List<EvictionAction> more = new ArrayList<>(actions);
            more.add(a);
            singles.add(new Change.SettingChanged("cycle.evictions", words(actions), words(more),
                    p -> new PolicySettings(p.churn(), p.orders(), p.victims(), p.scoring(), p.shares(),
                            new PolicySettings.Cycle(p.cycle().admission(), p.cycle().nominatedFirst(), more), p.limits(),
                            p.topology())));
        }
        if (!attempted) {
            tryEach(singles, why, found);
            notFound.add("policy: the cycle tried no eviction for " + job + ", so no eviction setting can matter");
            return;
        }
        int before = found.size();
        boolean protectedVictims = holdsAny(why, Refusal.AllProtected.class);
        boolean noPlan = holdsAny(why, Refusal.NoPlan.class, Refusal.DownToFloors.class);
        // The minimum runtime: the largest value that works, among the ages of the pods younger than it now.
        if (churn.minRuntimeSeconds() > 0 && protectedVictims) {
            TreeSet<Long> ages = new TreeSet<>();
            for (PodSpec p : q.state().pods()) {
                if (!p.isBound() || p.terminating() || p.startedAt() == PodSpec.UNKNOWN_START) continue;
                long age = q.state().now() - p.startedAt();
                if (age >= 0 && age < churn.minRuntimeSeconds()) ages.add(age);
            }
            if (!ages.isEmpty()) {
                List<Long> values = new ArrayList<>(ages.descendingSet()); // largest first: the least change first
                values.add(0L);
                values = new ArrayList<>(new LinkedHashSet<>(values));
                List<Long> vs = values;
                // index k-1 into values: k=1 the largest value (least change); monotone in k
                Found f = smallest(vs.size(), k -> minRuntime(churn, vs.get(k - 1)));
                if (f != null) {
                    add(found, f, Cost.Tier.POLICY, 1, blocks(why, "churn.minRuntime " + churn.minRuntimeSeconds() + "s",
                            Refusal.AllProtected.class));
                }
            }
        }
        if (churn.maxEvictionsPerCycle() > 0 && holdsAny(why, Refusal.BudgetSpent.class, Refusal.BudgetExceeded.class,
                Refusal.BudgetWouldPass.class)) {
            int from = churn.maxEvictionsPerCycle();
            int running = (int) q.state().pods().stream().filter(PodSpec::isBound).count();
            Found f = smallest(Math.max(1, running), k -> budget("churn.maxEvictionsPerCycle", from, from + k, true));
            if (f != null) add(found, f, Cost.Tier.POLICY, 1, blocks(why, "churn.maxEvictionsPerCycle " + from,
                    Refusal.BudgetSpent.class, Refusal.BudgetExceeded.class, Refusal.BudgetWouldPass.class));
        }
        if (churn.maxEvictionsPerQueuePerCycle() > 0 && holdsAny(why, Refusal.QueueBudgetSpent.class, Refusal.QueueBudgetWouldPass.class)) {
            int from = churn.maxEvictionsPerQueuePerCycle();
            int running = (int) q.state().pods().stream().filter(PodSpec::isBound).count();
            Found f = smallest(Math.max(1, running), k -> budget("churn.maxEvictionsPerQueuePerCycle", from, from + k, false));
            if (f != null) add(found, f, Cost.Tier.POLICY, 1, blocks(why, "churn.maxEvictionsPerQueuePerCycle " + from,
                    Refusal.QueueBudgetSpent.class, Refusal.QueueBudgetWouldPass.class));
        }
        if (churn.hysteresis() && noPlan) {
            singles.add(churnChange("churn.hysteresis", "true", "false",
                    c -> new PolicySettings.Churn(c.minRuntimeSeconds(), c.minRuntimeAgainstPreemption(), c.maxEvictionsPerCycle(),
                            c.maxEvictionsPerQueuePerCycle(), false)));
        }
        if (churn.minRuntimeAgainstPreemption() && protectedVictims) {
            singles.add(churnChange("churn.minRuntimeAgainstPreemption", "true", "false",
                    c -> new PolicySettings.Churn(c.minRuntimeSeconds(), false, c.maxEvictionsPerCycle(),
                            c.maxEvictionsPerQueuePerCycle(), c.hysteresis())));
        }
        PolicySettings.Victims v = s.victims();
        if (v.nonPreemptibleFrom() != null && (protectedVictims || noPlan)) {
            singles.add(victimsChange("victims.nonPreemptibleFrom", String.valueOf(v.nonPreemptibleFrom()), "off",
                    x -> new PolicySettings.Victims(x.order(), x.breakingGang(), x.gangBelowFloor(), null)));
        }
        for (BreakingGang b : BreakingGang.values()) {
            if (b == v.breakingGang() || !noPlan) continue;
            singles.add(victimsChange("victims.breakingGang", v.breakingGang().word(), b.word(),
                    x -> new PolicySettings.Victims(x.order(), b, x.gangBelowFloor(), x.nonPreemptibleFrom())));
        }
        for (GangBelowFloor g : GangBelowFloor.values()) {
            if (g == v.gangBelowFloor() || !noPlan) continue;
            singles.add(victimsChange("victims.gangBelowFloor", v.gangBelowFloor().word(), g.word(),
                    x -> new PolicySettings.Victims(x.order(), x.breakingGang(), g, x.nonPreemptibleFrom())));
        }
        tryEach(singles, why, found);
        if (found.size() == before) notFound.add("policy: no single eviction setting changed starts it");
    }

    private void tryEach(List<Change> changes, Refusal why, List<Remedy> found) {
        for (Change c : changes) {
            Run r = check(c);
            if (r.started) {
                found.add(new Remedy(c, Cost.Tier.POLICY, 1, blocks(why, ((Change.SettingChanged) c).setting() + " "
                        + ((Change.SettingChanged) c).from(), Refusal.Attempted.class), r.outcome()));
            }
        }
    }

    private static String words(List<EvictionAction> actions) {
        List<String> w = new ArrayList<>();
        for (EvictionAction a : actions) w.add(a.name().toLowerCase(java.util.Locale.ROOT));
        return "[" + String.join(", ", w) + "]";
    }

    private static Change minRuntime(PolicySettings.Churn from, long seconds) {
        return churnChange("churn.minRuntime", from.minRuntimeSeconds() + "s", seconds + "s",
                c -> new PolicySettings.Churn(seconds, c.minRuntimeAgainstPreemption(), c.maxEvictionsPerCycle(),
                        c.maxEvictionsPerQueuePerCycle(), c.hysteresis()));
    }

    private static Change budget(String setting, int from, int to, boolean perCycle) {
        return churnChange(setting, String.valueOf(from), String.valueOf(to),
                c -> new PolicySettings.Churn(c.minRuntimeSeconds(), c.minRuntimeAgainstPreemption(),
                        perCycle ? to : c.maxEvictionsPerCycle(), perCycle ? c.maxEvictionsPerQueuePerCycle() : to, c.hysteresis()));
    }

    private static Change churnChange(String setting, String from, String to, UnaryOperator<PolicySettings.Churn> how) {
        return new Change.SettingChanged(setting, from, to, p -> new PolicySettings(how.apply(p.churn()), p.orders(),
                p.victims(), p.scoring(), p.shares(), p.cycle(), p.limits(), p.topology()));
    }

    private static Change victimsChange(String setting, String from, String to, UnaryOperator<PolicySettings.Victims> how) {
        return new Change.SettingChanged(setting, from, to, p -> new PolicySettings(p.churn(), p.orders(),
                how.apply(p.victims()), p.scoring(), p.shares(), p.cycle(), p.limits(), p.topology()));
    }

    // ---- the job's own constraints -------------------------------------------------------------------------------------

    private void ownConstraints(Refusal why, List<Remedy> found, List<String> notFound) {
        List<Change> tries = new ArrayList<>();
        if (group != null && group.networkTopology() != null) {
            // Gentlest first: a wider tier (still one domain), then soft (one domain preferred), then none.
            NetworkTopology t = group.networkTopology();
            if (t.level() == null && t.hard()) {
                for (int tier = t.highestTier() + 1; tier <= maxTier(); tier++) {
                    tries.add(new Change.TopologyRelaxed(job, t, NetworkTopology.tiers(true, tier)));
                }
            }
            if (t.hard()) tries.add(new Change.TopologyRelaxed(job, t, new NetworkTopology(false, t.highestTier(), t.level())));
            tries.add(new Change.TopologyRelaxed(job, t, null));
        }
        PodSpec p = pending.isEmpty() ? null : pending.get(0);
        if (p != null) {
            for (String a : List.of(NetworkTopology.KUEUE_REQUIRED, NetworkTopology.KUEUE_PREFERRED)) {
                if (p.annotations().containsKey(a)) tries.add(new Change.TopologyAnnotationDropped(job, a, p.annotations().get(a)));
            }
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(p.nodeSelector()).entrySet()) {
                tries.add(new Change.SelectorDropped(job, e.getKey(), e.getValue()));
            }
            for (Terms.Term t : Terms.of(p.placement())) tries.add(new Change.TermDropped(job, t.what(), t.index(), t.words()));
            for (Taint t : blockingTaints(p)) tries.add(new Change.TaintTolerated(job, t));
        }
        if (tries.isEmpty()) {
            notFound.add("job spec: " + job + " states no topology, node selector, required affinity or spread to relax,"
                    + " and no taint keeps it off a node it could use");
            return;
        }
        int before = found.size();
        int usableNow = usableNodes().size();
        for (Change c : tries) {
            // A node-level constraint dropped must widen the nodes the pods may use, or it cannot help.
            if (c instanceof Change.SelectorDropped || c instanceof Change.TaintTolerated
                    || c instanceof Change.TermDropped t && t.what().equals(Terms.NODE_AFFINITY)) {
                if (usableAfter(c) <= usableNow) continue;
            }
            Run r = check(c);
            if (!r.started) continue;
            // The gentlest relaxation of the topology that works is enough: drop the wider ones.
            if (c instanceof Change.TopologyRelaxed && found.stream().anyMatch(x -> x.change() instanceof Change.TopologyRelaxed)) continue;
            found.add(new Remedy(c, Cost.Tier.OWN_CONSTRAINT, 1, blocks(why, constraintWords(c), Refusal.NoNodeFits.class,
                    Refusal.NoDomainTried.class, Refusal.NoDomainClose.class, Refusal.NoDomainAllowed.class,
                    Refusal.NoSingleDomain.class, Refusal.NoNodeSuits.class), r.outcome()));
        }
        if (found.size() == before) notFound.add("job spec: relaxing any one of its " + tries.size() + " constraints does not start it");
    }

    /** How many nodes every pending pod of the job may use once {@code c} is made (selectors, affinity, taints). */
    private int usableAfter(Change c) {
        ClusterSnapshot one = c.apply(new ClusterSnapshot(List.of(), pending, List.of(), List.of(), List.of()));
        int n = 0;
        for (NodeSpec node : q.state().nodes()) {
            boolean all = true;
            for (PodSpec p : one.pods()) all &= Explainer.passesPredicates(p, node);
            if (all) n++;
        }
        return n;
    }

    private static String constraintWords(Change c) {
        return c.words();
    }

    private int maxTier() {
        int max = 1;
        for (dev.arbiter.model.HyperNodeSpec h : q.state().hyperNodes()) max = Math.max(max, h.tier());
        return Math.max(max, q.rules().settings().topology().levels().size());
    }

    /** Taints (NoSchedule, NoExecute) the pod does not tolerate, on nodes that pass everything else. */
    private List<Taint> blockingTaints(PodSpec p) {
        Set<Taint> out = new LinkedHashSet<>();
        PodSpec tolerant = Change.copy(p, p.nodeSelector(), List.of(new dev.arbiter.model.Toleration(null, "Exists", null, null)),
                p.annotations(), p.placement());
        for (NodeSpec n : q.state().nodes()) {
            if (Explainer.passesPredicates(p, n) || !Explainer.passesPredicates(tolerant, n)) continue;
            for (Taint t : n.taints()) {
                if (!"NoSchedule".equals(t.effect()) && !"NoExecute".equals(t.effect())) continue;
                if (p.tolerations().stream().noneMatch(tol -> tol.tolerates(t))) out.add(t);
            }
            if (out.size() >= 4) break;
        }
        return new ArrayList<>(out);
    }

    // ---- running jobs ending -----------------------------------------------------------------------------------------

    private void jobsEnding(Refusal why, Run today, List<Remedy> found, List<String> notFound) {
        List<NodeSpec> usable = new ArrayList<>();
        for (NodeSpec n : q.state().nodes()) if (usableByAll(n)) usable.add(n);
        if (usable.isEmpty()) {
            notFound.add("jobs end: no node passes the selectors, affinity and taints of " + job + "'s pods");
            return;
        }
        Map<String, Resources> free = freeOn(usable);
        // The running jobs on the usable nodes, and what each holds on each.
        Map<String, Map<String, Resources>> heldOn = new HashMap<>(); // node -> job -> held
        Map<String, List<PodSpec>> podsOf = new LinkedHashMap<>();
        for (PodSpec p : q.state().pods()) {
            if (!p.isBound() || p.terminating() || p.finished() || p.jobId().equals(job)) continue;
            podsOf.computeIfAbsent(p.jobId(), k -> new ArrayList<>()).add(p);
            if (!free.containsKey(p.nodeName())) continue;
            heldOn.computeIfAbsent(p.nodeName(), k -> new HashMap<>()).merge(p.jobId(), p.requests(), Resources::add);
        }
        Map<String, Long> costOf = new HashMap<>();
        for (Map.Entry<String, List<PodSpec>> e : podsOf.entrySet()) {
            Resources held = Resources.NONE;
            for (PodSpec p : e.getValue()) held = held.add(p.requests());
            costOf.put(e.getKey(), Cost.lost(held.without("pods"), priorityOf(e.getValue().get(0))));
        }
        // Choose, node by node, the cheapest jobs that make room for one more pod, until the pending pods fit on paper.
        LinkedHashSet<String> chosen = new LinkedHashSet<>();
        List<String> order = new ArrayList<>();
        int rounds = 0;
        while (placeable(free) < needed - boundAtStart && rounds++ < 256) {
            List<String> cheapest = null;
            long cheapestCost = Long.MAX_VALUE;
            for (NodeSpec n : usable) {
                Resources room = free.get(n.name());
                if (podShape.fitsIn(room)) continue;
                Map<String, Resources> here = heldOn.getOrDefault(n.name(), Map.of());
                List<String> jobs = new ArrayList<>(here.keySet());
                jobs.removeAll(chosen);
                jobs.sort(Comparator.comparingLong((String j) -> costOf.get(j)).thenComparing(j -> j));
                List<String> take = new ArrayList<>();
                long cost = 0;
                for (String j : jobs) {
                    if (podShape.fitsIn(room)) break;
                    take.add(j);
                    cost += costOf.get(j);
                    room = room.add(here.get(j));
                }
                if (!podShape.fitsIn(room) || take.isEmpty()) continue;
                if (cost < cheapestCost) {
                    cheapestCost = cost;
                    cheapest = take;
                }
            }
            if (cheapest == null) break;
            for (String j : cheapest) {
                chosen.add(j);
                order.add(j);
                for (PodSpec p : podsOf.get(j)) free.computeIfPresent(p.nodeName(), (k, r) -> r.add(p.requests()));
            }
        }
        if (chosen.isEmpty() || placeable(free) < needed - boundAtStart) {
            notFound.add("jobs end: ending the jobs on the nodes " + job + " may use would not make room for it");
            return;
        }
        Run r = check(ended(new ArrayList<>(chosen), podsOf, why));
        if (!r.started) {
            notFound.add("jobs end: ending " + chosen.size() + " job(s) that make room on paper does not start it");
            return;
        }
        // Add back, most expensive first, each job the pending one starts without.
        List<String> byCost = new ArrayList<>(order);
        byCost.sort(Comparator.comparingLong((String j) -> costOf.get(j)).reversed());
        for (String j : byCost) {
            if (chosen.size() == 1) break;
            List<String> without = new ArrayList<>(chosen);
            without.remove(j);
            Run rr = check(ended(without, podsOf, why));
            if (rr.started) {
                chosen.remove(j);
                r = rr;
            }
        }
        Change.JobsEnded c = ended(new ArrayList<>(chosen), podsOf, why);
        long cost = 0;
        for (String j : chosen) cost += costOf.get(j);
        found.add(new Remedy(c, Cost.Tier.JOBS_END, cost, blocks(why, "no node has room for " + job,
                Refusal.GangShort.class, Refusal.NoNodeFits.class), r.outcome()));
    }

    private Change.JobsEnded ended(List<String> jobs, Map<String, List<PodSpec>> podsOf, Refusal why) {
        Map<String, String> queueOf = new HashMap<>();
        for (PodGroupSpec g : q.state().podGroups()) queueOf.put(g.key(), g.queue());
        String eviction = evictionWords(why);
        List<EndedJob> out = new ArrayList<>();
        List<String> sorted = new ArrayList<>(jobs);
        java.util.Collections.sort(sorted);
        for (String j : sorted) {
            List<PodSpec> ps = podsOf.get(j);
            Resources held = Resources.NONE;
            for (PodSpec p : ps) held = held.add(p.requests());
            String qn = queueOf.getOrDefault(j, ps.get(0).annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT));
            out.add(new EndedJob(j, qn, priorityOf(ps.get(0)), ps.size(), held, eviction));
        }
        return new Change.JobsEnded(out);
    }

    /** What today's policy says of evicting for the job: the eviction actions' refusals, worded. */
    private static String evictionWords(Refusal why) {
        List<String> parts = new ArrayList<>();
        collect(why, Refusal.AllProtected.class, parts);
        if (parts.isEmpty()) collect(why, Refusal.NoPlan.class, parts);
        if (parts.isEmpty()) collect(why, Refusal.Attempted.class, parts);
        return parts.isEmpty() ? "today's policy tries no eviction for it"
                : "not evicted for it today: " + String.join("; ", new LinkedHashSet<>(parts));
    }

    private boolean usableByAll(NodeSpec n) {
        for (PodSpec p : pending) if (!Explainer.passesPredicates(p, n)) return false;
        return true;
    }

    /** Free room per node of {@code nodes}: allocatable less what bound pods (terminating too) hold. */
    private Map<String, Resources> freeOn(List<NodeSpec> nodes) {
        Map<String, Resources> free = new LinkedHashMap<>();
        for (NodeSpec n : nodes) free.put(n.name(), n.allocatable());
        for (PodSpec p : q.state().pods()) {
            if (!p.isBound() || p.finished()) continue;
            free.computeIfPresent(p.nodeName(), (k, r) -> r.subtract(p.requests()));
        }
        return free;
    }

    /** How many of the pending pods fit on {@code free}, first fit (on paper: capacity only). */
    private int placeable(Map<String, Resources> free) {
        Map<String, Resources> room = new HashMap<>(free);
        int n = 0;
        for (PodSpec p : pending) {
            for (Map.Entry<String, Resources> e : room.entrySet()) {
                if (p.requests().fitsIn(e.getValue())) {
                    e.setValue(e.getValue().subtract(p.requests()));
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    private int priorityOf(PodSpec p) {
        if (p.priority() != null) return p.priority();
        PriorityClassSpec def = null;
        for (PriorityClassSpec c : q.state().priorityClasses()) {
            if (c.name().equals(p.priorityClassName())) return c.value();
            if (c.globalDefault()) def = c;
        }
        return def == null ? 0 : def.value();
    }

    // ---- hardware ------------------------------------------------------------------------------------------------------

    private void hardware(Refusal why, List<Remedy> found, List<String> notFound) {
        NodeSpec like = null;
        int likeHolds = 0;
        for (NodeSpec n : q.state().nodes()) {
            if (n.unschedulable() || !usableByAll(n)) continue;
            int holds = holds(n.allocatable());
            if (holds > likeHolds || holds == likeHolds && holds > 0 && like != null && n.name().compareTo(like.name()) < 0) {
                like = n;
                likeHolds = holds;
            }
        }
        Map<String, String> labels;
        List<Taint> taints;
        Resources allocatable;
        String likeName;
        if (like != null) {
            labels = like.labels();
            taints = like.taints();
            allocatable = like.allocatable();
            likeName = like.name();
        } else {
            // No node the pods may use holds one of them: a node of the pod's shape, labelled as its selector asks.
            PodSpec p = pending.get(0);
            labels = new LinkedHashMap<>(p.nodeSelector());
            taints = List.of();
            allocatable = podShape.add(Resources.of("pods", 110)).subtract(Resources.of("pods", 1));
            likeName = null;
            if (holds(allocatable) == 0 || p.placement().nodeAffinity().required() != null) {
                notFound.add("hardware: no node the pods of " + job + " may use holds one of them, and their required node"
                        + " affinity leaves no shape to copy");
                return;
            }
            likeHolds = holds(allocatable);
        }
        int short_ = needed - boundAtStart - placeable(freeOn(usableNodes()));
        int atLeast = Math.max(1, (short_ + likeHolds - 1) / likeHolds);
        int most = Math.max(atLeast, (pending.size() + likeHolds - 1) / likeHolds);
        Map<String, String> l = labels;
        Resources a = allocatable;
        String ln = likeName;
        Found f = null;
        Run r = check(new Change.NodesAdded(atLeast, ln, l, taints, a));
        if (r.started) {
            f = new Found(new Change.NodesAdded(atLeast, ln, l, taints, a), r);
        } else if (most > atLeast) {
            f = smallest(most - atLeast, k -> new Change.NodesAdded(atLeast + k, ln, l, taints, a));
        }
        if (f == null) {
            notFound.add("hardware: adding up to " + most + " node(s) " + (likeName == null ? "of the pods' shape" : "like " + likeName)
                    + " does not start it");
            return;
        }
        Change.NodesAdded c = (Change.NodesAdded) f.change();
        add(found, f, Cost.Tier.HARDWARE, c.count() * Cost.weight(a.without("pods")),
                blocks(why, "no node has room for " + job, Refusal.GangShort.class, Refusal.NoNodeFits.class));
    }

    private List<NodeSpec> usableNodes() {
        List<NodeSpec> out = new ArrayList<>();
        for (NodeSpec n : q.state().nodes()) if (usableByAll(n)) out.add(n);
        return out;
    }

    /** How many pods of the job's largest shape {@code allocatable} holds (empty). */
    private int holds(Resources allocatable) {
        int n = 0;
        Resources room = allocatable;
        while (n < 1024 && podShape.fitsIn(room) && !podShape.isEmpty()) {
            room = room.subtract(podShape);
            n++;
        }
        return n;
    }

    // ---- words ---------------------------------------------------------------------------------------------------------

    /**
     * What blocks the job today that a change removes: the parts of the cycle's refusal of the given kinds, worded;
     * {@code fallback} when the refusal holds none (the limit itself, named).
     */
    @SafeVarargs
    private static String blocks(Refusal why, String fallback, Class<? extends Refusal>... kinds) {
        List<String> parts = new ArrayList<>();
        if (why != null) for (Class<? extends Refusal> k : kinds) collect(why, k, parts);
        return parts.isEmpty() ? fallback : String.join("; ", new LinkedHashSet<>(parts));
    }

    private static void collect(Refusal r, Class<? extends Refusal> kind, List<String> out) {
        if (r == null) return;
        if (kind.isInstance(r)) {
            out.add(ReasonWords.words(r));
            return;
        }
        if (r instanceof Refusal.Also a) {
            collect(a.first(), kind, out);
            collect(a.then(), kind, out);
        } else if (r instanceof Refusal.Attempted a) {
            collect(a.why(), kind, out);
        } else if (r instanceof Refusal.Because b) {
            collect(b.what(), kind, out);
            collect(b.cause(), kind, out);
        } else if (r instanceof Refusal.NoNodeSuits n) {
            collect(n.why(), kind, out);
        } else if (r instanceof Refusal.NoDomainTried d) {
            collect(d.but(), kind, out);
        } else if (r instanceof Refusal.NoPlan p) {
            collect(p.closest(), kind, out);
        }
    }

    @SafeVarargs
    private static boolean holdsAny(Refusal why, Class<? extends Refusal>... kinds) {
        if (why == null) return false;
        for (Class<? extends Refusal> k : kinds) {
            List<String> parts = new ArrayList<>();
            collect(why, k, parts);
            if (!parts.isEmpty()) return true;
        }
        return false;
    }

}
