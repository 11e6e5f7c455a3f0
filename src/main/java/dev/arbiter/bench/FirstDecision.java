package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RulesCache;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.live.WarmUp;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

/**
 * The cold-start probe the benchmark runs in a fresh JVM: load the rules, build the snapshot, decide once, and print
 * one line of milliseconds since the JVM started: {@code cold-start rules=<ms> snapshot=<ms> decision=<ms>
 * generate=<ms> bindings=<n>}, where {@code generate} is the part spent generating the synthetic cluster (which a live
 * scheduler receives from its informers instead).
 *
 * <p>The compiled rules come from the cache of {@code -Darbiter.rulesCache=DIR} (or {@code off}), else the one
 * {@link RulesCache#fromEnvironment} finds.
 *
 * <p>While it generates the cluster (which stands in for the informers' first lists), it warms up as {@code run} does
 * ({@link WarmUp}, by default when {@link WarmUp#paysInThisJvm}), and stops the warm-up when the snapshot is ready;
 * {@code -Darbiter.warmUp=on|off} forces it (as {@code run --warm-up|--no-warm-up}), {@code -Darbiter.warmUp=NODESxPODS}
 * warms up on a fleet of that size instead. The line ends with {@code warmup=<cycles>} (or {@code off}).
 *
 * <p>Usage: {@code java -cp <classpath> dev.arbiter.bench.FirstDecision RULES_DIR NODES PODS QUEUES SEED [MEMORY_DIVISOR [no-reclaimable-queues]]}.
 */
public final class FirstDecision {
    private FirstDecision() {}

    /** {@code on}: the standard plan; {@code NODESxPODS}: the standard plan on a fleet of that size. */
    private static WarmUp.Plan plan(String warm) {
        WarmUp.Plan standard = WarmUp.Plan.standard();
        if (warm.equals("on")) return standard;
        String[] size = warm.split("x");
        return new WarmUp.Plan(SynthSpec.fleet(Integer.parseInt(size[0]), Integer.parseInt(size[1]), 20, 17)
                .withConstraints(SynthSpec.Constraints.MIX), standard.maxCycles(), standard.maxTime());
    }

    public static void main(String[] args) {
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        RuleBook rules = RuleBook.load(Path.of(args[0]), RulesCache.fromEnvironment(System.getProperty("arbiter.rulesCache")));
        long rulesAt = System.currentTimeMillis() - jvmStart;
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        // As `run` does while its informers list the cluster (by default: unless an AOT cache is mapped): the
        // generation stands in for that listing.
        String warm = System.getProperty("arbiter.warmUp", "auto");
        if (warm.equals("auto")) warm = WarmUp.paysInThisJvm() ? "on" : "off";
        WarmUp warmUp = warm.equals("off") ? null : WarmUp.start(rules, config, false, plan(warm), () -> false);
        long g0 = System.nanoTime();
        SynthSpec spec = SynthSpec.fleet(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                Long.parseLong(args[4])).withMemoryDivisor(args.length > 5 ? Integer.parseInt(args[5]) : 1);
        if (args.length > 6 && args[6].equals("no-reclaimable-queues")) spec = spec.withoutReclaimableQueues();
        ClusterSnapshot snapshot = new ClusterWorld(ClusterGenerator.generate(spec)).snapshot();
        long generateMs = (System.nanoTime() - g0) / 1_000_000;
        long snapshotAt = System.currentTimeMillis() - jvmStart;
        if (warmUp != null) warmUp.stop();
        CycleResult r = new Scheduler(rules, config).withoutTrace().schedule(snapshot, 1); // as `run` has it
        long decisionAt = System.currentTimeMillis() - jvmStart;
        System.out.println("cold-start rules=" + rulesAt + " snapshot=" + snapshotAt + " decision=" + decisionAt
                + " generate=" + generateMs + " bindings=" + r.bindings().size() + " warmup=" + (warmUp == null ? "off" : warmUp.cycles()));
    }
}
