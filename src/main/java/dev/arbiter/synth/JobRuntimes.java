package dev.arbiter.synth;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Runtimes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Gives a generated cluster's jobs runtimes: each job (a PodGroup, or a pod alone) gets an estimate of 10 minutes to 8
 * hours, in whole minutes, log-uniform ({@link Runtimes#ESTIMATE} on its pods), and a real running time in the
 * simulator of {@code estimate × exp(sigma × N(0,1))}, lognormal noise around the estimate, at least a minute
 * ({@link Runtimes#SIMULATED}); {@code sigma} 0 makes the estimates exact. From a random stream of its own: the same
 * seed gives the same runtimes, and the cluster is otherwise the generator's.
 */
public final class JobRuntimes {
    static final long SHORTEST = 10 * 60;
    static final long LONGEST = 8 * 3600;

    private JobRuntimes() {}

    public static Manifests withRuntimes(Manifests m, long seed, double sigma) {
        if (!(sigma >= 0 && sigma <= 3)) throw new IllegalArgumentException("estimate noise must be between 0 and 3, got " + sigma);
        Random rnd = new Random(seed * 0x9E3779B97F4A7C15L + 39);
        Map<String, long[]> byJob = new HashMap<>();
        List<PodSpec> pods = new ArrayList<>(m.pods().size());
        for (PodSpec p : m.pods()) {
            long[] r = byJob.computeIfAbsent(p.jobId(), j -> draw(rnd, sigma));
            Map<String, String> a = new HashMap<>(p.annotations());
            a.put(Runtimes.ESTIMATE, Long.toString(r[0]));
            a.put(Runtimes.SIMULATED, Long.toString(r[1]));
            pods.add(p.withAnnotations(a));
        }
        return new Manifests(m.nodes(), pods, m.podGroups(), m.queues(), m.priorityClasses(), m.notices(),
                m.namespaceLabels(), m.hyperNodes(), m.queueUsage());
    }

    /** {estimate, actual} in seconds. */
    private static long[] draw(Random rnd, double sigma) {
        double minutes = Math.exp(Math.log(SHORTEST / 60.0) + rnd.nextDouble() * Math.log((double) LONGEST / SHORTEST));
        long estimate = Math.round(minutes) * 60;
        long actual = Math.max(60, Math.round(estimate * Math.exp(sigma * rnd.nextGaussian())));
        return new long[] {estimate, actual};
    }
}
