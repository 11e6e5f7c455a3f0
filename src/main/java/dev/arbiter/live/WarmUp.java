package dev.arbiter.live;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warms the engine while the informers list the cluster: in a fresh JVM the first real cycle at 10k nodes x 100k
 * pending pods runs mostly interpreted and takes several times as long as the same cycle warm. Listing a large cluster
 * takes seconds too, and during that time this runs cycles of the same rules, configured as the real scheduler, on a
 * small synthetic cluster ({@link #CLUSTER}), on a thread of its own, so that the first real cycle finds the engine's
 * code compiled.
 *
 * <p>What it touches: every cycle is a new {@link Scheduler} over the same {@link RuleBook} (immutable; its KieBase
 * opens independent sessions), on a snapshot generated here. It shares no mutable state with the real scheduler, and
 * it neither writes to the cluster, nor records metrics, nor emits events: nothing but a log line at debug level.
 *
 * <p>When it stops: before each cycle it asks {@code done} (the real scheduler is about to decide: in {@code run},
 * the informers' first lists have returned; in the cold-start probe, the snapshot is ready), and it stops at {@link Plan#maxCycles} cycles or after {@link Plan#maxTime}, whichever comes first; a
 * failing cycle (broken rules) stops it too, quietly: the real cycle reports the failure. So the first real cycle is
 * delayed by at most the rest of one small warm-up cycle running beside it. {@link #stop()} asks it to stop at the
 * next cycle boundary without waiting.
 */
public final class WarmUp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);

    /**
     * The synthetic cluster it schedules: 200 nodes (8 GPUs each, half busy) and 2,000 pending pods in 20 queues, with
     * the benchmark's mix of placement constraints. Small, so that a cold JVM gets through several cycles in the
     * seconds a large cluster takes to list (500 x 5,000 got through only one or two, and warmed less;
     * docs/benchmarks.md, "Cold start"), and a warm cycle takes tens of milliseconds.
     */
    public static final SynthSpec CLUSTER = SynthSpec.fleet(200, 2000, 20, 17).withConstraints(SynthSpec.Constraints.MIX);

    /** How much to warm up at most. */
    public record Plan(SynthSpec cluster, int maxCycles, Duration maxTime) {
        /** {@link #CLUSTER}, at most 10 cycles or 20 s. */
        public static Plan standard() {
            return new Plan(CLUSTER, 10, Duration.ofSeconds(20));
        }
    }

    /**
     * Whether warming up pays in this JVM, for {@code run}'s default: not when it maps an AOT cache ({@code -XX:AOTCache},
     * JDK 25+, as the image does), whose training already left method profiles for the engine's code. Measured at 10k
     * x 100k on 2 cores (docs/benchmarks.md, "Cold start"): without such a cache the warm-up brought the first decision
     * about a sixth sooner; with one, it saved about a tenth of the time after the listing but, taking a core from the
     * listing, delayed the first decision overall.
     */
    public static boolean paysInThisJvm() {
        try {
            String cache = java.lang.management.ManagementFactory
                    .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("AOTCache").getValue();
            return cache == null || cache.isBlank();
        } catch (RuntimeException | LinkageError e) {
            return true; // a JVM without the option (JDK 17-24 has no AOTCache; other VMs)
        }
    }

    private final Thread thread;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final AtomicInteger cycles = new AtomicInteger();
    private volatile boolean stopAsked;

    private WarmUp(RuleBook rules, SchedulerConfig config, boolean keepSession, Plan plan, BooleanSupplier done) {
        this.thread = new Thread(() -> run(rules, config, keepSession, plan, done), "arbiter-warm-up");
        thread.setDaemon(true);
    }

    /**
     * Starts warming up on a daemon thread: schedulers like {@code new Scheduler(rules, config).withoutTrace()} (and
     * {@code .keepingSession().keepingWorkingCopy()} when {@code keepSession}; with {@code config}'s scoring, answering
     * the synthetic pods' scheduler name), until {@code done} says true or the plan runs out.
     */
    public static WarmUp start(RuleBook rules, SchedulerConfig config, boolean keepSession, Plan plan, BooleanSupplier done) {
        WarmUp w = new WarmUp(rules, config, keepSession, plan, done);
        w.thread.start();
        return w;
    }

    private void run(RuleBook rules, SchedulerConfig config, boolean keepSession, Plan plan, BooleanSupplier done) {
        long start = System.nanoTime();
        long deadline = start + plan.maxTime().toNanos();
        try {
            if (stopping(done)) return;
            ClusterSnapshot snapshot = new ClusterWorld(ClusterGenerator.generate(plan.cluster())).snapshot();
            // The real scheduler's scoring; the scheduler name the synthetic pods carry.
            SchedulerConfig own = new SchedulerConfig(Set.of(ClusterGenerator.SCHEDULER), config.scoring());
            while (cycles.get() < plan.maxCycles() && System.nanoTime() < deadline && !stopping(done)) {
                // A new scheduler each time: each cycle takes the path of a first cycle (a new session, every fact inserted).
                Scheduler s = new Scheduler(rules, own).withoutTrace();
                if (keepSession) s = s.keepingSession().keepingWorkingCopy();
                try {
                    s.schedule(snapshot, cycles.get() + 1);
                } finally {
                    s.dropSession();
                }
                cycles.incrementAndGet();
            }
        } catch (Throwable t) {
            // The real cycle meets the same rules and reports what is wrong with them; a warm-up has nothing to add.
            LOG.debug("warm-up stopped: {}", t.toString());
        } finally {
            LOG.debug("warm-up: {} cycles in {} ms", cycles.get(), (System.nanoTime() - start) / 1_000_000);
            finished.countDown();
        }
    }

    private boolean stopping(BooleanSupplier done) {
        return stopAsked || done.getAsBoolean();
    }

    /** Asks the warm-up to stop before its next cycle; does not wait. */
    public void stop() {
        stopAsked = true;
    }

    /** Cycles completed so far. */
    public int cycles() {
        return cycles.get();
    }

    /** Waits up to {@code timeout} for the warm-up to end; true when it has. */
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        return finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        stop();
    }
}
