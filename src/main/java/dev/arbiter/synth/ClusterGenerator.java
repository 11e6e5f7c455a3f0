package dev.arbiter.synth;

import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.Placement;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeded, reproducible synthetic clusters of the shapes a GPU fleet runs.
 *
 * <p><b>Nodes</b> (in shuffled order, named {@code node-00001..}): 40% {@code gpu-h100} (8 GPUs, 192 cpu, 2 Ti),
 * 20% {@code gpu-a100} (4 GPUs, 96 cpu, 768 Gi), 10% {@code gpu-reserved} (h100s tainted
 * {@code dedicated=inference:NoSchedule}), 30% CPU nodes of 32, 64 or 128 cpu (a fifth of them carry a
 * {@code PreferNoSchedule} spot taint, which keeps no pod out: the scheduler prefers the other nodes); 1% are cordoned. Every tenth node runs a
 * 1-cpu pod of another scheduler (a daemon), which consumes capacity but is not ours.
 *
 * <p><b>Queues</b> {@code q-00..}: weights 1–4, a tenth with priority 1, a fifth not reclaimable, a quarter with a GPU
 * capability of 5–30% of the cluster, a tenth with a GPU guarantee (all guarantees within a fifth of the GPUs), and
 * (from the second on) one in twenty Closed. Jobs prefer the low-numbered queues, so shares are uneven.
 *
 * <p><b>PriorityClasses</b>: batch-low 100, normal 1000 (global default), high 10000, critical 100000 and
 * high-no-preempt 10000 with {@code preemptionPolicy: Never}.
 *
 * <p><b>Jobs</b>: single GPU pods (1–4 GPUs, a fifth of them inference pods tolerating the reserved pool and
 * selecting it), single CPU pods, PyTorchJob-like gangs (a master and workers, 2–{@code maxGang} pods of 8 or 4
 * GPUs, half with {@code minTaskMember master: 1}), LeaderWorkerSet groups (a leader and 1–7 workers), elastic gangs
 * (minMember half their size) and CPU gangs. Some select {@code gpu-type: h100}; 2% carry a pod-level
 * {@code preemptionPolicy: Never}; 3% are marked {@code volcano.sh/preemptable: "false"}. Running jobs are placed
 * first-fit (never over capacity, always where their constraints allow) until about {@code fill} of the GPUs are
 * busy, each job started 0–600 s before time 0 (the first snapshot's clock); then pending jobs are added until
 * {@code pendingPods} pods are pending.
 *
 * <p><b>Labels</b>: every node carries {@code kubernetes.io/hostname}, {@code topology.kubernetes.io/zone} (one to four
 * zones, nodes dealt round-robin), {@code rack} (racks of 2 to 8 consecutive nodes) and, on GPU nodes, {@code gen}
 * (4 for a100, 5 for h100). They cost no random draws, so the cluster is otherwise the same as without them.
 *
 * <p><b>Placement constraints</b> ({@link SynthSpec.Constraints}) are drawn from a random stream of their own, after a
 * job's shape: the same seed gives the same jobs with and without them. Running jobs keep only what first-fit
 * placement honours (node affinity, hostname anti-affinity, host ports); the pod affinity and spread constraints of
 * running jobs are left out, since the cluster before time 0 had no scheduler enforcing them.
 *
 * <p>Creation order counts every object in the order {@link ManifestYamlWriter} writes them (priority classes,
 * queues, nodes, then each job's PodGroup and pods), so the YAML loads back into equal {@link Manifests}.
 */
public final class ClusterGenerator {
    public static final String GPU = "nvidia.com/gpu";
    public static final String SCHEDULER = "volcano";
    private static final long GI = 1024L * 1024 * 1024;

    private enum Shape { SINGLE_GPU, SINGLE_CPU, PYTORCH, LWS, ELASTIC, CPU_GANG }

    /** One generated job: its PodGroup (null for a bare pod, a gang of one) and its pods. */
    public record GeneratedJob(PodGroupSpec group, List<PodSpec> pods) {}

    private final SynthSpec spec;
    private final Random rnd;
    /** Draws the placement constraints, apart from {@link #rnd} so that the jobs are the same with and without them. */
    private final Random crnd;
    /** Per node, what runs there that placement constraints of later running jobs must respect. */
    private List<List<Resident>> residents;
    private final List<NodeSpec> nodes = new ArrayList<>();
    private final List<QueueSpec> queues = new ArrayList<>();
    private final List<PriorityClassSpec> classes = new ArrayList<>();
    private final List<GeneratedJob> jobs = new ArrayList<>();
    private final Map<Map<String, Long>, Resources> shapes = new HashMap<>();
    private long order;
    private int jobSeq;
    private Resources[] free;
    private long totalGpus;

    private ClusterGenerator(SynthSpec spec) {
        this.spec = spec;
        this.rnd = new Random(spec.seed());
        this.crnd = new Random(spec.seed() * 0x9E3779B97F4A7C15L + 13);
    }

    /** The cluster for {@code spec}. */
    public static Manifests generate(SynthSpec spec) {
        return create(spec).manifests();
    }

    /** A generator that has built the cluster for {@code spec} and can then make more pending jobs (churn). */
    public static ClusterGenerator create(SynthSpec spec) {
        ClusterGenerator g = new ClusterGenerator(spec);
        g.build();
        return g;
    }

    public Manifests manifests() {
        List<PodGroupSpec> groups = new ArrayList<>();
        List<PodSpec> pods = new ArrayList<>();
        for (GeneratedJob j : jobs) {
            if (j.group() != null) groups.add(j.group());
            pods.addAll(j.pods());
        }
        List<QueueSpec> qs = new ArrayList<>();
        qs.add(QueueSpec.defaultQueue());
        qs.addAll(queues);
        return new Manifests(nodes, pods, groups, qs, classes, List.of());
    }

    /**
     * New pending jobs of about {@code pods} pods in total, continuing the names and creation order of this cluster
     * (they are newer than everything generated so far).
     */
    public List<GeneratedJob> morePending(int pods) {
        List<GeneratedJob> out = new ArrayList<>();
        int n = 0;
        while (n < pods) {
            GeneratedJob j = newJob(null);
            out.add(j);
            n += j.pods().size();
        }
        return out;
    }

    // ---- build ----------------------------------------------------------------------------------------------

    private void build() {
        priorityClasses();
        order += classes.size();
        buildNodes();
        buildQueues();
        order += queues.size() + nodes.size();
        free = new Resources[nodes.size()];
        for (int i = 0; i < free.length; i++) free[i] = nodes.get(i).allocatable();
        daemons();
        fillRunning();
        int pending = 0;
        for (GeneratedJob j : jobs) for (PodSpec p : j.pods()) if (!p.isBound() && SCHEDULER.equals(p.schedulerName())) pending++;
        while (pending < spec.pendingPods()) {
            GeneratedJob j = newJob(null);
            jobs.add(j);
            pending += j.pods().size();
        }
    }

    private void priorityClasses() {
        classes.add(new PriorityClassSpec("batch-low", 100, false, "PreemptLowerPriority"));
        classes.add(new PriorityClassSpec("normal", 1000, true, "PreemptLowerPriority"));
        classes.add(new PriorityClassSpec("high", 10000, false, "PreemptLowerPriority"));
        classes.add(new PriorityClassSpec("critical", 100000, false, "PreemptLowerPriority"));
        classes.add(new PriorityClassSpec("high-no-preempt", 10000, false, "Never"));
    }

    private void buildNodes() {
        int n = spec.nodes();
        int h100 = Math.max(1, (int) Math.round(n * 0.4));
        int a100 = Math.min(n - h100, (int) Math.round(n * 0.2));
        int reserved = Math.min(n - h100 - a100, (int) Math.round(n * 0.1));
        List<String> pools = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pools.add(i < h100 ? "gpu-h100" : i < h100 + a100 ? "gpu-a100" : i < h100 + a100 + reserved ? "gpu-reserved" : "cpu");
        }
        Collections.shuffle(pools, rnd);
        int zones = n < 4 ? 1 : n < 12 ? 2 : n < 100 ? 3 : 4;
        int rack = n < 16 ? 2 : n < 64 ? 4 : 8;
        for (int i = 0; i < n; i++) {
            NodeSpec node = node(String.format("node-%05d", i + 1), pools.get(i));
            Map<String, String> labels = new LinkedHashMap<>(node.labels());
            labels.put(HOSTNAME, node.name());
            labels.put(ZONE, "zone-" + (char) ('a' + i % zones));
            labels.put(RACK, String.format("rack-%03d", i / rack));
            if ("h100".equals(labels.get("gpu-type"))) labels.put("gen", "5");
            if ("a100".equals(labels.get("gpu-type"))) labels.put("gen", "4");
            nodes.add(new NodeSpec(node.name(), labels, node.taints(), node.unschedulable(), node.allocatable(), 0));
        }
    }

    public static final String HOSTNAME = "kubernetes.io/hostname";
    public static final String ZONE = "topology.kubernetes.io/zone";
    public static final String RACK = "rack";

    private NodeSpec node(String name, String pool) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("pool", pool);
        List<Taint> taints = new ArrayList<>();
        Resources alloc;
        switch (pool) {
            case "gpu-h100", "gpu-reserved" -> {
                labels.put("gpu-type", "h100");
                alloc = resources(8, 192, 2048, 110);
                if (pool.equals("gpu-reserved")) taints.add(new Taint("dedicated", "inference", "NoSchedule"));
                totalGpus += 8;
            }
            case "gpu-a100" -> {
                labels.put("gpu-type", "a100");
                alloc = resources(4, 96, 768, 110);
                totalGpus += 4;
            }
            default -> {
                int cpu = new int[] {32, 64, 128}[rnd.nextInt(3)];
                alloc = resources(0, cpu, cpu * 4L, 110);
                if (rnd.nextInt(5) == 0) taints.add(new Taint("spot", "true", "PreferNoSchedule"));
            }
        }
        boolean cordoned = rnd.nextInt(100) == 0;
        return new NodeSpec(name, labels, taints, cordoned, alloc, 0);
    }

    private void buildQueues() {
        long guaranteed = 0;
        for (int i = 0; i < spec.queues(); i++) {
            int weight = 1 + rnd.nextInt(4);
            int priority = rnd.nextInt(10) == 0 ? 1 : 0;
            boolean reclaimable = rnd.nextInt(5) != 0 && spec.reclaimableQueues();
            dev.arbiter.model.Caps capability = null;
            if (rnd.nextInt(4) == 0) {
                long gpus = Math.max(8, Math.round(totalGpus * (0.05 + 0.25 * rnd.nextDouble()) / 8) * 8);
                capability = dev.arbiter.model.Caps.ofMilli(Map.of(GPU, gpus * 1000));
            }
            Resources guarantee = Resources.NONE;
            if (rnd.nextInt(10) == 0) {
                long g = 8L * (1 + rnd.nextInt(2));
                if ((guaranteed + g) * 5 <= totalGpus) {
                    guarantee = Resources.ofMilli(Map.of(GPU, g * 1000));
                    guaranteed += g;
                }
            }
            String state = i > 0 && rnd.nextInt(20) == 0 ? "Closed" : "Open";
            queues.add(new QueueSpec(String.format("q-%02d", i), weight, priority, capability, guarantee, reclaimable,
                    state, null, 0));
        }
    }

    /** A 1-cpu pod of another scheduler on every tenth node: it uses capacity but is not ours to schedule. */
    private void daemons() {
        for (int i = 0; i < nodes.size(); i += 10) {
            Resources r = shape(0, 1000, GI, 1);
            if (!r.fitsIn(free[i])) continue;
            free[i] = free[i].subtract(r);
            PodSpec p = new PodSpec("kube-system", "daemon-" + nodes.get(i).name(), "default-scheduler",
                    nodes.get(i).name(), "Running", null, null, null, r, Map.of(), List.of(), Map.of(), Map.of(), 0,
                    order++, false);
            jobs.add(new GeneratedJob(null, List.of(p)));
        }
    }

    /** Running jobs, placed first-fit from a random node, until about {@code fill} of the GPUs are busy. */
    private void fillRunning() {
        residents = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) residents.add(new ArrayList<>());
        long target = Math.round(totalGpus * spec.fill() * 1000);
        long busy = 0;
        int failures = 0;
        while (busy < target && failures < 20) {
            long savedOrder = order;
            int savedSeq = jobSeq;
            Draft d = draft();
            d.keepOnlyWhatFirstFitHonours();
            int toPlace = d.minMember < d.pods.size() ? d.minMember + rnd.nextInt(d.pods.size() - d.minMember + 1) : d.pods.size();
            String[] placed = placeFirstFit(d, toPlace);
            if (placed == null) {
                failures++;
                order = savedOrder;
                jobSeq = savedSeq;
                continue;
            }
            failures = 0;
            GeneratedJob j = materialize(d, placed);
            jobs.add(j);
            for (PodSpec p : j.pods()) if (p.isBound()) busy += p.requests().milli(GPU);
        }
    }

    /** A pod placed before time 0, as later running pods' constraints see it. */
    private record Resident(String namespace, Map<String, String> labels, Placement placement) {}

    private String[] placeFirstFit(Draft d, int count) {
        String[] placed = new String[d.pods.size()];
        List<int[]> taken = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            PodDraft p = d.pods.get(k);
            Resident me = new Resident(d.namespace, d.labelsOf(p), d.placement);
            int start = rnd.nextInt(nodes.size());
            int found = -1;
            for (int probe = 0; probe < nodes.size(); probe++) {
                int i = (start + probe) % nodes.size();
                NodeSpec n = nodes.get(i);
                if (!n.unschedulable() && fitsStatically(n, d) && p.requests.fitsIn(free[i]) && getsAlong(me, residents.get(i))) {
                    found = i;
                    break;
                }
            }
            if (found < 0) {
                for (int[] t : taken) {
                    free[t[0]] = free[t[0]].add(d.pods.get(t[1]).requests);
                    List<Resident> here = residents.get(t[0]);
                    here.remove(here.size() - 1);
                }
                return null;
            }
            free[found] = free[found].subtract(p.requests);
            residents.get(found).add(me);
            taken.add(new int[] {found, k});
            placed[k] = nodes.get(found).name();
        }
        return placed;
    }

    /** Hostname anti-affinity and host ports between a pod and those already on the node, both ways. */
    private static boolean getsAlong(Resident me, List<Resident> here) {
        for (Resident r : here) {
            if (refuses(me, r) || refuses(r, me)) return false;
            for (Placement.HostPort a : me.placement().hostPorts()) {
                for (Placement.HostPort b : r.placement().hostPorts()) if (a.conflicts(b)) return false;
            }
        }
        return true;
    }

    private static boolean refuses(Resident owner, Resident other) {
        for (Placement.PodAffinityTerm t : owner.placement().podAntiAffinity().required()) {
            if (t.topologyKey().equals(HOSTNAME) && t.labelSelector() != null && owner.namespace().equals(other.namespace())
                    && t.labelSelector().matches(other.labels())) return true;
        }
        return false;
    }

    private static boolean fitsStatically(NodeSpec n, Draft d) {
        if (!d.placement.nodeAffinity().requiredMatches(n)) return false;
        for (Map.Entry<String, String> e : d.selector.entrySet()) {
            if (!e.getValue().equals(n.labels().get(e.getKey()))) return false;
        }
        for (Taint t : n.taints()) {
            if (t.effect().equals("PreferNoSchedule")) continue;
            if (d.tolerations.stream().noneMatch(tol -> tol.tolerates(t))) return false;
        }
        return true;
    }

    // ---- jobs -------------------------------------------------------------------------------------------------

    /** A job as drawn, before it is placed and numbered. */
    private static final class Draft {
        String namespace;
        String name;
        String queue;
        String priorityClass;
        String preemptionPolicy;
        boolean bare;
        boolean notPreemptable;
        int minMember;
        Map<String, Integer> minTaskMember = Map.of();
        Map<String, String> selector = Map.of();
        List<Toleration> tolerations = List.of();
        final List<PodDraft> pods = new ArrayList<>();
        Placement placement = Placement.NONE;
        /** Labels every pod of the job carries besides its own (the selector its rules and others' rules use). */
        Map<String, String> labels = Map.of();

        Map<String, String> labelsOf(PodDraft p) {
            if (labels.isEmpty()) return p.labels();
            Map<String, String> m = new TreeMap<>(p.labels());
            m.putAll(labels);
            return m;
        }

        /** Running jobs keep node affinity, preferences, hostname anti-affinity and host ports (see the class doc). */
        void keepOnlyWhatFirstFitHonours() {
            List<Placement.PodAffinityTerm> anti = new ArrayList<>();
            for (Placement.PodAffinityTerm t : placement.podAntiAffinity().required()) if (t.topologyKey().equals(HOSTNAME)) anti.add(t);
            placement = placement.withPodAffinity(new Placement.PodAffinity(List.of(), placement.podAffinity().preferred()))
                    .withPodAntiAffinity(new Placement.PodAffinity(anti, placement.podAntiAffinity().preferred()))
                    .withSpread(List.of());
        }
    }

    private record PodDraft(String suffix, String role, Resources requests, Map<String, String> labels) {}

    private GeneratedJob newJob(String[] placed) {
        return materialize(draft(), placed);
    }

    private Draft draft() {
        Draft d = new Draft();
        int q = (int) Math.floor(queues.size() * Math.pow(rnd.nextDouble(), 1.5));
        d.queue = queues.get(Math.min(q, queues.size() - 1)).name();
        d.namespace = "team-" + d.queue.substring(2);
        d.priorityClass = priorityClass();
        if (rnd.nextInt(50) == 0) d.preemptionPolicy = "Never";
        d.notPreemptable = rnd.nextInt(33) == 0;
        Shape shape = shape();
        int seq = jobSeq++;
        switch (shape) {
            case SINGLE_GPU -> {
                d.bare = true;
                d.name = "infer-" + seq;
                int g = new int[] {1, 1, 2, 4}[rnd.nextInt(4)];
                if (rnd.nextInt(5) == 0) {
                    d.selector = Map.of("pool", "gpu-reserved");
                    d.tolerations = List.of(new Toleration("dedicated", "Equal", "inference", "NoSchedule"));
                } else if (rnd.nextInt(4) == 0) {
                    d.selector = Map.of("gpu-type", "h100");
                }
                d.pods.add(new PodDraft("", "", gpuShape(g), Map.of()));
                d.minMember = 1;
            }
            case SINGLE_CPU -> {
                d.bare = true;
                d.name = "etl-" + seq;
                int c = new int[] {1, 2, 4, 8, 16}[rnd.nextInt(5)];
                d.pods.add(new PodDraft("", "", shape(0, c * 1000L, c * 4 * GI, 1), Map.of()));
                d.minMember = 1;
            }
            case PYTORCH -> {
                d.name = "pt-" + seq;
                int size = gangSize(2, spec.maxGang());
                int g = rnd.nextInt(10) < 7 ? 8 : 4;
                if (g == 8 || rnd.nextBoolean()) d.selector = Map.of("gpu-type", "h100");
                Resources r = gpuShape(g);
                d.pods.add(new PodDraft("-master-0", "master", r, Map.of("training.kubeflow.org/job-name", d.name,
                        "training.kubeflow.org/replica-type", "master", "training.kubeflow.org/job-role", "master")));
                for (int i = 0; i < size - 1; i++) {
                    d.pods.add(new PodDraft("-worker-" + i, "worker", r, Map.of("training.kubeflow.org/job-name", d.name,
                            "training.kubeflow.org/replica-type", "worker")));
                }
                d.minMember = size;
                if (rnd.nextBoolean()) d.minTaskMember = Map.of("master", 1);
            }
            case LWS -> {
                d.name = "lws-" + seq;
                int size = Math.min(spec.maxGang(), 2 + rnd.nextInt(7));
                Resources r = gpuShape(8);
                d.selector = Map.of("gpu-type", "h100");
                for (int i = 0; i < size; i++) {
                    d.pods.add(new PodDraft("-0-" + i, i == 0 ? "leader" : "worker", r, Map.of(
                            "leaderworkerset.sigs.k8s.io/name", d.name, "leaderworkerset.sigs.k8s.io/group-index", "0",
                            "leaderworkerset.sigs.k8s.io/worker-index", Integer.toString(i))));
                }
                d.minMember = size;
            }
            case ELASTIC -> {
                d.name = "elastic-" + seq;
                int size = gangSize(4, Math.min(32, spec.maxGang()));
                Resources r = gpuShape(new int[] {1, 2, 4}[rnd.nextInt(3)]);
                for (int i = 0; i < size; i++) d.pods.add(new PodDraft("-" + i, "worker", r, Map.of()));
                d.minMember = Math.max(1, size / 2);
            }
            case CPU_GANG -> {
                d.name = "spark-" + seq;
                int size = Math.min(spec.maxGang(), 4 + rnd.nextInt(13));
                Resources r = shape(0, 4000, 16 * GI, 1);
                d.pods.add(new PodDraft("-driver", "driver", r, Map.of()));
                for (int i = 0; i < size - 1; i++) d.pods.add(new PodDraft("-exec-" + i, "executor", r, Map.of()));
                d.minMember = size;
            }
        }
        switch (spec.constraints()) {
            case MIX -> mix(d, shape, seq);
            case VARIED -> varied(d, shape, seq);
            case NONE -> { }
        }
        return d;
    }

    // ---- placement constraints ----------------------------------------------------------------------------------

    /** The benchmark's mix (see {@link SynthSpec.Constraints#MIX}). */
    private void mix(Draft d, Shape shape, int seq) {
        int r = crnd.nextInt(100);
        if (r < 30) {
            d.placement = d.placement.withNodeAffinity(requiredNodes(nodeAffinityFor(d, shape)));
        } else if (r < 40) {
            String app = app(d, shape, seq);
            d.placement = d.placement.withPodAntiAffinity(new Placement.PodAffinity(
                    List.of(Placement.PodAffinityTerm.of(LabelSelector.of(Map.of("app", app)), HOSTNAME)), List.of()));
        } else if (r < 50) {
            String app = app(d, shape, seq);
            d.placement = d.placement.withSpread(List.of(new Placement.SpreadConstraint(1, ZONE, true,
                    LabelSelector.of(Map.of("app", app)), 1, true, false)));
        }
    }

    /** Every kind of constraint (see {@link SynthSpec.Constraints#VARIED}). */
    private void varied(Draft d, Shape shape, int seq) {
        if (shape == Shape.SINGLE_GPU) app(d, shape, seq);
        if (shape == Shape.LWS && crnd.nextInt(10) < 3) {
            exclusiveRack(d);
            return;
        }
        int r = crnd.nextInt(100);
        Placement p = d.placement;
        if (r < 12) {
            p = p.withNodeAffinity(requiredNodes(variedNodeAffinity(d, shape)));
        } else if (r < 20) {
            p = p.withNodeAffinity(new Placement.NodeAffinity(null, List.of(
                    new Placement.WeightedNodeTerm(1 + crnd.nextInt(100), Placement.NodeSelectorTerm.of(
                            new Placement.NodeRequirement(ZONE, "In", List.of("zone-" + (char) ('a' + crnd.nextInt(3)))))),
                    new Placement.WeightedNodeTerm(1 + crnd.nextInt(100), Placement.NodeSelectorTerm.of(
                            new Placement.NodeRequirement("gen", "Gt", List.of("4")))))));
        } else if (r < 30) {
            p = p.withPodAntiAffinity(new Placement.PodAffinity(List.of(selfTerm(d, shape, seq, HOSTNAME)), List.of()));
        } else if (r < 33) {
            p = p.withPodAntiAffinity(new Placement.PodAffinity(List.of(selfTerm(d, shape, seq, ZONE)), List.of()));
        } else if (r < 41) {
            int minDomains = crnd.nextInt(4) == 0 ? 2 + crnd.nextInt(3) : 1;
            p = p.withSpread(List.of(new Placement.SpreadConstraint(1 + crnd.nextInt(2), crnd.nextBoolean() ? ZONE : HOSTNAME,
                    true, selfTerm(d, shape, seq, ZONE).labelSelector(), minDomains, crnd.nextInt(5) != 0, crnd.nextInt(5) == 0)));
        } else if (r < 46) {
            p = p.withSpread(List.of(new Placement.SpreadConstraint(1, HOSTNAME, false, selfTerm(d, shape, seq, ZONE).labelSelector(),
                    1, true, false)));
        } else if (r < 51) {
            // Near a service's replicas (which may not run yet): the pod waits until they do, unless it is one of them.
            String svc = "svc-" + crnd.nextInt(SERVICES);
            p = p.withPodAffinity(new Placement.PodAffinity(List.of(Placement.PodAffinityTerm.of(
                    new LabelSelector(Map.of(), List.of(new LabelSelector.Requirement("app", "In", List.of(svc)))),
                    crnd.nextBoolean() ? ZONE : RACK)), List.of()));
        } else if (r < 55) {
            Placement.PodAffinityTerm near = Placement.PodAffinityTerm.of(LabelSelector.of(Map.of("app", "svc-" + crnd.nextInt(SERVICES))),
                    crnd.nextBoolean() ? ZONE : HOSTNAME);
            p = crnd.nextBoolean()
                    ? p.withPodAffinity(new Placement.PodAffinity(List.of(), List.of(new Placement.WeightedPodAffinityTerm(1 + crnd.nextInt(100), near))))
                    : p.withPodAntiAffinity(new Placement.PodAffinity(List.of(), List.of(new Placement.WeightedPodAffinityTerm(1 + crnd.nextInt(100), near))));
        } else if (r < 59) {
            p = p.withHostPorts(List.of(new Placement.HostPort("TCP", "", 8000 + crnd.nextInt(3))));
        }
        d.placement = p;
    }

    private static final int SERVICES = 5;

    /**
     * The label a job's own rules select on: single inference pods of one service share {@code app: svc-<k>} (the
     * replicas of a Deployment, each its own gang of one); every other job is {@code app: <job>}.
     */
    private String app(Draft d, Shape shape, int seq) {
        String app = shape == Shape.SINGLE_GPU ? "svc-" + (seq % SERVICES) : d.name;
        d.labels = Map.of("app", app);
        return app;
    }

    private Placement.PodAffinityTerm selfTerm(Draft d, Shape shape, int seq, String key) {
        return Placement.PodAffinityTerm.of(LabelSelector.of(Map.of("app", app(d, shape, seq))), key);
    }

    private static Placement.NodeAffinity requiredNodes(Placement.NodeRequirement... r) {
        return new Placement.NodeAffinity(List.of(Placement.NodeSelectorTerm.of(r)), List.of());
    }

    /** A rule that keeps the job's nodes what they are: GPU jobs on GPU nodes, CPU jobs off the reserved pool. */
    private static Placement.NodeRequirement nodeAffinityFor(Draft d, Shape shape) {
        if (shape == Shape.SINGLE_CPU || shape == Shape.CPU_GANG) {
            return new Placement.NodeRequirement("pool", "NotIn", List.of("gpu-reserved"));
        }
        if ("h100".equals(d.selector.get("gpu-type"))) return new Placement.NodeRequirement("gpu-type", "In", List.of("h100"));
        if (d.selector.containsKey("pool")) return new Placement.NodeRequirement("pool", "In", List.of("gpu-reserved"));
        return new Placement.NodeRequirement("gpu-type", "In", List.of("h100", "a100"));
    }

    /** One of several operators, each keeping the job on nodes that can hold it or narrowing it to some of them. */
    private Placement.NodeRequirement[] variedNodeAffinity(Draft d, Shape shape) {
        if (shape == Shape.SINGLE_CPU || shape == Shape.CPU_GANG) {
            return switch (crnd.nextInt(3)) {
                case 0 -> new Placement.NodeRequirement[] {new Placement.NodeRequirement("pool", "NotIn", List.of("gpu-reserved"))};
                case 1 -> new Placement.NodeRequirement[] {new Placement.NodeRequirement("gen", "DoesNotExist", List.of())};
                default -> new Placement.NodeRequirement[] {new Placement.NodeRequirement(ZONE, "In",
                        List.of("zone-a", "zone-" + (char) ('a' + crnd.nextInt(3))))};
            };
        }
        Placement.NodeRequirement base = nodeAffinityFor(d, shape);
        return switch (crnd.nextInt(4)) {
            case 0 -> new Placement.NodeRequirement[] {base};
            case 1 -> new Placement.NodeRequirement[] {base, new Placement.NodeRequirement("gen", "Exists", List.of())};
            case 2 -> new Placement.NodeRequirement[] {base, new Placement.NodeRequirement("gen", "Gt", List.of("4"))};
            default -> new Placement.NodeRequirement[] {base, new Placement.NodeRequirement("gen", "Lt", List.of("5"))};
        };
    }

    /**
     * A LeaderWorkerSet group kept in one rack, as the {@code leaderworkerset.sigs.k8s.io/exclusive-topology: rack}
     * annotation asks: every pod carries the group's key and requires the pods with it in its rack, and no pod of
     * another group there.
     */
    private static void exclusiveRack(Draft d) {
        String key = "lws-" + Integer.toHexString((d.namespace + "/" + d.name).hashCode());
        d.labels = Map.of("leaderworkerset.sigs.k8s.io/group-key", key);
        String k = "leaderworkerset.sigs.k8s.io/group-key";
        d.placement = d.placement
                .withPodAffinity(new Placement.PodAffinity(List.of(Placement.PodAffinityTerm.of(new LabelSelector(Map.of(),
                        List.of(new LabelSelector.Requirement(k, "In", List.of(key)))), RACK)), List.of()))
                .withPodAntiAffinity(new Placement.PodAffinity(List.of(Placement.PodAffinityTerm.of(new LabelSelector(Map.of(),
                        List.of(new LabelSelector.Requirement(k, "Exists", List.of()), new LabelSelector.Requirement(k, "NotIn",
                                List.of(key)))), RACK)), List.of()));
    }

    private GeneratedJob materialize(Draft d, String[] placed) {
        boolean running = placed != null;
        // Running jobs started up to ten minutes before the first snapshot (time 0); some are younger than a minute.
        long startedAgo = running ? rnd.nextInt(601) : 0;
        PodGroupSpec group = null;
        if (!d.bare) {
            group = new PodGroupSpec(d.namespace, d.name, d.queue, d.minMember, d.minTaskMember, null, d.priorityClass,
                    running ? "Running" : "Pending", 0, order++);
        }
        List<PodSpec> pods = new ArrayList<>();
        for (int i = 0; i < d.pods.size(); i++) {
            PodDraft p = d.pods.get(i);
            Map<String, String> ann = new TreeMap<>();
            if (d.bare) ann.put(PodSpec.QUEUE_ANNOTATION, d.queue);
            else ann.put(PodSpec.GROUP_ANNOTATION, d.name);
            if (!p.role().isEmpty()) ann.put(PodSpec.TASK_SPEC_ANNOTATION, p.role());
            if (d.notPreemptable) ann.put(PodSpec.PREEMPTABLE, "false");
            String node = running ? placed[i] : null;
            long started = node == null ? PodSpec.UNKNOWN_START : -startedAgo;
            pods.add(new PodSpec(d.namespace, d.name + p.suffix(), SCHEDULER, node, node == null ? "Pending" : "Running",
                    d.priorityClass, null, d.preemptionPolicy, p.requests(), d.selector, d.tolerations, d.labelsOf(p), ann,
                    0, order++, false, started, d.placement));
        }
        return new GeneratedJob(group, pods);
    }

    private String priorityClass() {
        int r = rnd.nextInt(100);
        if (r < 15) return null;
        if (r < 50) return "normal";
        if (r < 75) return "batch-low";
        if (r < 90) return "high";
        if (r < 95) return "critical";
        return "high-no-preempt";
    }

    private Shape shape() {
        int r = rnd.nextInt(100);
        if (r < 25) return Shape.SINGLE_GPU;
        if (r < 35) return Shape.SINGLE_CPU;
        if (r < 65) return Shape.PYTORCH;
        if (r < 80) return Shape.LWS;
        if (r < 95) return Shape.ELASTIC;
        return Shape.CPU_GANG;
    }

    /** Gang sizes skewed small: powers of two from {@code min} up to {@code max}, each half as likely as the last. */
    private int gangSize(int min, int max) {
        int size = Math.min(min, max);
        while (size * 2 <= max && rnd.nextBoolean()) size *= 2;
        return Math.max(1, size);
    }

    /** A pod of {@code g} GPUs with 20 cpu and 160 Gi per GPU (fits both node types per GPU). */
    private Resources gpuShape(int g) {
        return shape(g * 1000L, g * 20_000L, g * 160 * GI, 1);
    }

    private Resources shape(long gpuMilli, long cpuMilli, long memBytes, int pods) {
        Map<String, Long> m = new TreeMap<>();
        if (gpuMilli > 0) m.put(GPU, gpuMilli);
        m.put("cpu", cpuMilli);
        m.put("memory", memBytes / spec.memoryDivisor()); // bytes: Resources keeps byte-valued amounts whole
        m.put("pods", pods * 1000L);
        return shapes.computeIfAbsent(m, Resources::ofMilli);
    }

    private Resources resources(long gpus, long cpu, long memGi, long pods) {
        return shape(gpus * 1000, cpu * 1000, memGi * GI, (int) pods);
    }
}
