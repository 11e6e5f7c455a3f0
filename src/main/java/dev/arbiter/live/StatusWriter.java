package dev.arbiter.live;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PodGroup and Queue status, and the {@code PodScheduled} condition of pods Arbiter could not place, written off the
 * decision loop by a few writer threads. The cycle computes the status an object should carry and hands it over only
 * when it differs from what the object shows and from what was last written (the informer may lag); a newer status
 * for the same object replaces one still waiting, so a slow API server costs at most one write per object, not one
 * per cycle.
 *
 * <p>One request per write: a PodGroup's status goes through the {@code status} subresource until a 404 there, with
 * the object present, shows that the installed CRD declares none (Volcano's own PodGroup CRD has
 * {@code subresources: {}}); from then on, for the rest of the run, it goes straight to the main resource. The patches
 * carry no {@code resourceVersion}, so the API server applies them to the newest version and a stale read cannot
 * make them conflict; an answer that may be retried (no answer, 409, 429, 5xx) is retried with the {@link Backoff}.
 *
 * <p>What was last written is remembered per object until the object is deleted ({@link #prune}), never longer.
 */
final class StatusWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatusWriter.class);

    private record Job(String kind, String key, String path, Object status, CycleWrites cycle, CompletableFuture<Boolean> done) {}

    private final ApiCalls api;
    private final Backoff backoff;
    private final FailedWrites failed;
    private final ExecutorService workers;
    /** Null until known; false once a 404 on a PodGroup's /status showed the CRD declares no status subresource. */
    private volatile Boolean podGroupStatusSubresource;
    private final Object probing = new Object();
    /** Pod → lastTransitionTime of the PodScheduled=False condition it carries (read once, then as written). */
    private final Map<String, String> podUnschedulableSince = new ConcurrentHashMap<>();
    private final Map<String, Job> waiting = new ConcurrentHashMap<>();
    private final Map<String, VolcanoPodGroup.Status> writtenPodGroups = new ConcurrentHashMap<>();
    private final Map<String, VolcanoQueue.Status> writtenQueues = new ConcurrentHashMap<>();
    /** A PodGroup's estimated start last written ("" once removed). */
    private final Map<String, String> writtenStarts = new ConcurrentHashMap<>();
    /** An upstream PodGroup's condition last written. */
    private final Map<String, Map<String, Object>> writtenConditions = new ConcurrentHashMap<>();
    /** Writes that failed for a reason that passes (no answer, 429, 5xx) since the last success: logged once. */
    private final java.util.concurrent.atomic.AtomicInteger passingFailures = new java.util.concurrent.atomic.AtomicInteger();

    StatusWriter(ApiCalls api, Backoff backoff, int threads, FailedWrites failed) {
        this.api = api;
        this.backoff = backoff;
        this.failed = failed;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Actuator.daemon("arbiter-status"));
        pool.allowCoreThreadTimeOut(true);
        this.workers = pool;
    }

    /** What was last written for the PodGroup, or null. */
    VolcanoPodGroup.Status writtenPodGroup(String key) {
        return writtenPodGroups.get(key);
    }

    VolcanoQueue.Status writtenQueue(String name) {
        return writtenQueues.get(name);
    }

    /** The object already shows what was written: nothing to remember for it any more. */
    void podGroupShows(String key) {
        writtenPodGroups.remove(key);
    }

    void queueShows(String name) {
        writtenQueues.remove(name);
    }

    /** Writes a PodGroup's status (through the status subresource, else the main resource, as Volcano's CRD has none). */
    CompletableFuture<Boolean> podGroup(String key, VolcanoPodGroup.Status desired, CycleWrites cycle) {
        String[] id = key.split("/", 2);
        String path = "/apis/" + VolcanoQueue.GROUP + "/v1beta1/namespaces/" + id[0] + "/podgroups/" + id[1];
        return submit(new Job("PodGroup", key, path, desired, cycle, new CompletableFuture<>()));
    }

    /**
     * Sets one condition of an upstream ({@code scheduling.k8s.io/v1beta1}) PodGroup, as kube-scheduler's
     * {@code PatchPodGroupStatus} does: a strategic merge patch of its {@code status} subresource, the condition merged
     * by type, the others left as they are.
     */
    CompletableFuture<Boolean> workloadPodGroupCondition(String key, Map<String, Object> condition, CycleWrites cycle) {
        String[] id = key.split("/", 2);
        String path = "/apis/" + WorkloadPodGroup.GROUP + "/" + WorkloadPodGroup.VERSION + "/namespaces/" + id[0]
                + "/podgroups/" + id[1];
        return submit(new Job("WorkloadPodGroup", key, path, condition, cycle, new CompletableFuture<>()));
    }

    /** The condition last written on the upstream PodGroup, or null. */
    Map<String, Object> writtenCondition(String key) {
        return writtenConditions.get(key);
    }

    /** The upstream PodGroup already shows what was written. */
    void conditionShows(String key) {
        writtenConditions.remove(key);
    }

    CompletableFuture<Boolean> queue(String name, VolcanoQueue.Status desired, CycleWrites cycle) {
        String path = "/apis/" + VolcanoQueue.GROUP + "/v1beta1/queues/" + name;
        return submit(new Job("Queue", name, path, desired, cycle, new CompletableFuture<>()));
    }

    /**
     * Stores a queue's decayed past usage as the Queue's {@value dev.arbiter.model.QueueUsage#ANNOTATION} annotation (a
     * merge patch of the object: the status schema would prune a field it does not declare); {@code written} hears of
     * each success.
     */
    CompletableFuture<Boolean> queueUsage(String name, dev.arbiter.model.QueueUsage usage, CycleWrites cycle,
                                          java.util.function.BiConsumer<String, dev.arbiter.model.QueueUsage> written) {
        String path = "/apis/" + VolcanoQueue.GROUP + "/v1beta1/queues/" + name;
        CompletableFuture<Boolean> done = submit(new Job("QueueUsage", name, path, usage, cycle, new CompletableFuture<>()));
        return done.thenApply(ok -> {
            if (ok) written.accept(name, usage);
            return ok;
        });
    }

    /**
     * Sets (or with null, removes) a Volcano PodGroup's {@code arbiter.dev/estimated-start} annotation: a merge patch
     * of the object's metadata, as for the queues' usage.
     */
    CompletableFuture<Boolean> podGroupEstimatedStart(String key, String value, CycleWrites cycle) {
        String[] id = key.split("/", 2);
        String path = "/apis/" + VolcanoQueue.GROUP + "/v1beta1/namespaces/" + id[0] + "/podgroups/" + id[1];
        return submit(new Job("EstimatedStart", key, path, value == null ? "" : value, cycle, new CompletableFuture<>()));
    }

    /** The estimated start last written on the PodGroup ("" once removed), or null when none was. */
    String writtenEstimatedStart(String key) {
        return writtenStarts.get(key);
    }

    /** The PodGroup already shows the estimated start wanted. */
    void estimatedStartShows(String key) {
        writtenStarts.remove(key);
    }

    private CompletableFuture<Boolean> submit(Job job) {
        String id = job.kind() + " " + job.key();
        if (failed.waiting("status", id)) {
            // Its last write failed and its wait runs: a later cycle writes the status it wants then.
            job.done().complete(false);
            return job.done();
        }
        Job replaced = waiting.put(id, job);
        if (replaced != null) {
            replaced.done().complete(false); // superseded before it was written
        } else {
            try {
                workers.execute(() -> write(id));
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                waiting.remove(id, job);
                job.done().complete(false);
            }
        }
        return job.done();
    }

    /**
     * Sets pod {@code key}'s {@code PodScheduled} condition to False, reason {@code Unschedulable}, with
     * {@code message}, as kube-scheduler does for a pod it cannot place: cluster-autoscaler scales up only for pods
     * that carry it. The caller hands it over only when the message changed.
     */
    CompletableFuture<Boolean> podUnschedulable(String key, String message, CycleWrites cycle) {
        String[] id = key.split("/", 2);
        String path = "/api/v1/namespaces/" + id[0] + "/pods/" + id[1];
        return submit(new Job("Pod", key, path, message, cycle, new CompletableFuture<>()));
    }

    /** The pod is no longer waiting (bound, gone): its condition is no longer Arbiter's to keep. */
    void podPlaced(String key) {
        podUnschedulableSince.remove(key);
    }

    private void write(String id) {
        Job job = waiting.remove(id);
        if (job == null) return;
        ApiOutcome o = switch (job.kind()) {
            case "Pod" -> writePodCondition(job.key(), job.path(), (String) job.status());
            case "PodGroup" -> writePodGroup(job.path(), statusPatch(job.status()));
            case "QueueUsage" -> backoff.run(() -> api.mergePatch(job.path(), java.util.Map.of("metadata", java.util.Map.of(
                    "annotations", java.util.Map.of(dev.arbiter.model.QueueUsage.ANNOTATION,
                            ((dev.arbiter.model.QueueUsage) job.status()).annotationValue())))), this::retry);
            case "EstimatedStart" -> backoff.run(() -> api.mergePatch(job.path(), estimatedStartPatch((String) job.status())),
                    this::retry);
            case "WorkloadPodGroup" -> backoff.run(() -> api.strategicMergePatch(job.path() + "/status",
                    api.json().asJson(Map.of("status", Map.of("conditions", List.of(job.status()))))), this::retry);
            default -> backoff.run(() -> api.jsonPatch(job.path() + "/status", statusPatch(job.status())), this::retry);
        };
        if (o.ok()) {
            int failedMeanwhile = passingFailures.getAndSet(0);
            if (failedMeanwhile > 0) LOG.info("status writes succeed again ({} failed meanwhile)", failedMeanwhile);
            failed.succeeded("status", id);
            if (job.status() instanceof VolcanoPodGroup.Status s) writtenPodGroups.put(job.key(), s);
            else if (job.status() instanceof VolcanoQueue.Status q) writtenQueues.put(job.key(), q);
            else if (job.kind().equals("WorkloadPodGroup")) writtenConditions.put(job.key(), asCondition(job.status()));
            else if (job.kind().equals("EstimatedStart")) writtenStarts.put(job.key(), (String) job.status());
            if (o.code() != 204) job.cycle().statusWrites.incrementAndGet();
            job.done().complete(true);
            return;
        }
        if (o.notFound() || o.code() == 409) {
            // Gone, or changed under us: the next cycle sees it as it is now.
        } else if (o.retryable()) {
            // An outage: every object's writes fail alike until the server is back, so one line says it.
            if (passingFailures.getAndIncrement() == 0) {
                LogFields.object(LOG.atWarn(), job.kind(), job.key()).addKeyValue("cycle", job.cycle().cycle())
                        .log("cannot write status of {} {}: {}; each object's write is tried again after a wait (1 s doubling"
                        + " to 5 min), not logged again until a write succeeds", job.kind(), job.key(), o);
            }
            if (!api.isClosed()) failed.failed("status", id); // not a call our own pause or shutdown cut short
        } else {
            // Refused (422 invalid, 403, ...): the same write would be refused again; its object waits, said each time.
            LogFields.object(LOG.atWarn(), job.kind(), job.key()).addKeyValue("cycle", job.cycle().cycle())
                    .log("cannot write status of {} {}: {}; {}", job.kind(), job.key(), o, failed.failed("status", id));
        }
        job.done().complete(false);
    }

    private boolean retry(ApiOutcome o) {
        return o.retryable() && !api.isClosed();
    }

    /**
     * One request per PodGroup status write: through /status while the CRD may have the subresource, straight to the
     * main resource once a 404 on /status with the object present showed it has none.
     */
    private ApiOutcome writePodGroup(String path, String patch) {
        Boolean subresource = podGroupStatusSubresource;
        if (Boolean.FALSE.equals(subresource)) return backoff.run(() -> api.jsonPatch(path, patch), this::retry);
        if (subresource == null) {
            // Until one write has shown whether the subresource exists, writers take turns: one 404 per run, not one
            // per writer thread.
            synchronized (probing) {
                if (podGroupStatusSubresource == null) return probePodGroup(path, patch);
            }
            return writePodGroup(path, patch);
        }
        return probePodGroup(path, patch);
    }

    /** Through /status; on a 404 there, through the object, which tells whether the subresource exists. */
    private ApiOutcome probePodGroup(String path, String patch) {
        ApiOutcome o = backoff.run(() -> api.jsonPatch(path + "/status", patch), this::retry);
        if (o.ok()) {
            podGroupStatusSubresource = Boolean.TRUE;
            return o;
        }
        if (!o.notFound() || Boolean.TRUE.equals(podGroupStatusSubresource)) return o; // known to exist: the object is gone
        ApiOutcome main = backoff.run(() -> api.jsonPatch(path, patch), this::retry);
        if (main.ok() && podGroupStatusSubresource == null) {
            podGroupStatusSubresource = Boolean.FALSE;
            LOG.info("the PodGroup CRD declares no status subresource: PodGroup status is written through the object");
        }
        return main;
    }

    /**
     * The PodScheduled=False condition, as kube-scheduler's {@code updatePod} writes it: a strategic merge patch of
     * the one condition (merged by type), {@code lastProbeTime} null, {@code lastTransitionTime} kept while the
     * condition was already False, else now. The first time in a term the pod is read to learn that; a pod that
     * already carries the same condition is not patched (answered 204 here, counted as no write).
     */
    private ApiOutcome writePodCondition(String key, String path, String message) {
        String since = podUnschedulableSince.get(key);
        if (since == null) {
            ApiCalls.Fetched[] read = new ApiCalls.Fetched[1];
            ApiOutcome got = backoff.run(() -> (read[0] = api.get(path)).outcome(), this::retry);
            if (got.notFound()) return got;
            since = "";
            if (got.ok() && read[0].object() != null) {
                Map<String, Object> current = podScheduled(read[0].object());
                if (current != null && "False".equals(current.get("status"))) {
                    if ("Unschedulable".equals(current.get("reason")) && message.equals(current.get("message"))) {
                        podUnschedulableSince.put(key, String.valueOf(current.get("lastTransitionTime")));
                        return new ApiOutcome(204, "already shown");
                    }
                    if (current.get("lastTransitionTime") != null) since = String.valueOf(current.get("lastTransitionTime"));
                }
            }
        }
        String transition = since.isEmpty() ? java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString() : since;
        Map<String, Object> condition = new java.util.LinkedHashMap<>();
        condition.put("type", "PodScheduled");
        condition.put("status", "False");
        condition.put("lastProbeTime", null);
        condition.put("lastTransitionTime", transition);
        condition.put("reason", "Unschedulable");
        condition.put("message", message);
        String patch = api.json().asJson(Map.of("status", Map.of("conditions", List.of(condition))));
        ApiOutcome o = backoff.run(() -> api.strategicMergePatch(path + "/status", patch), r -> retry(r) && r.code() != 409);
        if (o.ok()) podUnschedulableSince.put(key, transition);
        return o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> podScheduled(Map<String, Object> pod) {
        if (!(pod.get("status") instanceof Map<?, ?> status) || !(status.get("conditions") instanceof List<?> conditions)) return null;
        for (Object c : conditions) {
            if (c instanceof Map<?, ?> m && "PodScheduled".equals(m.get("type"))) return (Map<String, Object>) m;
        }
        return null;
    }

    /**
     * A JSON patch that sets the whole status (a merge patch would merge the conditions list on some servers); the
     * desired status already carries every field of the current one Arbiter does not own.
     */
    private String statusPatch(Object status) {
        return api.json().asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
    }

    /** {@code {"metadata":{"annotations":{"arbiter.dev/estimated-start": value}}}}; null for "" removes it. */
    private static Map<String, Object> estimatedStartPatch(String value) {
        Map<String, Object> annotations = new java.util.HashMap<>();
        annotations.put(dev.arbiter.forecast.Forecast.ANNOTATION, value.isEmpty() ? null : value);
        return Map.of("metadata", Map.of("annotations", annotations));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asCondition(Object o) {
        return (Map<String, Object>) o;
    }

    /** Forgets what was written for objects that no longer exist. */
    void prune(Predicate<String> podGroupExists, Predicate<String> queueExists) {
        writtenPodGroups.keySet().removeIf(k -> !podGroupExists.test(k));
        writtenConditions.keySet().removeIf(k -> !podGroupExists.test(k));
        writtenStarts.keySet().removeIf(k -> !podGroupExists.test(k));
        writtenQueues.keySet().removeIf(k -> !queueExists.test(k));
    }

    /** The objects whose written status is remembered, as "PodGroup ns/name" and "Queue name" (for tests of pruning). */
    java.util.Set<String> remembered() {
        java.util.Set<String> out = new java.util.TreeSet<>();
        writtenPodGroups.keySet().forEach(k -> out.add("PodGroup " + k));
        writtenConditions.keySet().forEach(k -> out.add("PodGroup " + k));
        writtenQueues.keySet().forEach(k -> out.add("Queue " + k));
        return out;
    }

    /** Statuses waiting to be written. */
    int waiting() {
        return waiting.size();
    }

    void cancel() {
        for (Job j : waiting.values()) j.done().complete(false);
        waiting.clear();
        podUnschedulableSince.clear();
    }

    @Override
    public void close() {
        cancel();
        workers.shutdownNow();
    }
}
