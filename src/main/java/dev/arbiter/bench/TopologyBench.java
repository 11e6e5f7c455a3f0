package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.SynthSpec;
import dev.arbiter.synth.TieredFleet;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The topology benchmark ({@code arbiter bench --topology}):
 * <ol>
 *   <li><b>A 1,000-pod hard gang on a 10k-node 3-tier fleet.</b> The generated fleet of {@code nodes} nodes and
 *       {@code pendingPods} pending pods (30% of the GPUs busy), in racks of 16 nodes and blocks of 32 racks, once
 *       with label levels
 *       {@code [block, rack, kubernetes.io/hostname]} (tiers 3, 2, 1) and once with HyperNodes (racks tier 1, blocks
 *       tier 2), plus a top-priority gang of 1,000 one-GPU pods that must stay inside one rack or block. The cycle
 *       that decides it is timed (best of 3), beside the same cycle without the gang.</li>
 *   <li><b>Fragmentation.</b> One workload on 512 nodes of 8 GPUs in 64 racks of 8, racks dealt round-robin over the
 *       node names (as in a fleet whose names say nothing of racks): first small unconstrained jobs fill about half
 *       the GPUs, then 24 gangs that each need one whole rack arrive. With the racks and blocks as the policy's label
 *       levels, run with topology-aware placement of the small jobs (the default policy) and without it
 *       ({@code topology.preferFullerDomains: false}), it reports the racks left partly used
 *       and the hard gangs that could not start although enough GPUs were free in total.</li>
 * </ol>
 */
public final class TopologyBench {
    private static final String GPU = ClusterGenerator.GPU;

    private final Path rules;
    private final long seed;
    private final PrintWriter progress;

    public TopologyBench(Path rules, long seed, PrintWriter progress) {
        this.rules = rules;
        this.seed = seed;
        this.progress = progress;
    }

    /** One timed gang decision: the source of tiers, the cycle with and without the gang, and the gang's outcome. */
    public record GangRow(String source, int nodes, int pendingPods, double withGangMs, double withoutGangMs,
                          String outcome) {}

    /** Fragmentation after one workload, with or without topology-aware placement. */
    public record FragmentationRow(String placement, int racksPartlyUsed, int racksWhollyFree, int hardGangsStarted,
                                   int hardGangsBlocked, long freeGpus) {}

    public record Result(List<GangRow> gangs, List<FragmentationRow> fragmentation) {}

    public Result run(int nodes, int pendingPods) {
        List<GangRow> gangs = new ArrayList<>();
        gangs.add(gang(nodes, pendingPods, TieredFleet.Source.LABELS, false));
        gangs.add(gang(nodes, pendingPods, TieredFleet.Source.HYPERNODES, false));
        gangs.add(gang(nodes, pendingPods, TieredFleet.Source.HYPERNODES, true));
        List<FragmentationRow> frag = new ArrayList<>();
        frag.add(fragmentation(true));
        frag.add(fragmentation(false));
        return new Result(gangs, frag);
    }

    // ---- 1. the gang --------------------------------------------------------------------------------------------

    /**
     * With {@code alone}, the generated pending pods are left out: the cycle decides the gang and little else, so its
     * time is the gang's decision on the running fleet.
     */
    private GangRow gang(int nodes, int pendingPods, TieredFleet.Source source, boolean alone) {
        say("topology: " + nodes + " nodes x " + pendingPods + " pending pods, tiers from "
                + source.name().toLowerCase(Locale.ROOT) + (alone ? ", the gang alone" : ""));
        // 30% of the GPUs busy, racks of 16 nodes, blocks of 32 racks: a block has room for the gang, a rack has not.
        Manifests m = ClusterGenerator.generate(new SynthSpec(nodes, pendingPods, 20, seed, 0.3, 64, 8));
        m = TieredFleet.tiered(m, 16, 32, source);
        if (alone) {
            List<PodSpec> running = m.pods().stream().filter(PodSpec::isBound).toList();
            java.util.Set<String> jobs = new java.util.HashSet<>();
            for (PodSpec p : running) jobs.add(p.jobId());
            m = new Manifests(m.nodes(), running, m.podGroups().stream().filter(g -> jobs.contains(g.key())).toList(),
                    m.queues(), m.priorityClasses(), m.notices(), m.namespaceLabels(), m.hyperNodes());
        }
        boolean labels = source == TieredFleet.Source.LABELS;
        Scheduler engine = scheduler(labels ? "topology:\n  levels: [" + TieredFleet.BLOCK + ", " + TieredFleet.RACK
                + ", kubernetes.io/hostname]\n" : "");
        ClusterSnapshot base = new ClusterSnapshot(m.nodes(), m.pods(), m.podGroups(), m.queues(), m.priorityClasses())
                .withHyperNodes(m.hyperNodes());
        ClusterSnapshot withGang = Benchmark.withBigGang(base, 1000, 8).withHyperNodes(m.hyperNodes());
        // rack or block: tier <= 3 with the label levels (block is tier 3), tier <= 2 with HyperNodes (block is 2).
        NetworkTopology t = NetworkTopology.tiers(true, labels ? 3 : 2);
        List<PodGroupSpec> groups = new ArrayList<>();
        for (PodGroupSpec g : withGang.podGroups()) groups.add(g.name().equals("giant") ? g.withNetworkTopology(t) : g);
        ClusterSnapshot snap = new ClusterSnapshot(withGang.nodes(), withGang.pods(), groups, withGang.queues(),
                withGang.priorityClasses()).withHyperNodes(m.hyperNodes());
        engine.schedule(base, 1); // warm up
        double without = best(() -> engine.schedule(base, 1));
        CycleResult[] last = new CycleResult[1];
        double with = best(() -> last[0] = engine.schedule(snap, 1));
        PodGroupStatus g = last[0].podGroups().stream().filter(s -> s.podGroup().equals("bench/giant")).findFirst().orElseThrow();
        String outcome = (g.phase().equals("Running") ? "running in " + g.domain()
                : g.phase() + ": " + (g.reason() == null ? "" : g.reason())) + "; phases ms " + phases(last[0]);
        say(String.format(Locale.ROOT, "topology: the cycle deciding the gang %.0f ms (%.0f ms without it): %s", with, without, outcome));
        return new GangRow((labels ? "labels [block, rack, hostname]" : "HyperNodes (rack 1, block 2)")
                + (alone ? ", gang alone" : ""), nodes, alone ? 0 : pendingPods, with, without, outcome);
    }

    private static String phases(CycleResult r) {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(r.phaseMillis()).forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ')
                .append(Math.round(v)));
        return sb.toString();
    }

    private static double best(Runnable r) {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            r.run();
            best = Math.min(best, (System.nanoTime() - t0) / 1e6);
        }
        return best;
    }

    // ---- 2. fragmentation ---------------------------------------------------------------------------------------

    private static final int NODES = 512, RACK_SIZE = 8, GANGS = 24;

    private FragmentationRow fragmentation(boolean aware) {
        say("topology: fragmentation " + (aware ? "with" : "without") + " topology-aware placement");
        Manifests m = fragmentationWorkload();
        Scheduler engine = scheduler("topology:\n  levels: [" + TieredFleet.BLOCK + ", " + TieredFleet.RACK + "]\n"
                + "  preferFullerDomains: " + aware + "\n");
        SimulationResult r = new Simulator(engine).run(m, 10);
        Map<String, String> rackOf = new HashMap<>();
        for (NodeSpec n : m.nodes()) rackOf.put(n.name(), n.labels().get(TieredFleet.RACK));
        Map<String, Long> used = new HashMap<>();
        Map<String, Resources> requests = new HashMap<>();
        for (PodSpec p : m.pods()) requests.put(p.key(), p.requests());
        long usedTotal = 0;
        for (PodOutcome p : r.pods()) {
            if (p.node() == null) continue;
            long g = requests.get(p.pod()).milli(GPU) / 1000;
            used.merge(rackOf.get(p.node()), g, Long::sum);
            usedTotal += g;
        }
        int racks = NODES / RACK_SIZE, partly = 0, free = 0;
        for (int i = 0; i < racks; i++) {
            long u = used.getOrDefault(TieredFleet.rackName(i, 8), 0L);
            if (u == 0) free++;
            else if (u < RACK_SIZE * 8L) partly++;
        }
        long freeGpus = NODES * 8L - usedTotal;
        int started = 0, blocked = 0;
        for (PodGroupStatus g : r.podGroups()) {
            if (!g.podGroup().startsWith("train/")) continue;
            if (g.phase().equals("Running")) started++;
            else if (freeGpus >= RACK_SIZE * 8L) blocked++;
        }
        FragmentationRow row = new FragmentationRow(aware ? "topology-aware" : "topology-blind", partly, free, started,
                blocked, freeGpus);
        say("topology: " + row);
        return row;
    }

    /** 512 nodes in 64 racks of 8 (racks round-robin over node names); small jobs at cycle 0, rack gangs at cycle 1. */
    private Manifests fragmentationWorkload() {
        List<NodeSpec> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            int rack = i % (NODES / RACK_SIZE);
            nodes.add(new NodeSpec(String.format("node-%03d", i), Map.of("kubernetes.io/hostname", String.format("node-%03d", i),
                    TieredFleet.RACK, TieredFleet.rackName(rack, 8), TieredFleet.BLOCK, TieredFleet.blockName(rack / 8)),
                    List.of(), false, Resources.of(GPU, 8, "cpu", 128, "pods", 110), 0));
        }
        List<PodSpec> pods = new ArrayList<>();
        List<PodGroupSpec> groups = new ArrayList<>();
        Random rnd = new Random(seed);
        long order = 0;
        int[] sizes = {1, 2, 4, 8};
        long gpus = 0;
        for (int j = 0; gpus < NODES * 8L / 2; j++) {
            int g = sizes[rnd.nextInt(sizes.length)];
            String name = "small-" + j;
            groups.add(new PodGroupSpec("batch", name, "default", 1, Map.of(), null, null, "Pending", 0, order++));
            pods.add(pod("batch", name + "-0", name, g, 0, order++, Map.of()));
            gpus += g;
        }
        for (int j = 0; j < GANGS; j++) {
            String name = "gang-" + j;
            groups.add(new PodGroupSpec("train", name, "default", RACK_SIZE, Map.of(), null, null, "Pending", 1, order++,
                    null));
            for (int k = 0; k < RACK_SIZE; k++) {
                pods.add(pod("train", name + "-" + k, name, 8, 1, order++,
                        Map.of(NetworkTopology.KUEUE_REQUIRED, TieredFleet.RACK)));
            }
        }
        return new Manifests(nodes, pods, groups, List.of(QueueSpec.defaultQueue()),
                List.<PriorityClassSpec>of(), List.of());
    }

    private static PodSpec pod(String ns, String name, String group, int gpus, int arrival, long order,
                               Map<String, String> extra) {
        Map<String, String> ann = new HashMap<>(extra);
        ann.put(PodSpec.GROUP_ANNOTATION, group);
        return new PodSpec(ns, name, ClusterGenerator.SCHEDULER, null, "Pending", null, null, null,
                Resources.of(GPU, gpus, "cpu", 4, "pods", 1), Map.of(), List.of(), Map.of(), ann, arrival, order, false);
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** The policy of {@code rules} overlaid with {@code policyYaml}, in a temporary pack. */
    private Scheduler scheduler(String policyYaml) {
        try {
            Path pack = Files.createTempDirectory("arbiter-topology-bench");
            Files.writeString(pack.resolve("pack.yaml"), "extends: " + rules.toAbsolutePath() + "\n");
            Files.writeString(pack.resolve("policy.yaml"), policyYaml.isEmpty() ? "{}\n" : policyYaml);
            RuleBook book = RuleBook.load(pack);
            return new Scheduler(book, SchedulerConfig.simulatorDefault());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void say(String line) {
        if (progress != null) {
            progress.println(line);
            progress.flush();
        }
    }

    /** The results as the benchmark page shows them. */
    public static String table(Result r) {
        StringBuilder sb = new StringBuilder();
        sb.append("1,000-pod hard gang (rack or block):\n");
        for (GangRow g : r.gangs()) {
            sb.append(String.format(Locale.ROOT, "  %-42s %6d nodes %7d pending | cycle with gang %6.0f ms, without %6.0f ms | %s%n",
                    g.source(), g.nodes(), g.pendingPods(), g.withGangMs(), g.withoutGangMs(), g.outcome()));
        }
        sb.append("fragmentation (512 nodes, 64 racks of 8; half the GPUs in small jobs, then 24 whole-rack gangs):\n");
        for (FragmentationRow f : r.fragmentation()) {
            sb.append(String.format(Locale.ROOT, "  %-15s racks partly used %2d, wholly free %2d | rack gangs started %2d of %d,"
                            + " blocked though %d GPUs free: %2d%n", f.placement(), f.racksPartlyUsed(), f.racksWhollyFree(),
                    f.hardGangsStarted(), GANGS, f.freeGpus(), f.hardGangsBlocked()));
        }
        return sb.toString();
    }
}
