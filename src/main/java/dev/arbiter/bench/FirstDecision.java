package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.RuleBook;
import dev.arbiter.engine.RulesCache;
import dev.arbiter.engine.Scheduler;
import dev.arbiter.engine.SchedulerConfig;
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
 * <p>Usage: {@code java -cp <classpath> dev.arbiter.bench.FirstDecision RULES_DIR NODES PODS QUEUES SEED [MEMORY_DIVISOR [no-reclaimable-queues]]}.
 */
public final class FirstDecision {
    private FirstDecision() {}

    public static void main(String[] args) {
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        RuleBook rules = RuleBook.load(Path.of(args[0]), RulesCache.fromEnvironment(System.getProperty("arbiter.rulesCache")));
        long rulesAt = System.currentTimeMillis() - jvmStart;
        long g0 = System.nanoTime();
        SynthSpec spec = SynthSpec.fleet(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                Long.parseLong(args[4])).withMemoryDivisor(args.length > 5 ? Integer.parseInt(args[5]) : 1);
        if (args.length > 6 && args[6].equals("no-reclaimable-queues")) spec = spec.withoutReclaimableQueues();
        ClusterSnapshot snapshot = new ClusterWorld(ClusterGenerator.generate(spec)).snapshot();
        long generateMs = (System.nanoTime() - g0) / 1_000_000;
        long snapshotAt = System.currentTimeMillis() - jvmStart;
        CycleResult r = new Scheduler(rules, SchedulerConfig.simulatorDefault()).withoutTrace().schedule(snapshot, 1); // as `run` has it
        long decisionAt = System.currentTimeMillis() - jvmStart;
        System.out.println("cold-start rules=" + rulesAt + " snapshot=" + snapshotAt + " decision=" + decisionAt
                + " generate=" + generateMs + " bindings=" + r.bindings().size());
    }
}
