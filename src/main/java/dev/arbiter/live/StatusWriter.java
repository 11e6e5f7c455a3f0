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
 * PodGroup and Queue status, written off the decision loop by a few writer threads. The cycle computes the status an
 * object should carry and hands it over only when it differs from what the object shows and from what was last
 * written (the informer may lag); a newer status for the same object replaces one still waiting, so a slow API server
 * costs at most one write per object, not one per cycle.
 *
 * <p>What was last written is remembered per object until the object is deleted ({@link #prune}), never longer.
 */
final class StatusWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatusWriter.class);

    private record Job(String kind, String key, String path, Object status, CycleWrites cycle, CompletableFuture<Boolean> done) {}

    private final ApiCalls api;
    private final ExecutorService workers;
    private final Map<String, Job> waiting = new ConcurrentHashMap<>();
    private final Map<String, VolcanoPodGroup.Status> writtenPodGroups = new ConcurrentHashMap<>();
    private final Map<String, VolcanoQueue.Status> writtenQueues = new ConcurrentHashMap<>();

    StatusWriter(ApiCalls api, int threads) {
        this.api = api;
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

    CompletableFuture<Boolean> queue(String name, VolcanoQueue.Status desired, CycleWrites cycle) {
        String path = "/apis/" + VolcanoQueue.GROUP + "/v1beta1/queues/" + name;
        return submit(new Job("Queue", name, path, desired, cycle, new CompletableFuture<>()));
    }

    private CompletableFuture<Boolean> submit(Job job) {
        String id = job.kind() + " " + job.key();
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

    private void write(String id) {
        Job job = waiting.remove(id);
        if (job == null) return;
        String patch = statusPatch(job.status());
        ApiOutcome o = api.jsonPatch(job.path() + "/status", patch);
        if (o.notFound() && job.kind().equals("PodGroup")) o = api.jsonPatch(job.path(), patch);
        if (o.ok()) {
            if (job.status() instanceof VolcanoPodGroup.Status s) writtenPodGroups.put(job.key(), s);
            else writtenQueues.put(job.key(), (VolcanoQueue.Status) job.status());
            job.cycle().statusWrites.incrementAndGet();
            job.done().complete(true);
            return;
        }
        if (!o.notFound()) LOG.warn("cannot write status of {} {}: {}", job.kind(), job.key(), o);
        job.done().complete(false);
    }

    /**
     * A JSON patch that sets the whole status (a merge patch would merge the conditions list on some servers); the
     * desired status already carries every field of the current one Arbiter does not own.
     */
    private String statusPatch(Object status) {
        return api.json().asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
    }

    /** Forgets what was written for objects that no longer exist. */
    void prune(Predicate<String> podGroupExists, Predicate<String> queueExists) {
        writtenPodGroups.keySet().removeIf(k -> !podGroupExists.test(k));
        writtenQueues.keySet().removeIf(k -> !queueExists.test(k));
    }

    /** The objects whose written status is remembered, as "PodGroup ns/name" and "Queue name" (for tests of pruning). */
    java.util.Set<String> remembered() {
        java.util.Set<String> out = new java.util.TreeSet<>();
        writtenPodGroups.keySet().forEach(k -> out.add("PodGroup " + k));
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
    }

    @Override
    public void close() {
        cancel();
        workers.shutdownNow();
    }
}
