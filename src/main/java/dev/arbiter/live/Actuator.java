package dev.arbiter.live;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer: executes one cycle's {@link CycleResult} against the API server.
 *
 * <ol>
 *   <li>Evictions, through the policy/v1 Eviction API so PodDisruptionBudgets are honoured. A refused eviction (429)
 *       is reported (event, log, metric) and never forced with a delete; the next cycle decides again.</li>
 *   <li>Bindings, gang by gang, through the pods/binding subresource. Each pod is assumed on its node before its
 *       call. A call that still fails after the backoff forgets the assumption of every member not yet bound and
 *       rolls the gang back: members bound in this cycle are evicted, so the gang is never left half-placed, and a
 *       later cycle schedules it again.</li>
 *   <li>PodGroup and Queue status, each written only when it differs from both what the object carries and what this
 *       actuator last wrote (the informer may lag).</li>
 *   <li>Events on pods: Scheduled, FailedScheduling (only when the reason changes), Preempted/Reclaimed naming the
 *       preemptor and the rule, EvictionRefused.</li>
 * </ol>
 * Every call it makes is listed in {@link ApiPermissions}. Not thread-safe: one scheduling loop drives it.
 */
public final class Actuator {
    private static final Logger LOG = LoggerFactory.getLogger(Actuator.class);
    private static final long REQUEST_TIMEOUT_SECONDS = 10;

    private final KubernetesClient client;
    private final HttpClient http;
    private final KubernetesSerialization json;
    private final ClusterCache cache;
    private final AssumeCache assumed;
    private final Metrics metrics;
    private final Backoff backoff;
    private final Set<String> schedulerNames;
    private final String component;
    private final String instance;
    private final AtomicLong eventSeq = new AtomicLong();
    private final Map<String, VolcanoPodGroup.Status> writtenPodGroups = new HashMap<>();
    private final Map<String, VolcanoQueue.Status> writtenQueues = new HashMap<>();
    private final Map<String, String> reportedUnschedulable = new HashMap<>();

    /** What one {@link #execute} did, for logs and tests. */
    public record Report(int bound, int bindFailures, int evicted, int evictionsRefused, int evictionFailures,
                         int rolledBack, int statusWrites, int events) {}

    public Actuator(KubernetesClient client, ClusterCache cache, AssumeCache assumed, Metrics metrics, Backoff backoff,
                    Set<String> schedulerNames, String component, String instance) {
        this.client = client;
        this.http = withoutRetries(client);
        this.json = client.getKubernetesSerialization();
        this.cache = cache;
        this.assumed = assumed;
        this.metrics = metrics;
        this.backoff = backoff;
        this.schedulerNames = Set.copyOf(schedulerNames);
        this.component = component;
        this.instance = instance;
    }

    /** Executes {@code result}, decided on {@code snapshot}. Never throws for an API error; the report counts them. */
    public Report execute(ClusterSnapshot snapshot, CycleResult result) {
        Tally tally = new Tally();
        Map<String, PodSpec> pods = new HashMap<>();
        for (PodSpec p : snapshot.pods()) pods.put(p.key(), p);

        // 1. Evictions first: pipelined gangs wait for them, bindings do not depend on them.
        for (Eviction e : result.evictions()) evict(e, tally);
        // 2. Bindings, one gang at a time, all-or-nothing.
        Set<String> bound = new HashSet<>();
        Set<String> rolledBack = new HashSet<>();
        for (Map.Entry<String, List<Binding>> gang : gangs(result.bindings(), pods).entrySet()) {
            if (!bindGang(gang.getValue(), tally, bound)) rolledBack.add(gang.getKey());
        }
        // 3. Status (not for a gang just rolled back: the cycle's status assumed it started; the next cycle reports it).
        for (PodGroupStatus s : result.podGroups()) {
            if (!rolledBack.contains(s.podGroup())) writePodGroupStatus(s, snapshot.pods(), tally);
        }
        for (QueueStatus q : result.queues()) writeQueueStatus(q, tally);
        // 4. Why the rest still waits.
        reportUnschedulable(snapshot, result, bound, tally);
        return tally.report();
    }

    /** Creates the {@code default} Queue (weight 1, reclaimable) unless the cache holds one; "already exists" is fine. */
    public void ensureDefaultQueue() {
        if (cache.hasQueue(QueueSpec.DEFAULT)) return;
        VolcanoQueue q = new VolcanoQueue();
        q.setMetadata(new ObjectMetaBuilder().withName(QueueSpec.DEFAULT).build());
        VolcanoQueue.Spec spec = new VolcanoQueue.Spec();
        spec.weight = 1;
        spec.reclaimable = true;
        q.setSpec(spec);
        ApiOutcome o = call(() -> client.resources(VolcanoQueue.class).resource(q).create());
        if (o.ok() || o.code() == 409) return;
        LOG.warn("cannot create the default Queue: {}", o);
    }

    // ---- 1. evictions ---------------------------------------------------------------------------------------

    private void evict(Eviction e, Tally tally) {
        if (assumed.isEvicting(e.pod())) return;
        ApiOutcome o = backoff.run(() -> postEviction(e.pod()), r -> r.retryable() && !r.tooManyRequests());
        if (o.ok() || o.notFound()) {
            assumed.evicting(e.pod());
            metrics.decision(e.action(), "ok");
            tally.evicted++;
            String reason = e.action().equals("reclaim") ? "Reclaimed" : "Preempted";
            event(e.pod(), "Normal", reason, reason + " by PodGroup " + e.forPodGroup() + " under rule \"" + e.rule()
                    + "\": " + e.reason(), tally);
        } else if (o.tooManyRequests()) {
            metrics.decision(e.action(), "refused");
            tally.evictionsRefused++;
            LOG.info("eviction of {} for {} refused (PodDisruptionBudget): {}", e.pod(), e.forPodGroup(), o);
            event(e.pod(), "Warning", "EvictionRefused", "eviction to make room for PodGroup " + e.forPodGroup()
                    + " refused, not forced: " + o, tally);
        } else {
            metrics.decision(e.action(), "failed");
            tally.evictionFailures++;
            LOG.warn("eviction of {} for {} failed: {}", e.pod(), e.forPodGroup(), o);
        }
    }

    private ApiOutcome postEviction(String podKey) {
        String[] id = podKey.split("/", 2);
        return post("/api/v1/namespaces/" + id[0] + "/pods/" + id[1] + "/eviction",
                new EvictionBuilder().withNewMetadata().withNamespace(id[0]).withName(id[1]).endMetadata().build());
    }

    // ---- 2. bindings ----------------------------------------------------------------------------------------

    /** Bindings grouped by PodGroup, in decision order. */
    private static Map<String, List<Binding>> gangs(List<Binding> bindings, Map<String, PodSpec> pods) {
        Map<String, List<Binding>> out = new LinkedHashMap<>();
        for (Binding b : bindings) {
            PodSpec p = pods.get(b.pod());
            String group = p == null ? b.pod() : StatusViews.groupKey(p);
            out.computeIfAbsent(group, k -> new ArrayList<>()).add(b);
        }
        return out;
    }

    /** Binds one gang all-or-nothing; false when it failed and was rolled back. */
    private boolean bindGang(List<Binding> gang, Tally tally, Set<String> bound) {
        for (Binding b : gang) assumed.assume(b.pod(), b.node());
        List<Binding> done = new ArrayList<>();
        for (int i = 0; i < gang.size(); i++) {
            Binding b = gang.get(i);
            ApiOutcome o = backoff.run(() -> postBinding(b));
            if (o.ok()) {
                done.add(b);
                continue;
            }
            for (Binding notBound : gang.subList(i, gang.size())) assumed.forget(notBound.pod());
            metrics.decision("bind", "failed");
            tally.bindFailures++;
            LOG.warn("binding {} to {} failed: {}; rolling back {} bound member(s) of its gang", b.pod(), b.node(), o,
                    done.size());
            rollBack(done, b, tally);
            for (Binding member : gang) {
                event(member.pod(), "Warning", "FailedScheduling", "binding " + b.pod() + " to " + b.node()
                        + " failed (" + o + "); gang rolled back, will retry", tally);
            }
            return false;
        }
        Instant now = Instant.now();
        for (Binding b : done) {
            bound.add(b.pod());
            tally.bound++;
            metrics.decision("bind", "ok");
            ClusterCache.PodIdentity id = cache.podIdentity(b.pod());
            if (id != null && id.created() != null) metrics.e2eLatency(Duration.between(id.created(), now));
            event(b.pod(), "Normal", "Scheduled", "Successfully assigned " + b.pod() + " to " + b.node()
                    + " (rule: " + b.rule() + ")", tally);
        }
        return true;
    }

    /** Evicts the members bound before the failure; they stay assumed on their nodes until they are gone. */
    private void rollBack(List<Binding> done, Binding failed, Tally tally) {
        for (Binding b : done) {
            ApiOutcome o = backoff.run(() -> postEviction(b.pod()), r -> r.retryable() && !r.tooManyRequests());
            if (o.ok() || o.notFound()) {
                assumed.evicting(b.pod());
                metrics.decision("rollback", "ok");
                tally.rolledBack++;
            } else {
                metrics.decision("rollback", o.tooManyRequests() ? "refused" : "failed");
                LOG.warn("rollback eviction of {} (gang member of failed {}) did not succeed: {}", b.pod(), failed.pod(), o);
            }
        }
    }

    private ApiOutcome postBinding(Binding b) {
        String[] id = b.pod().split("/", 2);
        return post("/api/v1/namespaces/" + id[0] + "/pods/" + id[1] + "/binding",
                new BindingBuilder().withNewMetadata().withNamespace(id[0]).withName(id[1]).endMetadata()
                        .withNewTarget().withApiVersion("v1").withKind("Node").withName(b.node()).endTarget().build());
    }

    // ---- 3. status ------------------------------------------------------------------------------------------

    private void writePodGroupStatus(PodGroupStatus s, List<PodSpec> pods, Tally tally) {
        String key = s.podGroup();
        if (!cache.hasPodGroup(key)) return;
        VolcanoPodGroup.Status current = cache.podGroupStatus(key);
        int[] finished = StatusViews.finishedCounts(pods, key);
        VolcanoPodGroup.Status desired = StatusViews.podGroup(s, finished[0], finished[1], current, Instant.now());
        if (StatusViews.samePodGroup(desired, current)) {
            writtenPodGroups.remove(key);
            return;
        }
        if (StatusViews.samePodGroup(desired, writtenPodGroups.get(key))) return;
        String[] id = key.split("/", 2);
        String path = "/apis/" + VolcanoQueue.GROUP + "/v1beta1/namespaces/" + id[0] + "/podgroups/" + id[1];
        ApiOutcome o = patch(path + "/status", statusPatch(desired));
        if (o.notFound() && cache.hasPodGroup(key)) {
            // Volcano's own PodGroup CRD has no status subresource: status is then part of the main resource.
            o = patch(path, statusPatch(desired));
        }
        if (o.ok()) {
            writtenPodGroups.put(key, desired);
            tally.statusWrites++;
        } else if (!o.notFound()) {
            LOG.warn("cannot write status of PodGroup {}: {}", key, o);
        }
    }

    private void writeQueueStatus(QueueStatus q, Tally tally) {
        if (!cache.hasQueue(q.queue())) return;
        VolcanoQueue.Status current = cache.queueStatus(q.queue());
        VolcanoQueue.Status desired = StatusViews.queue(q, current);
        if (StatusViews.sameQueue(desired, current)) {
            writtenQueues.remove(q.queue());
            return;
        }
        if (StatusViews.sameQueue(desired, writtenQueues.get(q.queue()))) return;
        ApiOutcome o = patch("/apis/" + VolcanoQueue.GROUP + "/v1beta1/queues/" + q.queue() + "/status", statusPatch(desired));
        if (o.ok()) {
            writtenQueues.put(q.queue(), desired);
            tally.statusWrites++;
        } else if (!o.notFound()) {
            LOG.warn("cannot write status of Queue {}: {}", q.queue(), o);
        }
    }

    /**
     * A JSON patch that sets the whole status (a merge patch would merge the conditions list on some servers); the
     * desired status already carries every field of the current one Arbiter does not own.
     */
    private String statusPatch(Object status) {
        return json.asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
    }

    // ---- 4. events ------------------------------------------------------------------------------------------

    /** A FailedScheduling event on each pending pod of a waiting gang, when its reason differs from the last one. */
    private void reportUnschedulable(ClusterSnapshot snapshot, CycleResult result, Set<String> bound, Tally tally) {
        Map<String, String> messages = new HashMap<>();
        for (PodGroupStatus s : result.podGroups()) {
            String m = StatusViews.unschedulableMessage(s);
            if (m != null) messages.put(s.podGroup(), m);
        }
        Set<String> waiting = new HashSet<>();
        for (PodSpec p : snapshot.pods()) {
            if (p.isBound() || p.terminating() || bound.contains(p.key()) || !schedulerNames.contains(p.schedulerName())
                    || "Succeeded".equals(p.phase()) || "Failed".equals(p.phase())) continue;
            String message = messages.get(StatusViews.groupKey(p));
            if (message == null) continue;
            waiting.add(p.key());
            if (message.equals(reportedUnschedulable.get(p.key()))) continue;
            reportedUnschedulable.put(p.key(), message);
            event(p.key(), "Warning", "FailedScheduling", message, tally);
        }
        reportedUnschedulable.keySet().retainAll(waiting);
    }

    /**
     * Reports rules that did not compile as a Warning Event on this scheduler's own pod ({@code namespace/name}, the
     * replica's identity), so {@code kubectl get events} shows it next to the scheduler; the running rules stay.
     */
    public void rulesRejected(String schedulerPod, String message) {
        event(schedulerPod, "Warning", "RulesRejected", message, new Tally());
    }

    private void event(String podKey, String type, String reason, String message, Tally tally) {
        String[] id = podKey.split("/", 2);
        ClusterCache.PodIdentity pod = cache.podIdentity(podKey);
        String now = Instant.now().toString();
        Event ev = new EventBuilder()
                .withNewMetadata().withNamespace(id[0])
                .withName(id[1] + "." + Long.toHexString(System.currentTimeMillis()) + Long.toHexString(eventSeq.incrementAndGet()))
                .endMetadata()
                .withNewInvolvedObject().withApiVersion("v1").withKind("Pod").withNamespace(id[0]).withName(id[1])
                .withUid(pod == null ? null : pod.uid()).endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message)
                .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                .withNewSource().withComponent(component).endSource()
                .withReportingComponent(component).withReportingInstance(instance)
                .build();
        ApiOutcome o = call(() -> client.v1().events().inNamespace(id[0]).resource(ev).create());
        if (o.ok()) tally.events++;
        else LOG.debug("event {} on {} not recorded: {}", reason, podKey, o);
    }

    // ---- HTTP -----------------------------------------------------------------------------------------------

    /**
     * POSTs {@code body} to a subresource path. fabric8 has no typed call for pods/binding, and its evict() cannot
     * tell a refusal from a failure precisely enough, so both go through the client's own HTTP client (same
     * authentication, same TLS), as do status patches.
     */
    private ApiOutcome post(String path, Object body) {
        return send(http.newHttpRequestBuilder().uri(url(path)).post("application/json", json.asJson(body)));
    }

    /** A JSON patch (RFC 6902). Typed fabric8 patches GET the object first, which would need one more permission. */
    private ApiOutcome patch(String path, String jsonPatch) {
        return send(http.newHttpRequestBuilder().uri(url(path)).method("PATCH", "application/json-patch+json", jsonPatch));
    }

    private String url(String path) {
        return client.getMasterUrl().toString().replaceAll("/+$", "") + path;
    }

    private ApiOutcome send(HttpRequest.Builder builder) {
        try {
            HttpRequest request = builder.timeout(REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS).build();
            HttpResponse<String> r = http.sendAsync(request, String.class)
                    .get(REQUEST_TIMEOUT_SECONDS + 1, TimeUnit.SECONDS);
            return new ApiOutcome(r.code(), r.isSuccessful() ? "" : statusMessage(r.body()));
        } catch (ExecutionException | TimeoutException e) {
            return new ApiOutcome(0, String.valueOf(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ApiOutcome(0, "interrupted");
        }
    }

    /**
     * The client's HTTP client (same authentication and TLS) without fabric8's own retries of 429 and 5xx: the
     * {@link Backoff} decides, so a PodDisruptionBudget refusal comes back at once and a cycle's retries stay bounded.
     */
    private static HttpClient withoutRetries(KubernetesClient client) {
        RequestConfig noRetries = new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestRetryBackoffLimit(0).build();
        return client.getHttpClient().newBuilder().tag(noRetries).build();
    }

    private String statusMessage(String body) {
        if (body == null || body.isBlank()) return "";
        try {
            Status s = json.unmarshal(body, Status.class);
            return s.getMessage() == null ? body : s.getMessage();
        } catch (RuntimeException notStatus) {
            return body.length() > 200 ? body.substring(0, 200) : body;
        }
    }

    /** Runs a typed fabric8 call, turning its exception into the HTTP code. */
    private static ApiOutcome call(Supplier<?> op) {
        try {
            op.get();
            return new ApiOutcome(200, "");
        } catch (KubernetesClientException e) {
            return new ApiOutcome(e.getCode(), e.getStatus() != null ? e.getStatus().getMessage() : e.getMessage());
        }
    }

    private static final class Tally {
        int bound, bindFailures, evicted, evictionsRefused, evictionFailures, rolledBack, statusWrites, events;

        Report report() {
            return new Report(bound, bindFailures, evicted, evictionsRefused, evictionFailures, rolledBack, statusWrites, events);
        }
    }
}
