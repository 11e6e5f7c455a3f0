package dev.arbiter.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import dev.arbiter.synth.ClusterWorld;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.LongRange;

/**
 * Liveness, beside the safety invariants: under constant demand (evicted pods come straight back, as their
 * controllers recreate them), once the minimum runtimes have passed, no queue with a startable job stays below its
 * deserved share while a reclaimable queue could give something back and still hold its own (or runs a whole job
 * larger than its own, which reclaim takes as a last resort).
 *
 * <p>"Startable": the job is admitted, its gang cannot start with what runs, and what it still needs to start fits
 * under its queue's deserved share on top of what the queue holds — reclaim could start it. The clusters are 2–8 nodes
 * of 8 GPUs, 2–4 reclaimable queues of weights 1–4, and 1–12 gangs of 1–3 whole-node pods with minMember 1..size, some
 * running from the start; every pod is preemptable and every job may preempt, so only fair-share policy decides.
 */
class LivenessPropertyTest {
    private static final String GPU = "nvidia.com/gpu";
    private static final RuleBook RULES = RuleBook.load(Path.of("rules"));
    private static final int MAX_CYCLES = 40;

    @Property(tries = 300, seed = "20261201", shrinking = ShrinkingMode.OFF)
    void noStartableJobWaitsBelowItsShareWhileAnotherQueueHoldsMoreThanItsOwn(
            @ForAll @LongRange(min = 1, max = 1_000_000_000L) long seed) {
        ClusterWorld world = new ClusterWorld(randomCluster(seed).manifests()).recreatingEvicted().withNominations();
        Scheduler engine = new Scheduler(RULES, SchedulerConfig.simulatorDefault());
        ClusterSnapshot last = null;
        CycleResult lastResult = null;
        for (int cycle = 1; cycle <= MAX_CYCLES && last == null; cycle++) {
            ClusterSnapshot snap = world.snapshot();
            CycleResult r = engine.schedule(snap, cycle);
            // A cycle that changes nothing, with no protection about to expire (the world's clock moves 30 s a
            // cycle), is where the cluster has settled.
            if (!world.apply(r) && r.wakeAt() < 0) {
                last = snap;
                lastResult = r;
            }
        }
        assertTrue(last != null, "seed " + seed + ": still changing after " + MAX_CYCLES + " cycles");
        List<String> waiting = waitingBelowShare(last, lastResult);
        assertTrue(waiting.isEmpty(), "seed " + seed + ":\n  " + String.join("\n  ", waiting));
    }

    /** Admitted jobs that cannot start although reclaim could start them, while some other queue is over its share. */
    private static List<String> waitingBelowShare(ClusterSnapshot snap, CycleResult r) {
        Map<String, QueueStatus> queues = new HashMap<>();
        for (QueueStatus q : r.queues()) queues.put(q.queue(), q);
        Map<String, QueueSpec> specs = new HashMap<>();
        for (QueueSpec q : snap.queues()) specs.put(q.name(), q);
        Map<String, List<PodSpec>> members = new HashMap<>();
        for (PodSpec p : snap.pods()) if (p.groupName() != null) members.computeIfAbsent(p.namespace() + "/" + p.groupName(), k -> new ArrayList<>()).add(p);
        Map<String, PodGroupSpec> groups = new HashMap<>();
        for (PodGroupSpec g : snap.podGroups()) groups.put(g.key(), g);
        List<String> out = new ArrayList<>();
        for (PodGroupStatus g : r.podGroups()) {
            if (!g.phase().equals("Inqueue")) continue;
            PodGroupSpec spec = groups.get(g.podGroup());
            List<PodSpec> pods = members.getOrDefault(g.podGroup(), List.of());
            long running = pods.stream().filter(PodSpec::isBound).count();
            if (running >= Math.max(1, spec.minMember())) continue;
            long needPods = Math.max(1, spec.minMember()) - running;
            Resources need = Resources.of(GPU, 8 * needPods);
            QueueStatus q = queues.get(spec.queue());
            if (!q.allocated().plusWithinIn(need, q.deserved(), need)) continue;
            for (QueueStatus v : r.queues()) {
                if (v.queue().equals(q.queue()) || !specs.get(v.queue()).reclaimable()) continue;
                if (canGive(v, snap, members, groups)) {
                    out.add(g.podGroup() + " (queue " + q.queue() + " holds " + q.allocated() + " of deserved " + q.deserved()
                            + ", needs " + need + " to start) waits while queue " + v.queue() + " holds " + v.allocated()
                            + " of deserved " + v.deserved() + "; reason: " + g.reason());
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Whether queue {@code v} runs a unit reclaim may take: a pod whose job keeps minMember without it, or a whole job,
     * that leaves the queue at least at its deserved share (its floor) — or a whole job larger than that share, which
     * the shipped policy takes as a last resort ({@code victims.gangBelowFloor: evict}).
     */
    private static boolean canGive(QueueStatus v, ClusterSnapshot snap, Map<String, List<PodSpec>> members,
                                   Map<String, PodGroupSpec> groups) {
        long held = v.allocated().milli(GPU), floor = v.deserved().milli(GPU);
        for (PodGroupSpec g : snap.podGroups()) {
            if (!g.queue().equals(v.queue())) continue;
            long running = members.getOrDefault(g.key(), List.of()).stream().filter(PodSpec::isBound).count();
            if (running == 0) continue;
            long unit = (running - 1 >= Math.max(1, g.minMember()) ? 1 : running) * 8_000;
            boolean whole = unit == running * 8_000;
            if (held - unit >= floor || (whole && unit > floor)) return true;
        }
        return false;
    }

    /** 2–8 nodes of 8 GPUs, 2–4 reclaimable queues, 1–12 gangs of 1–3 whole-node pods, some running from the start. */
    static ClusterBuilder randomCluster(long seed) {
        Random rnd = new Random(seed);
        int nodes = 2 + rnd.nextInt(7);
        ClusterBuilder c = ClusterBuilder.cluster().nodes(nodes, GPU, 8);
        int queues = 2 + rnd.nextInt(3);
        for (int q = 0; q < queues; q++) c.queue("q" + q).weight(1 + rnd.nextInt(4)).end();
        int nextFree = 0;
        int jobs = 1 + rnd.nextInt(12);
        for (int j = 0; j < jobs; j++) {
            int pods = 1 + rnd.nextInt(3);
            ClusterBuilder.JobBuilder b = c.job("ns/j" + j).queue("q" + rnd.nextInt(queues)).pods(pods, GPU, 8)
                    .minMember(1 + rnd.nextInt(pods));
            if (rnd.nextBoolean() && nextFree + pods <= nodes) {
                String[] placed = new String[pods];
                for (int p = 0; p < pods; p++) placed[p] = "node-" + (++nextFree);
                b.running(placed).startedAt(0);
            }
            b.end();
        }
        return c;
    }
}
