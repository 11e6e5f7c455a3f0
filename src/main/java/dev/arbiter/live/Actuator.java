package dev.arbiter.live;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer: hands one cycle's {@link CycleResult} to the writers, by output kind, and returns at once.
 *
 * <ol>
 *   <li>Evictions ({@link Evictor}), a preemptor's victims all or none, and bindings ({@link Binder}) on a bounded
 *       pool of concurrent binders; a refused victim is passed over by the next cycles ({@link EvictionRefusals}); each pod
 *       is assumed (leaving, or on its node) before its call is sent, so the next cycle never waits on the API.
 *       Bindings go gang by gang, all-or-nothing; a gang whose rollback failed is {@linkplain StrandedGangs reviewed}
 *       every cycle until it is whole or gone.</li>
 *   <li>PodGroup and Queue status ({@link StatusWriter}), each written only when it differs from both what the object
 *       carries and what was last written, counted from what the API server holds ({@link StatusViews#members}); a
 *       gang's status waits for its bindings (and is not written if they were rolled back: the next cycle reports
 *       it), and a gang with a binding in flight from an earlier cycle gets none.</li>
 *   <li>Why a pod waits: PodScheduled=False (Unschedulable) on it when the message changes, and events
 *       ({@link EventRecorder}, asynchronous, aggregated, rate-limited): Scheduled, FailedScheduling (a stable message,
 *       repeated unchanged only after the pod's backoff), Preempted/Reclaimed naming the preemptor and the rule,
 *       EvictionRefused, Unreadable.</li>
 * </ol>
 * Every call it makes is listed in {@link ApiPermissions}. {@link #execute} is called by one scheduling loop at a
 * time; the writers run concurrently with it and with each other.
 */
public final class Actuator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Actuator.class);
    private static final Duration DEFAULT_QUEUE_RETRY = Duration.ofSeconds(30);

    /** What one cycle's writes did, for logs and tests. */
    public record Report(int bound, int bindFailures, int evicted, int evictionsRefused, int evictionFailures,
                         int rolledBack, int statusWrites, int events) {}

    /** How the writers are sized: concurrent binders, status writer threads, request timeout, event limits. */
    public record Writers(int binders, int statusThreads, Duration requestTimeout, EventRecorder.Limits events) {
        public Writers {
            if (binders < 1 || statusThreads < 1) throw new IllegalArgumentException("writer pools need at least one thread");
        }

        /** 32 binders, 4 status writers, 10 s per request, kube-scheduler's event limits. */
        public static Writers standard() {
            return new Writers(32, 4, Duration.ofSeconds(10), EventRecorder.Limits.standard());
        }

        public Writers withBinders(int n) {
            return new Writers(n, statusThreads, requestTimeout, events);
        }

        public Writers withEvents(double qps, int burst) {
            return new Writers(binders, statusThreads, requestTimeout, new EventRecorder.Limits(qps, burst, events.queueSize()));
        }
    }

    private final ApiCalls api;
    private final ClusterCache cache;
    private final AssumeCache assumed;
    private final Metrics metrics;
    private final Set<String> schedulerNames;
    private final ThreadPoolExecutor pool;
    private final Evictor evictor;
    private final Binder binder;
    private final StatusWriter status;
    private final EventRecorder events;
    private final StrandedGangs stranded;
    /** Victims whose eviction the API server refused, passed over by the next cycles while their backoff runs. */
    private final EvictionRefusals refusals = new EvictionRefusals();
    /** Binds, evictions and status writes that failed, per object: the next one waits (1 s doubling to 5 min). */
    private final FailedWrites failedWrites;
    // Read and written by the cycle; cleared by abandonWrites() on the leader-election thread.
    private final Map<String, Reported> reportedUnschedulable = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, String> reportedUnreadable = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicBoolean creatingDefaultQueue = new AtomicBoolean();
    private volatile long nextDefaultQueueAttempt;
    private volatile java.util.function.LongSupplier clock = System::nanoTime;

    /**
     * What a waiting pod was last told: its FailedScheduling message, and when the same message may be repeated (the
     * pod's backoff, kube-scheduler's: 1 s, doubling up to 10 s).
     */
    private record Reported(String message, long repeatAtNanos, long backoffNanos) {}

    static final Duration REPEAT_INITIAL = Duration.ofSeconds(1);
    static final Duration REPEAT_MAX = Duration.ofSeconds(10);

    public Actuator(ApiCalls api, ClusterCache cache, AssumeCache assumed, Metrics metrics, Backoff backoff,
                    Set<String> schedulerNames, String component, String instance, Writers writers) {
        this.api = api;
        this.cache = cache;
        this.assumed = assumed;
        this.metrics = metrics;
        this.schedulerNames = Set.copyOf(schedulerNames);
        this.stranded = new StrandedGangs(this.schedulerNames::contains);
        this.failedWrites = new FailedWrites(metrics);
        this.pool = new ThreadPoolExecutor(writers.binders(), writers.binders(), 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), daemon("arbiter-binder"));
        pool.allowCoreThreadTimeOut(true);
        this.events = new EventRecorder(api, metrics, component, instance, writers.events());
        this.evictor = new Evictor(api, assumed, metrics, backoff, pool, this::podEvent, refusals, failedWrites, new Evictor.Victims() {
            @Override
            public String uid(String pod) {
                return uidOf(pod);
            }

            @Override
            public Map<String, String> labels(String pod) {
                PodSpec p = cache.pod(pod);
                return p == null ? null : p.labels();
            }
        });
        this.binder = new Binder(api, assumed, cache, metrics, backoff, pool, evictor, failedWrites, this::podEvent);
        this.status = new StatusWriter(api, backoff, writers.statusThreads(), failedWrites);
        metrics.writers(() -> pool.getQueue().size() + pool.getActiveCount(), stranded::size, events::waiting);
        metrics.refusedVictims(() -> refusedVictims().size());
    }

    /**
     * Hands {@code result}, decided on {@code snapshot}, to the writers and returns at once; the returned handle
     * completes when they have finished. Never throws for an API error; the handle counts them.
     */
    public CycleWrites execute(ClusterSnapshot snapshot, CycleResult result) {
        // 0. Gangs bound below minMember that never ran whole (a failed rollback, a shutdown or lost Lease mid-gang, here
        //    or in another replica): after their grace cycles, evict their bound members, bind none of them.
        StrandedGangs.Plan strandedPlan = stranded.review(snapshot, cache::ranWhole,
                assumed::isEvicting);
        List<Eviction> evictions = distinctEvictions(result.evictions());
        Map<String, List<Binding>> gangs = gangs(result.bindings(), strandedPlan.holdBindings());
        int issued = 0;
        for (List<Binding> g : gangs.values()) issued += g.size();
        CycleWrites writes = new CycleWrites(result.cycle(), issued, evictions.size());

        // 1. Evictions first: pipelined gangs wait for them, bindings do not depend on them.
        for (String member : strandedPlan.evict()) {
            if (!failedWrites.waiting("evict", member)) writes.track(evictor.rollBack(member, "(stranded gang)", writes));
        }
        // A preemptor's victims go together, all or none (Evictor#evictPlan); a plan with a victim whose last eviction
        // failed waits with it.
        for (List<Eviction> plan : plans(evictions).values()) {
            if (plan.stream().noneMatch(e -> failedWrites.waiting("evict", e.pod()))) writes.track(evictor.evictPlan(plan, writes));
        }
        // 2. Bindings, gang by gang, all-or-nothing.
        Map<String, CompletableFuture<Boolean>> inFlight = new HashMap<>();
        Map<String, List<String>> boundBefore = boundBefore(snapshot, gangs.keySet());
        for (Map.Entry<String, List<Binding>> gang : gangs.entrySet()) {
            CompletableFuture<Boolean> bound = binder.bindGang(gang.getKey(), gang.getValue(),
                    boundBefore.getOrDefault(gang.getKey(), List.of()), writes);
            inFlight.put(gang.getKey(), bound);
            writes.track(bound);
        }
        // 3. Status, from what the API server holds: a gang being bound gets its status once its bindings were
        //    accepted; one with bindings still in flight from an earlier cycle waits for that cycle's write.
        Map<String, List<String>> members = members(snapshot, result);
        Set<String> queueNames = queueNames(snapshot);
        for (PodGroupStatus unhinted : result.podGroups()) {
            PodGroupStatus s = withQueueSuggestion(unhinted, queueNames);
            List<String> m = members.getOrDefault(s.podGroup(), List.of());
            CompletableFuture<Boolean> bound = inFlight.get(s.podGroup());
            if (bound == null) writes.track(writePodGroupStatus(s, m, writes));
            else writes.track(bound.thenCompose(ok -> ok ? writePodGroupStatus(s, m, writes)
                    : CompletableFuture.completedFuture(false)));
        }
        Map<String, Integer> pods = allocatedPods(snapshot, result);
        for (QueueStatus q : result.queues()) writeQueueStatus(q, pods.getOrDefault(q.queue(), 0), writes);
        // The queues' decayed past usage sampled this cycle, on the Queue, where a restarted scheduler reads it back.
        result.usage().forEach((queue, u) -> {
            if (cache.hasQueue(queue)) writes.track(status.queueUsage(queue, u, writes, cache::usageWritten));
        });
        // 4. Why the rest still waits, and what could not be read.
        reportUnschedulable(snapshot, result, writes);
        reportUnreadable(writes);
        reportMistakes(snapshot, result, queueNames, writes);
        writeEstimatedStarts(result, writes);
        // 5. Forget what was written for objects that are gone.
        status.prune(cache::hasPodGroup, cache::hasQueue);
        failedWrites.prune();
        ensureDefaultQueue();
        return writes.seal();
    }

    /** Where the latest start-time forecast comes from (live estimates on), or null (off: nothing is written). */
    private volatile java.util.function.Supplier<dev.arbiter.forecast.Forecast> estimates;

    /** Each cycle writes pending PodGroups' estimated starts from the latest forecast {@code latest} gives. */
    void estimatesFrom(java.util.function.Supplier<dev.arbiter.forecast.Forecast> latest) {
        estimates = latest;
    }

    /**
     * Each Volcano PodGroup of the cycle shows {@code arbiter.dev/estimated-start} while it is pending and the latest
     * forecast gives it a start, and not otherwise (started, bound this cycle, or none); written only when that differs
     * from what the object shows and from what was last written. Nothing at all while estimates are off or before the
     * first forecast.
     */
    private void writeEstimatedStarts(CycleResult result, CycleWrites writes) {
        java.util.function.Supplier<dev.arbiter.forecast.Forecast> source = estimates;
        dev.arbiter.forecast.Forecast f = source == null ? null : source.get();
        if (f == null) return;
        Set<String> boundNow = new HashSet<>();
        for (Binding b : result.bindings()) {
            PodSpec p = cache.pod(b.pod());
            if (p != null) boundNow.add(p.jobId());
        }
        for (PodGroupStatus s : result.podGroups()) {
            String key = s.podGroup();
            if (!cache.hasVolcanoPodGroup(key)) continue;
            dev.arbiter.forecast.StartEstimate e = f.of(key);
            String desired = e != null && e.isKnown() && s.running() == 0 && !boundNow.contains(key)
                    ? dev.arbiter.forecast.Forecast.annotationValue(e.at()) : null;
            if (java.util.Objects.equals(desired, cache.estimatedStart(key))) {
                status.estimatedStartShows(key);
                continue;
            }
            if ((desired == null ? "" : desired).equals(status.writtenEstimatedStart(key))) continue;
            writes.track(status.podGroupEstimatedStart(key, desired, writes));
        }
    }

    /**
     * The victims the API server refused, whose backoff runs now, by pod: the next snapshot carries them
     * ({@link ClusterSnapshot#refusedVictims}), so the victim search takes others.
     */
    public Map<String, dev.arbiter.model.EvictionRefusal> refusedVictims() {
        return refusals.active(cache::pod, this::uidOf);
    }

    /** The uid of {@code pod} as the cache shows it, or null when it is gone. */
    private String uidOf(String pod) {
        ClusterCache.PodIdentity id = cache.podIdentity(pod);
        return id == null ? null : id.uid();
    }

    /** The failed writes' table, for tests that move its clock. */
    FailedWrites failedWrites() {
        return failedWrites;
    }

    /** The refused victims' table, for tests that move its clock. */
    EvictionRefusals refusals() {
        return refusals;
    }

    /** The evictions by the preemptor they make room for, in decision order. */
    private static Map<String, List<Eviction>> plans(List<Eviction> evictions) {
        Map<String, List<Eviction>> out = new LinkedHashMap<>();
        for (Eviction e : evictions) out.computeIfAbsent(e.forPodGroup(), k -> new ArrayList<>()).add(e);
        return out;
    }

    /** Each victim once, and not one already leaving. */
    private List<Eviction> distinctEvictions(List<Eviction> evictions) {
        Set<String> seen = new HashSet<>();
        List<Eviction> out = new ArrayList<>();
        for (Eviction e : evictions) if (seen.add(e.pod()) && !assumed.isEvicting(e.pod())) out.add(e);
        return out;
    }

    /**
     * Bindings grouped by PodGroup, in decision order; each pod once, none already assumed (a binding in flight) or
     * shown bound by the informer, none of a gang held back.
     */
    private Map<String, List<Binding>> gangs(List<Binding> bindings, Set<String> held) {
        Map<String, List<Binding>> out = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Binding b : bindings) {
            if (!seen.add(b.pod())) {
                LOG.atWarn().addKeyValue("pod", b.pod()).addKeyValue("node", b.node()).addKeyValue("rule", b.rule())
                        .log("the cycle bound {} twice; the second binding is ignored", b.pod());
                continue;
            }
            if (assumed.assumedNode(b.pod()) != null) continue;
            PodSpec p = cache.pod(b.pod());
            if (p != null && (p.isBound() || p.terminating())) continue; // the informer already shows it placed or leaving
            String group = p == null ? b.pod() : StatusViews.groupKey(p);
            if (held.contains(group)) continue;
            out.computeIfAbsent(group, k -> new ArrayList<>()).add(b);
        }
        // A gang with a member whose last binding failed waits, whole, until that member's wait ends.
        out.values().removeIf(gang -> gang.stream().anyMatch(b -> failedWrites.waiting("bind", b.pod())));
        return out;
    }

    /**
     * Per gang of {@code groups} that has never run whole ({@link StatusViews#ranWhole}), its members the snapshot
     * shows bound already (and not leaving or finished): a gang this cycle completes is all-or-nothing with them, so
     * a failed binding rolls them back too.
     */
    private Map<String, List<String>> boundBefore(ClusterSnapshot snapshot, Set<String> groups) {
        Map<String, List<String>> out = new HashMap<>();
        Set<String> neverWhole = new HashSet<>();
        for (String g : groups) if (cache.hasPodGroup(g) && !cache.ranWhole(g)) neverWhole.add(g);
        if (neverWhole.isEmpty()) return out;
        for (PodSpec p : snapshot.pods()) {
            if (!p.isBound() || p.terminating() || p.finished()) continue;
            String g = StatusViews.groupKey(p);
            if (!neverWhole.contains(g) || assumed.assumedNode(p.key()) != null) continue;
            out.computeIfAbsent(g, k -> new ArrayList<>()).add(p.key());
        }
        return out;
    }

    /** Creates the {@code default} Queue (weight 1, reclaimable) unless the cache holds one; off the cycle, retried. */
    void ensureDefaultQueue() {
        if (cache.hasQueue(QueueSpec.DEFAULT) || System.nanoTime() - nextDefaultQueueAttempt < 0
                || !creatingDefaultQueue.compareAndSet(false, true)) return;
        try {
            pool.execute(() -> {
                try {
                    VolcanoQueue q = new VolcanoQueue();
                    q.setMetadata(new ObjectMetaBuilder().withName(QueueSpec.DEFAULT).build());
                    VolcanoQueue.Spec spec = new VolcanoQueue.Spec();
                    spec.weight = 1;
                    spec.reclaimable = true;
                    q.setSpec(spec);
                    q.setApiVersion(VolcanoQueue.GROUP + "/v1beta1");
                    q.setKind("Queue");
                    ApiOutcome o = api.post("/apis/" + VolcanoQueue.GROUP + "/v1beta1/queues", q);
                    if (!o.ok() && o.code() != 409) {
                        nextDefaultQueueAttempt = System.nanoTime() + DEFAULT_QUEUE_RETRY.toNanos();
                        LOG.atWarn().addKeyValue("queue", QueueSpec.DEFAULT)
                                .log("cannot create the default Queue: {}; retrying in {} s", o, DEFAULT_QUEUE_RETRY.toSeconds());
                    }
                } finally {
                    creatingDefaultQueue.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            creatingDefaultQueue.set(false);
        }
    }

    // ---- status ---------------------------------------------------------------------------------------------

    /** The members (pod keys) of each gang whose status may be written: those with a PodGroup object. */
    private Map<String, List<String>> members(ClusterSnapshot snapshot, CycleResult result) {
        Map<String, List<String>> out = new HashMap<>();
        for (PodGroupStatus s : result.podGroups()) if (cache.hasPodGroup(s.podGroup())) out.put(s.podGroup(), new ArrayList<>());
        if (out.isEmpty()) return out;
        for (PodSpec p : snapshot.pods()) {
            List<String> m = out.get(StatusViews.groupKey(p));
            if (m != null) m.add(p.key());
        }
        return out;
    }

    /**
     * Pods allocated per queue, its subtree included, as Volcano counts them in {@code status.allocated.pods}: bound
     * or being bound (this cycle's bindings too), neither leaving nor finished.
     */
    private static Map<String, Integer> allocatedPods(ClusterSnapshot snapshot, CycleResult result) {
        Map<String, String> queueOf = new HashMap<>();
        for (PodGroupStatus s : result.podGroups()) queueOf.put(s.podGroup(), s.queue());
        Map<String, String> parentOf = new HashMap<>();
        for (QueueStatus q : result.queues()) if (q.parent() != null) parentOf.put(q.queue(), q.parent());
        Set<String> binding = new HashSet<>();
        for (Binding b : result.bindings()) binding.add(b.pod());
        Map<String, Integer> out = new HashMap<>();
        for (PodSpec p : snapshot.pods()) {
            if (p.terminating() || p.finished()) continue;
            if (!p.isBound() && !binding.contains(p.key())) continue;
            String q = queueOf.get(StatusViews.groupKey(p));
            Set<String> seen = new HashSet<>();
            for (; q != null && seen.add(q); q = parentOf.get(q)) out.merge(q, 1, Integer::sum);
        }
        return out;
    }

    /**
     * Writes a gang's status as the API server holds it ({@link StatusViews#members}): not while a binding of one of
     * its members is in flight (the cycle that issued it writes once it is answered), and only when it differs from
     * both what the object shows and what was last written.
     */
    private CompletableFuture<Boolean> writePodGroupStatus(PodGroupStatus s, List<String> memberKeys, CycleWrites writes) {
        String key = s.podGroup();
        if (!cache.hasPodGroup(key)) return CompletableFuture.completedFuture(false);
        List<PodSpec> pods = new ArrayList<>(memberKeys.size());
        for (String m : memberKeys) {
            if (assumed.isBindingInFlight(m)) return CompletableFuture.completedFuture(false);
            PodSpec p = cache.pod(m);
            if (p != null) pods.add(p);
        }
        StatusViews.Members counted = StatusViews.members(pods, assumed::isBindingAccepted);
        if (cache.isWorkloadPodGroup(key)) {
            // An upstream PodGroup is kube-scheduler's unless its pods name Arbiter: the condition is written only for
            // a group with a pod of Arbiter's (kube-scheduler writes its own groups', and none while no pod exists).
            if (pods.stream().noneMatch(p -> schedulerNames.contains(p.schedulerName()))) return CompletableFuture.completedFuture(false);
            return writeWorkloadCondition(s, counted, writes);
        }
        VolcanoPodGroup.Status current = cache.podGroupStatus(key);
        VolcanoPodGroup.Status desired = StatusViews.podGroup(s, counted, current, Instant.now());
        if (StatusViews.samePodGroup(desired, current)) {
            status.podGroupShows(key);
            return CompletableFuture.completedFuture(false);
        }
        if (StatusViews.samePodGroup(desired, status.writtenPodGroup(key))) return CompletableFuture.completedFuture(false);
        return status.podGroup(key, desired, writes);
    }

    /**
     * An upstream ({@code scheduling.k8s.io}) PodGroup's {@code PodGroupInitiallyScheduled} condition, as
     * kube-scheduler writes it ({@link StatusViews#initiallyScheduledCondition}), when it differs from what the object
     * shows and from what was last written.
     */
    private CompletableFuture<Boolean> writeWorkloadCondition(PodGroupStatus s, StatusViews.Members counted, CycleWrites writes) {
        String key = s.podGroup();
        List<Map<String, Object>> current = cache.workloadConditions(key);
        Map<String, Object> desired = StatusViews.initiallyScheduledCondition(s, counted, current, Instant.now());
        if (desired == null) return CompletableFuture.completedFuture(false);
        if (StatusViews.sameCondition(desired, StatusViews.sameType(current, desired))) {
            status.conditionShows(key);
            return CompletableFuture.completedFuture(false);
        }
        if (StatusViews.sameCondition(desired, status.writtenCondition(key))) return CompletableFuture.completedFuture(false);
        return status.workloadPodGroupCondition(key, desired, writes);
    }

    private void writeQueueStatus(QueueStatus q, int allocatedPods, CycleWrites writes) {
        if (!cache.hasQueue(q.queue())) return;
        VolcanoQueue.Status current = cache.queueStatus(q.queue());
        VolcanoQueue.Status desired = StatusViews.queue(q, allocatedPods, current);
        if (StatusViews.sameQueue(desired, current)) {
            status.queueShows(q.queue());
            return;
        }
        if (StatusViews.sameQueue(desired, status.writtenQueue(q.queue()))) return;
        writes.track(status.queue(q.queue(), desired, writes));
    }

    // ---- events ---------------------------------------------------------------------------------------------

    /**
     * Each pending pod of a waiting gang is told why, as kube-scheduler tells a pod it cannot place: its
     * {@code PodScheduled} condition is set False (reason Unschedulable, the gang's message) when the message changed,
     * and a FailedScheduling event carries the message when it changed or, unchanged, once the pod's backoff has
     * passed (the API server then counts the repeat on the same Event). The message is stable
     * ({@link StatusViews#unschedulableMessage}), so an unchanged situation is one Event whose count grows.
     */
    private void reportUnschedulable(ClusterSnapshot snapshot, CycleResult result, CycleWrites writes) {
        Map<String, String> messages = new HashMap<>();
        Set<String> queueNames = queueNames(snapshot);
        for (PodGroupStatus s : result.podGroups()) {
            String m = StatusViews.unschedulableMessage(withQueueSuggestion(s, queueNames));
            if (m != null) messages.put(s.podGroup(), m);
        }
        Set<String> binding = new HashSet<>();
        for (Binding b : result.bindings()) binding.add(b.pod());
        Set<String> waiting = new HashSet<>();
        long now = clock.getAsLong();
        if (!messages.isEmpty()) {
            for (PodSpec p : snapshot.pods()) {
                if (p.isBound() || p.terminating() || binding.contains(p.key()) || !schedulerNames.contains(p.schedulerName())
                        || p.finished()) continue;
                String message = messages.get(StatusViews.groupKey(p));
                if (message == null) continue;
                waiting.add(p.key());
                Reported before = reportedUnschedulable.get(p.key());
                if (before != null && message.equals(before.message())) {
                    if (now - before.repeatAtNanos() < 0) continue;
                    long backoff = Math.min(before.backoffNanos() * 2, REPEAT_MAX.toNanos());
                    reportedUnschedulable.put(p.key(), new Reported(message, now + backoff, backoff));
                } else {
                    reportedUnschedulable.put(p.key(), new Reported(message, now + REPEAT_INITIAL.toNanos(), REPEAT_INITIAL.toNanos()));
                    writes.track(status.podUnschedulable(p.key(), message, writes));
                }
                podEvent(p.key(), "Warning", "FailedScheduling", message, writes);
            }
        }
        for (String gone : reportedUnschedulable.keySet()) {
            if (!waiting.contains(gone)) {
                reportedUnschedulable.remove(gone);
                status.podPlaced(gone);
            }
        }
    }

    /** Tests: the clock (System.nanoTime by default) that times FailedScheduling repeats and the missing PodGroup grace. */
    void useClock(java.util.function.LongSupplier nanos) {
        this.clock = nanos;
    }

    private static Set<String> queueNames(ClusterSnapshot snapshot) {
        Set<String> names = new HashSet<>();
        for (dev.arbiter.model.QueueSpec q : snapshot.queues()) names.add(q.name());
        return names;
    }

    /** {@code s} with "(did you mean research?)" after the engine's "queue "reserch" does not exist", when one is meant. */
    private static PodGroupStatus withQueueSuggestion(PodGroupStatus s, Set<String> queues) {
        if (s.reason() == null || queues.contains(s.queue())) return s;
        String reason = dev.arbiter.manifest.Mistakes.withQueueSuggestion(s.reason(), s.queue(), queues);
        return reason.equals(s.reason()) ? s : new PodGroupStatus(s.podGroup(), s.queue(), s.phase(), s.minMember(), s.running(),
                s.pending(), reason, s.rule(), s.domain(), s.why());
    }

    /**
     * How long a pending pod naming a PodGroup that exists in no namespace waits before its LikelyMistake event: a
     * controller (Volcano's job controller, Kubeflow's, LWS) may create the pods a moment before their PodGroup.
     */
    static final Duration MISSING_GROUP_GRACE = Duration.ofSeconds(30);

    /** Pods naming a PodGroup that exists nowhere, by key: when a cycle first saw them so ({@link #clock}). */
    private final Map<String, Long> missingGroupSince = new java.util.concurrent.ConcurrentHashMap<>();

    /** What was said of each object by {@link #reportMistakes}: id → message. */
    private final Map<String, String> reportedMistakes = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A LikelyMistake Warning event, once per object and distinct message, counted in
     * {@code arbiter_manifest_notices_total{kind}}: an object's own annotation or label key that nearly names one Arbiter
     * reads; a pending pod naming a PodGroup that its namespace lacks but another has, or that no namespace has (only
     * once it waited {@link #MISSING_GROUP_GRACE}); a PodGroup, or a pending pod without one, naming a queue that does
     * not exist (a PodGroup's condition says so too, with the queue meant).
     */
    private void reportMistakes(ClusterSnapshot snapshot, CycleResult result, Set<String> queueNames, CycleWrites writes) {
        Set<String> now = new HashSet<>();
        for (ClusterCache.Mistake m : cache.mistakes().values()) {
            now.add(m.id());
            sayMistake(m.id(), m.involved(), "near-miss-key", m.message(), writes);
        }
        Map<String, Set<String>> byName = null;
        Map<String, Set<String>> namesIn = null;
        Set<String> groupKeys = new HashSet<>();
        for (PodGroupSpec g : snapshot.podGroups()) groupKeys.add(g.key());
        long nowNanos = clock.getAsLong();
        Set<String> missingGroup = new HashSet<>();
        for (PodSpec p : snapshot.pods()) {
            if (p.isBound() || p.terminating() || !schedulerNames.contains(p.schedulerName())) continue;
            String id = "Pod " + p.key();
            if (p.groupName() == null) {
                String q = p.annotations().get(PodSpec.QUEUE_ANNOTATION);
                if (q == null || q.isEmpty() || queueNames.contains(q)) continue;
                now.add(id + " queue");
                sayMistake(id + " queue", EventRecorder.Involved.pod(p.key(), uidOf(p.key())), "missing-queue",
                        dev.arbiter.manifest.Mistakes.missingQueue(id + ": metadata.annotations[" + PodSpec.QUEUE_ANNOTATION
                                + "]", q, queueNames, false), writes);
                continue;
            }
            if (groupKeys.contains(p.namespace() + "/" + p.groupName())) continue;
            if (byName == null) {
                byName = dev.arbiter.manifest.Mistakes.namespacesByPodGroupName(snapshot.podGroups());
                namesIn = dev.arbiter.manifest.Mistakes.podGroupNamesByNamespace(snapshot.podGroups());
            }
            String why = dev.arbiter.manifest.Mistakes.podGroupMissing(p, byName, namesIn);
            if (why == null) continue;
            String kind = "podgroup-in-other-namespace";
            if (!byName.containsKey(p.groupName())) {
                // A controller may create the pods before their PodGroup: say so only once the pod waited the grace.
                kind = "missing-podgroup";
                missingGroup.add(p.key());
                long since = missingGroupSince.computeIfAbsent(p.key(), k -> nowNanos);
                if (nowNanos - since < MISSING_GROUP_GRACE.toNanos()) continue;
            }
            now.add(id + " group");
            sayMistake(id + " group", EventRecorder.Involved.pod(p.key(), uidOf(p.key())), kind, id + ": " + why, writes);
        }
        missingGroupSince.keySet().retainAll(missingGroup);
        for (PodGroupSpec g : snapshot.podGroups()) {
            if (queueNames.contains(g.queue()) || !cache.hasPodGroup(g.key())) continue;
            String id = "PodGroup " + g.key();
            now.add(id + " queue");
            String[] ns = g.key().split("/", 2);
            String apiVersion = cache.isWorkloadPodGroup(g.key()) ? "scheduling.k8s.io/v1beta1" : "scheduling.volcano.sh/v1beta1";
            sayMistake(id + " queue", new EventRecorder.Involved(apiVersion, "PodGroup", ns[0], ns[1], null), "missing-queue",
                    dev.arbiter.manifest.Mistakes.missingQueue(id + ": spec.queue", g.queue(), queueNames), writes);
        }
        reportedMistakes.keySet().retainAll(now);
    }

    private void sayMistake(String id, EventRecorder.Involved involved, String kind, String message, CycleWrites writes) {
        if (message.equals(reportedMistakes.put(id, message))) return;
        metrics.notice(kind);
        if (events.record(involved, "Warning", "LikelyMistake", message)) writes.events.incrementAndGet();
    }

    /** An Unreadable Warning event on each object the cache cannot read, once per distinct problem. */
    private void reportUnreadable(CycleWrites writes) {
        Map<String, ClusterCache.Unreadable> now = cache.unreadable();
        for (ClusterCache.Unreadable u : now.values()) {
            if (u.message().equals(reportedUnreadable.get(u.id()))) continue;
            reportedUnreadable.put(u.id(), u.message());
            if (events.record(u.involved(), "Warning", "Unreadable", u.message())) writes.events.incrementAndGet();
        }
        reportedUnreadable.keySet().retainAll(now.keySet());
    }

    /** An event on pod {@code podKey} (its uid from the cache), counted in the cycle's writes when queued. */
    void podEvent(String podKey, String type, String reason, String message, CycleWrites writes) {
        if (events.record(EventRecorder.Involved.pod(podKey, uidOf(podKey)), type, reason, message)
                && writes != null) {
            writes.events.incrementAndGet();
        }
    }

    /**
     * Reports something about this scheduler itself (rules rejected, rules fallen back) as a Warning Event on its own
     * pod ({@code namespace/name}, the replica's identity), so {@code kubectl get events} shows it next to the
     * scheduler.
     */
    public void schedulerEvent(String schedulerPod, String reason, String message) {
        events.record(EventRecorder.Involved.pod(schedulerPod, null), "Warning", reason, message);
    }

    // ---- lifecycle ------------------------------------------------------------------------------------------

    /** Writes queued or running now (bindings, evictions, status). */
    public int pendingWrites() {
        return pool.getQueue().size() + pool.getActiveCount() + status.waiting();
    }

    /** Events queued, not yet sent. */
    int pendingEvents() {
        return events.waiting();
    }

    /** The objects whose last written status is remembered (pruned when they are deleted). */
    Set<String> rememberedStatuses() {
        return status.remembered();
    }

    int strandedGangs() {
        return stranded.size();
    }

    /**
     * Leadership lost: gangs in flight are cut off, calls in flight are cancelled and no new call is sent until
     * {@link #resumeWrites()} (the next leader decides again from its own informers), except the rollbacks of the gangs
     * cut off: what they had bound is evicted while the Lease, though lost, has not yet expired. A rollback that does
     * not get through leaves a half-bound gang that the next leader finds ({@link StrandedGangs}).
     */
    public void abandonWrites() {
        binder.cutOff("leadership lost");
        api.pause();
        status.cancel();
        reportedUnschedulable.clear();
        reportedUnreadable.clear();
    }

    /** A new term: writes are sent again. */
    public void resumeWrites() {
        api.resume();
    }

    /**
     * Shuts the writers down within {@code grace}. Gangs in flight first, so that none is left below minMember: they
     * get a quarter of the grace to bind whole, then are cut off (calls in flight cancelled) and rolled back in the
     * next quarter. Then other writes in flight get up to half of what is left, what remains is cancelled (a hanging
     * API server cannot hold the process), and the event sender flushes in the rest.
     */
    public void close(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        if (!binder.awaitGangs(grace.dividedBy(4))) {
            binder.cutOff("shutting down");
            api.cancelInFlight();
            if (!binder.awaitGangs(grace.dividedBy(4))) {
                LOG.warn("shutting down with {} gang(s) still binding or rolling back: the next leader finds what they left",
                        binder.gangsInFlight());
            }
        }
        pool.shutdown();
        try {
            pool.awaitTermination(Math.max(0, deadline - System.nanoTime()) / 2, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        api.close();
        pool.shutdownNow();
        status.close();
        long left = Math.max(0, deadline - System.nanoTime());
        events.close(Duration.ofNanos(Math.min(left, Duration.ofSeconds(2).toNanos())));
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
