package dev.arbiter.live;

import dev.arbiter.decision.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evictions through the policy/v1 Eviction API, so PodDisruptionBudgets are honoured, on the binder pool. The pod is
 * assumed leaving from the moment the eviction is issued (no cycle evicts it twice, and preemptors wait on it); a
 * refusal (429, a PodDisruptionBudget) is reported and never forced with a delete, and like a failure it gives the
 * pod back to the next cycle, which passes it over while its backoff runs ({@link EvictionRefusals}).
 *
 * <p><b>A plan's victims, all or none.</b> The victims one preemptor needs ({@link #evictPlan}) are first evicted as a
 * dry run ({@code deleteOptions.dryRun: [All]}: the API server checks the PodDisruptionBudgets and changes nothing),
 * every one of them; only when every dry run is accepted are they evicted for real, one at a time in the plan's
 * order, and the first refusal then stops the rest. A plan of one victim needs no dry run.
 */
final class Evictor {
    private static final Logger LOG = LoggerFactory.getLogger(Evictor.class);

    /** What became of one eviction. */
    enum Result { EVICTED, REFUSED, FAILED }

    private final ApiCalls api;
    private final AssumeCache assumed;
    private final Metrics metrics;
    private final Backoff backoff;
    private final Executor pool;
    private final Reporter report;
    private final EvictionRefusals refusals;
    private final FailedWrites failedWrites;
    private final Victims victims;

    /** Where eviction events go (the actuator resolves the pod's uid). */
    interface Reporter {
        void event(String pod, String type, String reason, String message, CycleWrites cycle);
    }

    /** Who a victim is now, as the cache shows it (null: gone), for {@link EvictionRefusals}. */
    interface Victims {
        String uid(String pod);

        Map<String, String> labels(String pod);
    }

    Evictor(ApiCalls api, AssumeCache assumed, Metrics metrics, Backoff backoff, Executor pool, Reporter report,
            EvictionRefusals refusals, FailedWrites failedWrites, Victims victims) {
        this.api = api;
        this.assumed = assumed;
        this.metrics = metrics;
        this.backoff = backoff;
        this.pool = pool;
        this.report = report;
        this.refusals = refusals;
        this.failedWrites = failedWrites;
        this.victims = victims;
    }

    /**
     * Evicts the victims of one preemptor ({@code plan}, all with the same {@link Eviction#forPodGroup}), all or none
     * as far as the API server lets us know (see the class comment). The handle completes when every call is done.
     */
    CompletableFuture<Void> evictPlan(List<Eviction> plan, CycleWrites cycle) {
        if (plan.size() == 1) return evictVictim(plan.get(0), cycle).thenApply(r -> null);
        for (Eviction e : plan) assumed.evicting(e.pod());
        CompletableFuture<Void> f = new CompletableFuture<>();
        try {
            pool.execute(() -> {
                try {
                    if (dryRunsAccepted(plan, cycle)) evictInTurn(plan, cycle);
                } finally {
                    f.complete(null);
                }
            });
        } catch (RejectedExecutionException closed) {
            for (Eviction e : plan) assumed.forgetEviction(e.pod());
            f.complete(null);
        }
        return f;
    }

    /**
     * Dry-runs every victim's eviction; when one is refused, none is evicted: the refused are recorded and reported,
     * and every victim of the plan is given back to the next cycle.
     */
    private boolean dryRunsAccepted(List<Eviction> plan, CycleWrites cycle) {
        int refused = 0;
        for (Eviction e : plan) {
            ApiOutcome o = retried(() -> postEviction(e.pod(), true));
            if (o.ok() || o.notFound()) continue;
            refused++;
            after(e, new Done(o.tooManyRequests() ? Result.REFUSED : Result.FAILED, o), cycle, true);
        }
        if (refused == 0) return true;
        for (Eviction e : plan) assumed.forgetEviction(e.pod());
        cycle.evictionsWithheld.addAndGet(plan.size() - refused);
        LOG.atInfo().addKeyValue("cycle", cycle.cycle()).addKeyValue("podgroup", plan.get(0).forPodGroup())
                .addKeyValue("rule", plan.get(0).rule())
                .log("none of the {} victims for {} evicted: {} refused in a dry run", plan.size(), plan.get(0).forPodGroup(),
                        refused);
        return false;
    }

    /** The plan's evictions for real, in its order; the first that is not accepted stops the rest. */
    private void evictInTurn(List<Eviction> plan, CycleWrites cycle) {
        for (int i = 0; i < plan.size(); i++) {
            Eviction e = plan.get(i);
            Done d = call(e.pod());
            after(e, d, cycle, false);
            if (d.kind() == Result.EVICTED) continue;
            List<Eviction> rest = plan.subList(i + 1, plan.size());
            for (Eviction r : rest) assumed.forgetEviction(r.pod());
            cycle.evictionsWithheld.addAndGet(rest.size());
            if (!rest.isEmpty()) {
                fields(LOG.atWarn(), e, cycle).log("eviction of {} for {} not accepted after its dry run was ({}); {} more"
                        + " victim(s) not evicted, {} already were", e.pod(), e.forPodGroup(), d.outcome(), rest.size(), i);
            }
            return;
        }
    }

    /**
     * A log line's fields for a victim (the cycle, the pod, the PodGroup it makes room for, the rule): {@code cycle=7
     * pod=b01/w-1 podgroup=a01/pg rule=...} after a text line, fields of the object in JSON.
     */
    private static org.slf4j.spi.LoggingEventBuilder fields(org.slf4j.spi.LoggingEventBuilder line, Eviction e, CycleWrites cycle) {
        return line.addKeyValue("cycle", cycle.cycle()).addKeyValue("pod", e.pod()).addKeyValue("podgroup", e.forPodGroup())
                .addKeyValue("rule", e.rule());
    }

    /** Evicts one preemption or reclaim victim, with the rule and reason that chose it. */
    CompletableFuture<Result> evictVictim(Eviction e, CycleWrites cycle) {
        return submit(e.pod(), false, cycle, d -> after(e, d, cycle, false));
    }

    /** Counts, logs, reports and remembers what became of a victim's eviction ({@code dryRun}: of its dry run). */
    private void after(Eviction e, Done result, CycleWrites cycle, boolean dryRun) {
        String pod = e.pod();
        String action = e.action();
        String preemptor = e.forPodGroup();
        switch (result.kind) {
            case EVICTED -> {
                refusals.accepted(pod);
                metrics.decision(action, "ok");
                cycle.evicted.incrementAndGet();
                String why = action.equals("reclaim") ? "Reclaimed" : "Preempted";
                report.event(pod, "Normal", why, why + " by PodGroup " + preemptor + " under rule \"" + e.rule() + "\": "
                        + e.reason(), cycle);
            }
            case REFUSED -> {
                remember(pod, result.outcome);
                metrics.decision(action, "refused");
                cycle.evictionsRefused.incrementAndGet();
                fields(LOG.atInfo(), e, cycle).log("eviction{} of {} for {} refused (PodDisruptionBudget): {}",
                        dryRun ? " (dry run)" : "", pod, preemptor, result.outcome);
                report.event(pod, "Warning", "EvictionRefused", "eviction to make room for PodGroup " + preemptor
                        + " refused, not forced: " + result.outcome, cycle);
            }
            default -> {
                remember(pod, result.outcome);
                metrics.decision(action, "failed");
                cycle.evictionFailures.incrementAndGet();
                // Not said for calls refused because leadership was lost or the process is stopping: those were not sent.
                if (!api.isClosed()) {
                    fields(LOG.atWarn(), e, cycle).log("eviction{} of {} for {} failed: {}", dryRun ? " (dry run)" : "", pod,
                            preemptor, result.outcome);
                }
            }
        }
    }

    /** A refusal or failure for good makes the pod a refused victim for a while; not one cut short by shutdown. */
    private void remember(String pod, ApiOutcome o) {
        if (api.isClosed()) return;
        refusals.refused(pod, victims.uid(pod), victims.labels(pod), o);
    }

    /** Evicts a member of a gang whose bindings failed (the member was already shown leaving by the binder). */
    CompletableFuture<Result> rollBack(String pod, String failedMember, CycleWrites cycle) {
        return submit(pod, true, cycle, result -> {
            if (result.kind == Result.EVICTED) {
                metrics.decision("rollback", "ok");
                cycle.rolledBack.incrementAndGet();
                failedWrites.succeeded("evict", pod);
            } else {
                metrics.decision("rollback", result.kind == Result.REFUSED ? "refused" : "failed");
                // Victims back off in EvictionRefusals; a rollback's member here, so that a stranded gang's evictions wait.
                String wait = api.isShutDown() ? "the next leader finds the gang" : "a later cycle retries it, "
                        + failedWrites.failed("evict", pod);
                LOG.atWarn().addKeyValue("cycle", cycle.cycle()).addKeyValue("pod", pod)
                        .log("rollback eviction of {} (gang member of failed {}) did not succeed: {}; {}", pod, failedMember,
                                result.outcome, wait);
            }
        });
    }

    private record Done(Result kind, ApiOutcome outcome) {}

    /** {@code cleanup}: a gang's rollback, sent even after leadership was lost (see {@link #call(String, boolean)}). */
    private CompletableFuture<Result> submit(String pod, boolean cleanup, CycleWrites cycle, java.util.function.Consumer<Done> after) {
        assumed.evicting(pod);
        CompletableFuture<Result> f = new CompletableFuture<>();
        try {
            pool.execute(() -> {
                Done d = call(pod, cleanup);
                try {
                    after.accept(d);
                } finally {
                    f.complete(d.kind());
                }
            });
        } catch (RejectedExecutionException closed) {
            assumed.forgetEviction(pod);
            f.complete(Result.FAILED);
        }
        return f;
    }

    private Done call(String pod) {
        return call(pod, false);
    }

    /**
     * One eviction with its retries. {@code cleanup}: a gang's rollback, sent even after leadership was lost (the
     * Lease is still this replica's until it expires, and a gang left below minMember holds what others need); not
     * after shutdown.
     */
    private Done call(String pod, boolean cleanup) {
        ApiOutcome o = cleanup
                ? backoff.run(() -> postEviction(pod, false, true), r -> r.retryable() && !r.tooManyRequests() && !api.isShutDown())
                : retried(() -> postEviction(pod, false));
        if (o.ok() || o.notFound()) {
            assumed.evictionAccepted(pod);
            return new Done(Result.EVICTED, o);
        }
        assumed.forgetEviction(pod);
        return new Done(o.tooManyRequests() ? Result.REFUSED : Result.FAILED, o);
    }

    /** Retries what may pass on a second try, within the cycle's backoff; never a 429 (a budget says no for now). */
    private ApiOutcome retried(java.util.function.Supplier<ApiOutcome> post) {
        return backoff.run(post, r -> r.retryable() && !r.tooManyRequests() && !api.isClosed());
    }

    private ApiOutcome postEviction(String podKey, boolean dryRun) {
        return postEviction(podKey, dryRun, false);
    }

    private ApiOutcome postEviction(String podKey, boolean dryRun, boolean cleanup) {
        String[] id = podKey.split("/", 2);
        EvictionBuilder b = new EvictionBuilder().withNewMetadata().withNamespace(id[0]).withName(id[1]).endMetadata();
        if (dryRun) b.withDeleteOptions(new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder().withDryRun("All").build());
        // The dry run is said twice, in the body and in the query (they must agree): the query is what audit logs show.
        String path = "/api/v1/namespaces/" + id[0] + "/pods/" + id[1] + "/eviction" + (dryRun ? "?dryRun=All" : "");
        return cleanup ? api.postCleanup(path, b.build()) : api.post(path, b.build());
    }
}
