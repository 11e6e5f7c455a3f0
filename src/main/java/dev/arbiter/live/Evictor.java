package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evictions through the policy/v1 Eviction API, so PodDisruptionBudgets are honoured, on the binder pool. The pod is
 * assumed leaving from the moment the eviction is issued (no cycle evicts it twice, and preemptors wait on it); a
 * refusal (429, a PodDisruptionBudget) is reported and never forced with a delete, and like a failure it gives the
 * pod back to the next cycle.
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

    /** Where eviction events go (the actuator resolves the pod's uid). */
    interface Reporter {
        void event(String pod, String type, String reason, String message, CycleWrites cycle);
    }

    Evictor(ApiCalls api, AssumeCache assumed, Metrics metrics, Backoff backoff, Executor pool, Reporter report) {
        this.api = api;
        this.assumed = assumed;
        this.metrics = metrics;
        this.backoff = backoff;
        this.pool = pool;
        this.report = report;
    }

    /**
     * Evicts a preemption or reclaim victim ({@code action} "preempt" or "reclaim") for {@code preemptor}, with the
     * rule and reason that chose it.
     */
    CompletableFuture<Result> evictVictim(String pod, String action, String preemptor, String rule, String reason,
                                          CycleWrites cycle) {
        return submit(pod, cycle, result -> {
            switch (result.kind) {
                case EVICTED -> {
                    metrics.decision(action, "ok");
                    cycle.evicted.incrementAndGet();
                    String why = action.equals("reclaim") ? "Reclaimed" : "Preempted";
                    report.event(pod, "Normal", why, why + " by PodGroup " + preemptor + " under rule \"" + rule + "\": "
                            + reason, cycle);
                }
                case REFUSED -> {
                    metrics.decision(action, "refused");
                    cycle.evictionsRefused.incrementAndGet();
                    LOG.info("eviction of {} for {} refused (PodDisruptionBudget): {}", pod, preemptor, result.outcome);
                    report.event(pod, "Warning", "EvictionRefused", "eviction to make room for PodGroup " + preemptor
                            + " refused, not forced: " + result.outcome, cycle);
                }
                default -> {
                    metrics.decision(action, "failed");
                    cycle.evictionFailures.incrementAndGet();
                    LOG.warn("eviction of {} for {} failed: {}", pod, preemptor, result.outcome);
                }
            }
        });
    }

    /** Evicts a member of a gang whose bindings failed (the member was already shown leaving by the binder). */
    CompletableFuture<Result> rollBack(String pod, String failedMember, CycleWrites cycle) {
        return submit(pod, cycle, result -> {
            if (result.kind == Result.EVICTED) {
                metrics.decision("rollback", "ok");
                cycle.rolledBack.incrementAndGet();
            } else {
                metrics.decision("rollback", result.kind == Result.REFUSED ? "refused" : "failed");
                LOG.warn("rollback eviction of {} (gang member of failed {}) did not succeed: {}; a later cycle retries it",
                        pod, failedMember, result.outcome);
            }
        });
    }

    private record Done(Result kind, ApiOutcome outcome) {}

    private CompletableFuture<Result> submit(String pod, CycleWrites cycle, java.util.function.Consumer<Done> after) {
        assumed.evicting(pod);
        CompletableFuture<Result> f = new CompletableFuture<>();
        try {
            pool.execute(() -> {
                Done d = call(pod);
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
        ApiOutcome o = backoff.run(() -> postEviction(pod), r -> r.retryable() && !r.tooManyRequests() && !api.isClosed());
        if (o.ok() || o.notFound()) {
            assumed.evictionAccepted(pod);
            return new Done(Result.EVICTED, o);
        }
        assumed.forgetEviction(pod);
        return new Done(o.tooManyRequests() ? Result.REFUSED : Result.FAILED, o);
    }

    private ApiOutcome postEviction(String podKey) {
        String[] id = podKey.split("/", 2);
        return api.post("/api/v1/namespaces/" + id[0] + "/pods/" + id[1] + "/eviction",
                new EvictionBuilder().withNewMetadata().withNamespace(id[0]).withName(id[1]).endMetadata().build());
    }
}
