package dev.arbiter.live;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The writes one cycle handed to the actuator, which finish after the cycle does: bindings and evictions on the
 * binder pool, status on the status writers. The cycle never waits for them; {@link #await} is for callers that want
 * the outcome (tests, tools) and {@link #whenDone} for the loop's log line. Counts are filled in as writes finish.
 */
public final class CycleWrites {
    private final int cycle;
    final AtomicInteger bound = new AtomicInteger();
    final AtomicInteger bindFailures = new AtomicInteger();
    final AtomicInteger evicted = new AtomicInteger();
    final AtomicInteger evictionsRefused = new AtomicInteger();
    /** Victims of a plan not evicted because another victim of it was refused (all or none). */
    final AtomicInteger evictionsWithheld = new AtomicInteger();
    final AtomicInteger evictionFailures = new AtomicInteger();
    final AtomicInteger rolledBack = new AtomicInteger();
    final AtomicInteger statusWrites = new AtomicInteger();
    final AtomicInteger events = new AtomicInteger();
    private final int issuedBindings;
    private final int issuedEvictions;
    private final List<CompletableFuture<?>> pending = new ArrayList<>();
    private volatile CompletableFuture<Void> all;

    CycleWrites(int cycle, int issuedBindings, int issuedEvictions) {
        this.cycle = cycle;
        this.issuedBindings = issuedBindings;
        this.issuedEvictions = issuedEvictions;
    }

    /** A write of this cycle still to finish. Called only while the cycle dispatches. */
    synchronized void track(CompletableFuture<?> write) {
        pending.add(write);
    }

    /** No more writes will be tracked. */
    synchronized CycleWrites seal() {
        all = CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
        return this;
    }

    public int cycle() {
        return cycle;
    }

    /** Bindings the cycle issued (each pod once). */
    public int issuedBindings() {
        return issuedBindings;
    }

    public int issuedEvictions() {
        return issuedEvictions;
    }

    /** Victims not evicted, so far, because another victim of their preemptor's plan was refused. */
    public int evictionsWithheld() {
        return evictionsWithheld.get();
    }

    public boolean isDone() {
        return all != null && all.isDone();
    }

    /** Runs {@code then} with the final counts once every write of the cycle has finished (on a writer thread). */
    public void whenDone(Consumer<Actuator.Report> then) {
        all.whenComplete((ok, error) -> then.accept(counts()));
    }

    /**
     * Waits until every write of the cycle has finished (at most {@code timeout}) and returns the counts; writes still
     * running after the timeout are left out of them.
     */
    public Actuator.Report await(Duration timeout) {
        try {
            all.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // counted as far as they got
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return counts();
    }

    /** The counts so far. */
    public Actuator.Report counts() {
        return new Actuator.Report(bound.get(), bindFailures.get(), evicted.get(), evictionsRefused.get(),
                evictionFailures.get(), rolledBack.get(), statusWrites.get(), events.get());
    }
}
