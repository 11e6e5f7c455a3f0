package dev.arbiter.live;

import dev.arbiter.decision.Binding;
import dev.arbiter.json.JsonWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bindings through the pods/binding subresource, on a bounded pool of concurrent binders, one gang at a time as a
 * transaction (kube-scheduler's assume → bind → forget, Volcano's commit → discard):
 * <ol>
 *   <li>Assume: before anything is sent, every member is assumed on its node, so the next cycle sees the gang placed
 *       and never waits on API latency.</li>
 *   <li>Bind: each member is bound on the pool with the {@link Backoff}. A 409 means the pod is already bound (an
 *       earlier attempt the API server applied, whose answer was lost): the pod is read back and, on its intended
 *       node, counts as bound. A member that fails makes the members not yet started skip their call.</li>
 *   <li>Settle: if every member is bound the gang is done. Otherwise, in one step no snapshot sees half of, the members
 *       not bound are pending again and the bound ones are shown leaving, and rolled back (evicted). A rollback that
 *       fails leaves the gang {@linkplain StrandedGangs stranded}: later cycles find it in their snapshots, and
 *       complete it or retry the rollback.</li>
 * </ol>
 */
final class Binder {
    private static final Logger LOG = LoggerFactory.getLogger(Binder.class);

    private enum Outcome { BOUND, BOUND_ELSEWHERE, FAILED, SKIPPED }

    private record MemberResult(Outcome outcome, ApiOutcome api, String node) {}

    private final ApiCalls api;
    private final AssumeCache assumed;
    private final ClusterCache cache;
    private final Metrics metrics;
    private final Backoff backoff;
    private final Executor pool;
    private final Evictor evictor;
    private final FailedWrites failedWrites;
    private final Evictor.Reporter report;
    private final java.util.Set<Gang> live = java.util.concurrent.ConcurrentHashMap.newKeySet();

    Binder(ApiCalls api, AssumeCache assumed, ClusterCache cache, Metrics metrics, Backoff backoff, Executor pool,
           Evictor evictor, FailedWrites failedWrites, Evictor.Reporter report) {
        this.api = api;
        this.assumed = assumed;
        this.cache = cache;
        this.metrics = metrics;
        this.backoff = backoff;
        this.pool = pool;
        this.evictor = evictor;
        this.failedWrites = failedWrites;
        this.report = report;
    }

    /**
     * Assumes every member of gang {@code group} on its node now and binds them on the pool. The future completes with
     * true once all are bound, false once the gang was rolled back (its rollback evictions issued and answered).
     * {@code boundBefore}: members already bound by an earlier cycle of a gang that has never run whole, rolled back
     * with the rest if a binding fails.
     */
    CompletableFuture<Boolean> bindGang(String group, List<Binding> members, List<String> boundBefore, CycleWrites cycle) {
        for (Binding b : members) assumed.assume(b.pod(), b.node());
        Gang gang = new Gang(group, members, boundBefore, cycle);
        live.add(gang);
        gang.result.whenComplete((ok, error) -> live.remove(gang));
        for (int i = 0; i < members.size(); i++) {
            int index = i;
            try {
                pool.execute(() -> gang.done(index, bindMember(gang, members.get(index))));
            } catch (RejectedExecutionException closed) {
                gang.done(index, new MemberResult(Outcome.SKIPPED, new ApiOutcome(0, "shutting down"), null));
            }
        }
        return gang.result;
    }

    /**
     * Cuts every gang in flight off ({@code why}: "shutting down", "leadership lost"): members not yet sent skip their
     * call, retries stop, and the gang settles as soon as the calls in flight return, rolling back what was bound.
     */
    void cutOff(String why) {
        for (Gang g : live) g.cutOff = why;
    }

    /** Waits up to {@code limit} for every gang in flight to settle (rollbacks answered); true when none is left. */
    boolean awaitGangs(Duration limit) {
        CompletableFuture<?>[] all = live.stream().map(g -> g.result).toArray(CompletableFuture<?>[]::new);
        try {
            CompletableFuture.allOf(all).get(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            return live.isEmpty();
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Gangs whose bindings are in flight. */
    int gangsInFlight() {
        return live.size();
    }

    /** One gang's bindings in flight. */
    private final class Gang {
        final String group;
        final List<Binding> members;
        final List<String> boundBefore;
        final CycleWrites cycle;
        final MemberResult[] results;
        final AtomicInteger remaining;
        volatile boolean aborted;
        /** Why the gang was cut off from outside (see {@link #cutOff}), or null. */
        volatile String cutOff;
        final CompletableFuture<Boolean> result = new CompletableFuture<>();

        Gang(String group, List<Binding> members, List<String> boundBefore, CycleWrites cycle) {
            this.group = group;
            this.members = members;
            this.boundBefore = boundBefore;
            this.cycle = cycle;
            this.results = new MemberResult[members.size()];
            this.remaining = new AtomicInteger(members.size());
        }

        void done(int index, MemberResult r) {
            results[index] = r;
            if (r.outcome() == Outcome.FAILED) aborted = true;
            if (remaining.decrementAndGet() == 0) settle(this);
        }
    }

    /**
     * One member's binding, retried with the backoff while the answer may pass: no answer, 409 on no node, 429, 5xx,
     * and 403. The shipped ClusterRole grants bindings ({@link ApiPermissions}), so a 403 is most likely an API server
     * that has just restarted and not yet loaded its RBAC (seen on a real server, issue 32), where failing at once
     * would roll the whole gang back; a ClusterRole that really lacks the grant costs the backoff's attempts (0.7 s)
     * before the gang is rolled back and the failure reported.
     */
    private MemberResult bindMember(Gang gang, Binding b) {
        if (gang.aborted) return new MemberResult(Outcome.SKIPPED, null, null);
        if (gang.cutOff != null) return new MemberResult(Outcome.SKIPPED, new ApiOutcome(0, gang.cutOff), null);
        String[] elsewhere = new String[1];
        long started = System.nanoTime();
        ApiOutcome o = backoff.run(() -> attempt(b, elsewhere), r -> (r.retryable() || r.code() == 403)
                && elsewhere[0] == null && !gang.aborted && gang.cutOff == null && !api.isClosed());
        metrics.bindLatency(Duration.ofNanos(System.nanoTime() - started));
        if (o.ok()) return new MemberResult(Outcome.BOUND, o, b.node());
        if (elsewhere[0] != null) return new MemberResult(Outcome.BOUND_ELSEWHERE, o, elsewhere[0]);
        return new MemberResult(Outcome.FAILED, o, null);
    }

    /**
     * One binding call. A 409 is checked against the pod's node, as the API server's message names it (else as a GET
     * shows it): on the intended node it is a success ("already bound"); on another node the pod was bound by someone
     * else ({@code elsewhere} is set); on no node it was another conflict, retried.
     */
    private ApiOutcome attempt(Binding b, String[] elsewhere) {
        String[] id = b.pod().split("/", 2);
        ApiOutcome o = api.postJson("/api/v1/namespaces/" + id[0] + "/pods/" + id[1] + "/binding", bindingJson(id[0], id[1], b.node()));
        if (o.code() != 409) return o;
        String node = assignedNode(o.message());
        if (node == null) {
            ApiCalls.Fetched pod = api.get("/api/v1/namespaces/" + id[0] + "/pods/" + id[1]);
            node = pod.object() == null ? null : nodeName(pod.object());
        }
        if (b.node().equals(node)) return new ApiOutcome(200, "already bound to " + node);
        if (node != null) elsewhere[0] = node;
        return o;
    }

    /**
     * The v1 Binding of pod {@code namespace/name} to {@code node}, as JSON: streamed field by field, as fabric8's
     * builder and bean serializer cost more CPU than the rest of a binding call on the client side.
     */
    static String bindingJson(String namespace, String name, String node) {
        return JsonWriter.compact().startObject().field("apiVersion", "v1").field("kind", "Binding")
                .name("metadata").startObject().field("name", name).field("namespace", namespace).endObject()
                .name("target").startObject().field("apiVersion", "v1").field("kind", "Node").field("name", node).endObject()
                .endObject().toString();
    }

    /** The node named by the API server's 409 on a binding: {@code ... is already assigned to node "n1"}, or null. */
    static String assignedNode(String message) {
        if (message == null) return null;
        java.util.regex.Matcher m = ASSIGNED.matcher(message);
        return m.find() ? m.group(1) : null;
    }

    private static final java.util.regex.Pattern ASSIGNED = java.util.regex.Pattern.compile("already assigned to node \"([^\"]+)\"");

    @SuppressWarnings("unchecked")
    private static String nodeName(Map<String, Object> pod) {
        Object spec = pod.get("spec");
        return spec instanceof Map<?, ?> m ? (String) ((Map<String, Object>) m).get("nodeName") : null;
    }

    private void settle(Gang gang) {
        List<String> notBound = new ArrayList<>();
        List<String> rollBack = new ArrayList<>();
        Binding failed = null;
        ApiOutcome failure = null;
        Binding cutOff = null;
        ApiOutcome cutOffWhy = null;
        Instant now = Instant.now();
        for (int i = 0; i < gang.members.size(); i++) {
            Binding b = gang.members.get(i);
            MemberResult r = gang.results[i];
            switch (r.outcome()) {
                case BOUND -> rollBack.add(b.pod());
                case BOUND_ELSEWHERE -> assumed.forget(b.pod());
                case FAILED -> {
                    notBound.add(b.pod());
                    if (failed == null) {
                        failed = b;
                        failure = r.api();
                    }
                }
                case SKIPPED -> {
                    // Skipped after a member failed, or cut off (shutdown, leadership lost): not bound either way.
                    notBound.add(b.pod());
                    if (cutOff == null) cutOff = b;
                    if (cutOffWhy == null && r.api() != null) cutOffWhy = r.api();
                }
            }
        }
        boolean wasCutOff = failed == null && cutOff != null;
        if (wasCutOff) {
            failed = cutOff;
            failure = cutOffWhy != null ? cutOffWhy : new ApiOutcome(0, gang.cutOff != null ? gang.cutOff : "cut off");
        }
        if (failed == null) {
            for (int i = 0; i < gang.members.size(); i++) committed(gang, gang.members.get(i), gang.results[i], now);
            gang.result.complete(true);
            return;
        }
        rollBack.addAll(gang.boundBefore);
        assumed.settleGang(notBound, rollBack);
        String nextTry = null;
        for (int i = 0; i < gang.members.size(); i++) {
            MemberResult r = gang.results[i];
            if (r.outcome() == Outcome.FAILED) {
                metrics.decision("bind", "failed");
                gang.cycle.bindFailures.incrementAndGet();
                // The server's answer, not ours: a call cancelled by a shutdown or a lost Lease says nothing of the pod.
                if (gang.cutOff == null && !api.isClosed()) {
                    String wait = failedWrites.failed("bind", gang.members.get(i).pod());
                    if (gang.members.get(i) == failed) nextTry = wait;
                }
            }
        }
        if (wasCutOff) {
            LOG.atWarn().addKeyValue("cycle", gang.cycle.cycle()).addKeyValue("podgroup", gang.group)
                    .addKeyValue("pod", failed.pod()).addKeyValue("node", failed.node()).addKeyValue("rule", failed.rule())
                    .log("gang {} cut off before {} was bound ({}); rolling back {} bound member(s)", gang.group, failed.pod(),
                            failure.message(), rollBack.size());
        } else {
            LOG.atWarn().addKeyValue("cycle", gang.cycle.cycle()).addKeyValue("podgroup", gang.group)
                    .addKeyValue("pod", failed.pod()).addKeyValue("node", failed.node()).addKeyValue("rule", failed.rule())
                    .log("binding {} to {} failed: {}; rolling back {} bound member(s) of its gang {}{}", failed.pod(), failed.node(),
                    failure, rollBack.size(), gang.group, nextTry == null ? "" : "; its " + nextTry.replace("next try", "next binding"));
        }
        for (Binding member : gang.members) {
            report.event(member.pod(), "Warning", "FailedScheduling", "binding " + failed.pod() + " to " + failed.node()
                    + " failed (" + failure + "); gang rolled back, will retry", gang.cycle);
        }
        List<CompletableFuture<Evictor.Result>> rollbacks = new ArrayList<>();
        for (String p : rollBack) rollbacks.add(evictor.rollBack(p, failed.pod(), gang.cycle));
        CompletableFuture.allOf(rollbacks.toArray(new CompletableFuture<?>[0])).whenComplete((ok, error) -> {
            // A rollback that failed leaves the gang half-bound: StrandedGangs finds it in the next snapshots.
            gang.result.complete(false);
        });
    }

    /** A member of a gang that bound whole: counted, timed, announced. */
    private void committed(Gang gang, Binding b, MemberResult r, Instant now) {
        gang.cycle.bound.incrementAndGet();
        metrics.decision("bind", "ok");
        ClusterCache.PodIdentity id = cache.podIdentity(b.pod());
        if (id != null && id.created() != null) metrics.e2eLatency(Duration.between(id.created(), now));
        if (r.outcome() == Outcome.BOUND_ELSEWHERE) {
            LOG.atWarn().addKeyValue("cycle", gang.cycle.cycle()).addKeyValue("podgroup", gang.group)
                    .addKeyValue("pod", b.pod()).addKeyValue("node", r.node()).addKeyValue("rule", b.rule())
                    .log("{} was already bound to {} by someone else (Arbiter chose {})", b.pod(), r.node(), b.node());
            report.event(b.pod(), "Warning", "AlreadyBound", b.pod() + " is bound to " + r.node()
                    + " by someone else; Arbiter's placement on " + b.node() + " was dropped", gang.cycle);
            return;
        }
        assumed.bindingAccepted(b.pod());
        failedWrites.succeeded("bind", b.pod());
        report.event(b.pod(), "Normal", "Scheduled", "Successfully assigned " + b.pod() + " to " + b.node()
                + " (rule: " + b.rule() + ")", gang.cycle);
    }
}
