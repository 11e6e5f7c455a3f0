package dev.arbiter.authoring;

import dev.arbiter.engine.rules.PolicyException;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.SessionHook;
import dev.arbiter.engine.rules.SessionWatches;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds rules whose matches grow with the square of the cluster: the rules that, at production size, hold millions
 * of partial matches in memory (see stack-notes: about 150 B and 1 µs per match, for the life of the session).
 *
 * <p>How: the rules run over two generated clusters, the second with twice the pods and twice the nodes of the first
 * (same queues and priority classes), and the matches each rule creates are counted. A rule that joins on equality
 * grows about 2×; a rule that pairs running pods with running pods (or jobs with pods) without an equality grows
 * about 4×. A rule whose matches grow {@value #QUADRATIC_RATIO}× or more, and reach at least {@value #MIN_MATCHES}
 * on the larger cluster, is reported. Example: {@code TaskFact($q : queue) TaskFact(queue != $q)} makes 128 matches
 * on the small sample (16 running pods, 8 per queue) and 512 on the large one: growth 4.0, reported.
 *
 * <p>What is counted is complete matches (activations). A pair join whose pairs a later pattern of the same rule
 * filters out still holds the pairs in memory but creates few activations, so it is not caught; keep pair joins out
 * of rules altogether.
 *
 * <p>The real {@link Scheduler} runs a cycle on each sample, and a {@link SessionHook} counts what its rules session
 * does, so the facts and phases are exactly the engine's. The policy's firing limit and deadline apply, so a rule
 * that loops cannot hang {@code validate}: it is reported as looping.
 */
public final class MatchGrowth {
    static final double QUADRATIC_RATIO = 3.0;
    static final long MIN_MATCHES = 100;
    private static final Set<String> SCHEDULERS = Set.of("arbiter", "volcano");

    /** One rule's matches on the small and the large sample cluster. */
    public record Growth(String rule, long small, long large) {
        public double ratio() {
            return small == 0 ? (large == 0 ? 1.0 : Double.POSITIVE_INFINITY) : (double) large / small;
        }

        public boolean quadratic() {
            return large >= MIN_MATCHES && ratio() >= QUADRATIC_RATIO;
        }
    }

    /**
     * What the check measured: the sample sizes, every rule's growth, and the rules that kept firing until a phase hit
     * the firing limit on the small sample (they re-trigger themselves; the large sample is then not run).
     */
    public record Report(int smallPods, int smallNodes, int largePods, int largeNodes, List<Growth> rules,
                         List<String> looping) {
        public List<Growth> quadratic() {
            return rules.stream().filter(Growth::quadratic).toList();
        }
    }

    /** What one run counted: matches per rule, and the rules that kept firing past the firing limit. */
    record Counts(Map<String, Long> matches, List<String> looping) {}

    private MatchGrowth() {}

    /** Measures every rule of {@code book} on a sample cluster of 4 nodes and 32 gang pods (plus 7 unusual jobs) and one of 8 nodes and 64. */
    public static Report measure(RuleBook book) {
        ClusterSnapshot small = sampleCluster(32, 4);
        ClusterSnapshot large = sampleCluster(64, 8);
        Counts s = countMatches(book, small);
        Map<String, Long> l = s.looping().isEmpty() ? countMatches(book, large).matches() : Map.of();
        List<Growth> out = new ArrayList<>();
        for (String rule : book.ruleNames()) {
            out.add(new Growth(rule, s.matches().getOrDefault(rule, 0L), l.getOrDefault(rule, 0L)));
        }
        return new Report(small.pods().size(), small.nodes().size(), large.pods().size(), large.nodes().size(), out,
                s.looping());
    }

    /**
     * A busy cluster of {@code nodes} 8-GPU nodes and {@code pods} 2-GPU pods in gangs of 4 (a master and three
     * workers), spread over two tenant queues under one parent queue and three priority classes: half the gangs run
     * (one pod per node slot; some for less than the churn rules' minimum runtime, most for longer; one is marked not
     * preemptable), half are pending. Seven more pending jobs, the same in both sizes, cover the unusual cases: a closed
     * queue, an unknown queue, a job bigger than the cluster, no priority class, an unknown class, and a class and a pod
     * that never preempt. The clock reads 1000 s.
     */
    static ClusterSnapshot sampleCluster(int pods, int nodes) {
        ClusterBuilder b = ClusterBuilder.cluster()
                .nodes(nodes, "nvidia.com/gpu", 8, "cpu", 64, "memory", "512Gi")
                .queue("org").weight(1).end()
                .queue("team-a").parent("org").weight(2).end()
                .queue("team-b").parent("org").weight(1).end()
                .priorityClass("high", 1000)
                .priorityClass("normal", 100, true)
                .priorityClass("low", 10);
        String[] classes = {"high", "normal", "low"};
        int gangs = pods / 4;
        int slot = 0;
        for (int g = 0; g < gangs; g++) {
            ClusterBuilder.JobBuilder job = b.job((g % 2 == 0 ? "ns-a/job-" : "ns-b/job-") + g)
                    .queue(g % 2 == 0 ? "team-a" : "team-b").priorityClass(classes[g % 3])
                    .pods("master", 1, "nvidia.com/gpu", 2, "cpu", 8)
                    .pods("worker", 3, "nvidia.com/gpu", 2, "cpu", 8).minMember(4);
            if (g < gangs / 2) {
                String[] on = new String[4];
                for (int i = 0; i < 4; i++) on[i] = "node-" + (slot++ % nodes + 1);
                job.running(on).startedAt(g % 4 == 3 ? 990 : 100);
                if (g == 1) job.notPreemptable();
            }
            job.end();
        }
        // The cases a healthy cluster rarely has, one pending job each, so that the rules for them match too.
        b.queue("retired").state("Closed").end();
        b.priorityClassSpec(new dev.arbiter.model.PriorityClassSpec("polite", 500, false, "Never"));
        b.job("ns-a/to-a-closed-queue").queue("retired").pods(1, "nvidia.com/gpu", 1).end();
        b.job("ns-a/to-no-queue").queue("nowhere").pods(1, "nvidia.com/gpu", 1).end();
        b.job("ns-a/bigger-than-the-cluster").queue("team-a").pods(1, "nvidia.com/gpu", 8 * nodes + 1).end();
        b.job("ns-a/without-a-class").queue("team-a").pods(1, "nvidia.com/gpu", 1).end();
        b.job("ns-a/unknown-class").queue("team-a").priorityClass("ghost").pods(1, "nvidia.com/gpu", 1).end();
        b.job("ns-b/polite-class").queue("team-b").priorityClass("polite").pods(1, "nvidia.com/gpu", 1).end();
        b.job("ns-b/polite-pod").queue("team-b").priorityClass("high").preemptionPolicy("Never").pods(1, "nvidia.com/gpu", 1).end();
        return b.snapshot(1000);
    }

    /**
     * Matches created and firings per rule name while the real engine runs one cycle over the snapshot (through its
     * session hook, so the facts are exactly the engine's). A rule that keeps firing until the policy's firing limit
     * stops its phase is reported as looping, and the cycle ends there.
     */
    static Counts countMatches(RuleBook book, ClusterSnapshot snapshot) {
        Map<String, Long> matches = new HashMap<>();
        java.util.Set<String> looping = new java.util.TreeSet<>();
        SessionHook hook = SessionWatches.countingMatches(matches);
        try {
            new Scheduler(book, new SchedulerConfig(SCHEDULERS, null)).withHook(hook).schedule(snapshot, 1);
        } catch (PolicyException e) {
            if (e.rule() != null && e.getMessage().contains("kept firing")) looping.add(e.rule());
            else throw e;
        }
        return new Counts(matches, List.copyOf(looping));
    }
}
