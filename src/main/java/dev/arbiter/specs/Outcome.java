package dev.arbiter.specs;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What a simulation ended with, read the way a product owner names things: a workload by its name (a PyTorchJob,
 * LeaderWorkerSet, job, group of jobs, PodGroup or bare pod; {@code namespace/name} when the name is ambiguous), a
 * pod by its name, a queue by its name, GPUs in whole units of the scenario's GPU resource. Every lookup that finds
 * nothing fails with the names it does know.
 */
final class Outcome {
    /** A workload's pods and the PodGroups they form, all in one namespace. */
    record Found(String name, String namespace, List<PodSpec> pods, List<String> podGroups) {}

    private final Manifests manifests;
    private final SimulationResult result;
    private final String gpu;
    private final Map<String, PodOutcome> podOutcomes;
    private final Map<String, PodGroupStatus> groupStatuses;

    Outcome(Manifests manifests, SimulationResult result, String gpu) {
        this.manifests = manifests;
        this.result = result;
        this.gpu = gpu;
        this.podOutcomes = result.pods().stream().collect(Collectors.toMap(PodOutcome::pod, Function.identity()));
        this.groupStatuses = result.podGroups().stream()
                .collect(Collectors.toMap(PodGroupStatus::podGroup, Function.identity(), (a, b) -> b));
    }

    SimulationResult result() {
        return result;
    }

    Manifests manifests() {
        return manifests;
    }

    /** The one-line notices reading the scenario's manifests gave. */
    List<String> notices() {
        return manifests.notices();
    }

    // ---- lookups -------------------------------------------------------------------------------------------------

    /** The workload called {@code ref} ({@code name} or {@code namespace/name}). */
    Found workload(String ref) {
        int slash = ref.indexOf('/');
        String ns = slash < 0 ? null : ref.substring(0, slash);
        String name = slash < 0 ? ref : ref.substring(slash + 1);
        List<PodSpec> pods = manifests.pods().stream()
                .filter(p -> (ns == null || p.namespace().equals(ns)) && belongsTo(p, name)).toList();
        Set<String> groups = new LinkedHashSet<>();
        for (PodGroupSpec g : manifests.podGroups()) {
            if ((ns == null || g.namespace().equals(ns)) && g.name().equals(name)) groups.add(g.key());
        }
        for (PodSpec p : pods) groups.add(groupOf(p));
        if (groups.isEmpty()) {
            throw new AssertionError("there is no workload, PodGroup or pod called \"" + ref + "\"; known workloads: "
                    + knownWorkloads());
        }
        Set<String> namespaces = new TreeSet<>();
        groups.forEach(g -> namespaces.add(g.substring(0, g.indexOf('/'))));
        if (namespaces.size() > 1) {
            throw new AssertionError("\"" + ref + "\" names workloads in several namespaces " + namespaces
                    + "; write \"<namespace>/" + name + "\"");
        }
        return new Found(ref, namespaces.iterator().next(), pods, List.copyOf(groups));
    }

    /** The pod called {@code ref} ({@code name} or {@code namespace/name}). */
    PodSpec pod(String ref) {
        List<PodSpec> found = manifests.pods().stream()
                .filter(p -> p.key().equals(ref) || p.name().equals(ref)).toList();
        if (found.size() == 1) return found.get(0);
        if (found.isEmpty()) {
            throw new AssertionError("there is no pod called \"" + ref + "\"; pods: "
                    + manifests.pods().stream().map(PodSpec::name).toList());
        }
        throw new AssertionError("\"" + ref + "\" names pods in several namespaces; write \"<namespace>/" + ref + "\"");
    }

    private static boolean belongsTo(PodSpec p, String name) {
        Map<String, String> l = p.labels();
        return name.equals(l.get(Workload.LABEL)) || name.equals(l.get("training.kubeflow.org/job-name"))
                || name.equals(l.get("leaderworkerset.sigs.k8s.io/name")) || name.equals(p.groupName())
                || (p.groupName() == null && p.name().equals(name));
    }

    /** The PodGroup a pod belongs to, or its implicit gang of one. */
    private static String groupOf(PodSpec p) {
        return p.jobId();
    }

    private String knownWorkloads() {
        Set<String> names = new TreeSet<>();
        for (PodSpec p : manifests.pods()) {
            String w = p.labels().get(Workload.LABEL);
            names.add(w != null ? w : p.groupName() != null ? p.groupName() : p.name());
        }
        manifests.podGroups().forEach(g -> names.add(g.name()));
        return names.toString();
    }

    PodGroupStatus status(String podGroup) {
        PodGroupStatus s = groupStatuses.get(podGroup);
        if (s == null) throw new AssertionError("PodGroup " + podGroup + " has no status: the scheduler never saw it");
        return s;
    }

    /** Pending, Running or Evicted. */
    String phaseOf(PodSpec pod) {
        PodOutcome o = podOutcomes.get(pod.key());
        return o == null ? "Pending" : o.phase();
    }

    /** The node a pod runs on at the end, or null. */
    String nodeOf(PodSpec pod) {
        PodOutcome o = podOutcomes.get(pod.key());
        return o != null && o.phase().equals("Running") ? o.node() : null;
    }

    /** The labels of a node. */
    Map<String, String> nodeLabels(String node) {
        return manifests.nodes().stream().filter(n -> n.name().equals(node)).findFirst().map(NodeSpec::labels)
                .orElseThrow(() -> new AssertionError("there is no node " + node));
    }

    List<Eviction> evictions() {
        List<Eviction> out = new ArrayList<>();
        for (CycleResult c : result.cycles()) out.addAll(c.evictions());
        return out;
    }

    QueueStatus queue(String name) {
        return result.queues().stream().filter(q -> q.queue().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("there is no queue \"" + name + "\"; queues: "
                        + result.queues().stream().map(QueueStatus::queue).toList()));
    }

    /** Milli-GPUs in {@code r}. */
    long gpuMilli(Resources r) {
        return r == null ? 0 : r.milli(gpu);
    }

    /** GPUs on schedulable nodes that no running pod holds, in milli-GPUs. */
    long idleGpuMilli() {
        long total = 0;
        for (NodeSpec n : manifests.nodes()) if (!n.unschedulable()) total += n.allocatable().milli(gpu);
        for (PodSpec p : manifests.pods()) if (phaseOf(p).equals("Running")) total -= p.requests().milli(gpu);
        return total;
    }

    // ---- descriptions for failure messages ----------------------------------------------------------------------

    /** One paragraph: the workload's PodGroups (phase, counts, reason) and each pod's fate. */
    String describe(Found w) {
        StringBuilder sb = new StringBuilder("\"" + w.name() + "\" in namespace " + w.namespace() + ":");
        for (String g : w.podGroups()) {
            PodGroupStatus s = groupStatuses.get(g);
            sb.append("\n  PodGroup ").append(g).append(s == null ? " (no status)" : " " + s.phase() + ", "
                    + s.running() + " running of min " + s.minMember() + (s.reason() == null ? "" : ": " + s.reason()));
        }
        for (PodSpec p : w.pods()) sb.append("\n  pod ").append(p.name()).append(' ').append(podFate(p));
        return sb.toString();
    }

    private String podFate(PodSpec p) {
        PodOutcome o = podOutcomes.get(p.key());
        if (o == null) return "Pending";
        if (o.phase().equals("Running")) return "Running on " + o.node();
        if (o.phase().equals("Evicted")) {
            return evictions().stream().filter(e -> e.pod().equals(p.key())).findFirst()
                    .map(e -> "Evicted from " + e.node() + " (" + e.action() + " for " + e.forPodGroup() + ")")
                    .orElse("Evicted");
        }
        return o.phase();
    }

    /** Every eviction of the run, one per line, or "nothing was evicted". */
    String describeEvictions() {
        StringBuilder sb = new StringBuilder();
        for (CycleResult c : result.cycles()) {
            for (Eviction e : c.evictions()) {
                sb.append("\n  cycle ").append(c.cycle()).append(": ").append(e.pod()).append(" from ").append(e.node())
                        .append(" (").append(e.action()).append(" for ").append(e.forPodGroup()).append(')');
            }
        }
        return sb.length() == 0 ? "nothing was evicted" : "evictions:" + sb;
    }

    /** Every queue's GPUs: allocated / deserved. */
    String describeQueues() {
        return result.queues().stream()
                .map(q -> q.queue() + " holds " + gpus(gpuMilli(q.allocated())) + ", deserves " + gpus(gpuMilli(q.deserved())))
                .collect(Collectors.joining("; ", "queues: ", ""));
    }

    /** Milli-GPUs as a number of GPUs: 16000 → "16", 10667 → "10.667". */
    static String gpus(long milli) {
        return milli % 1000 == 0 ? Long.toString(milli / 1000) : java.math.BigDecimal.valueOf(milli, 3).stripTrailingZeros().toPlainString();
    }
}
