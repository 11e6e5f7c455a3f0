package dev.arbiter.scenario;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fluent fixtures for small, hand-written clusters, built straight into a {@link ClusterSnapshot}. Example:
 * <pre>{@code
 * ClusterBuilder.cluster()
 *     .nodes(4, "nvidia.com/gpu", 8, "cpu", 32)
 *     .queue("a").weight(1).end()
 *     .priorityClass("p2", 100, true)
 *     .job("team/train").queue("a").priorityClass("p2").pods(4, "nvidia.com/gpu", 8).minMember(4).end()
 *     .snapshot();
 * }</pre>
 * Nodes are named {@code node-1..N}; a job's pods are named {@code <job>-0..N-1}; resources are name/amount pairs
 * in whole units or quantity strings; {@code pods: 1} is added to every pod.
 *
 * <p>Who uses it: the unit tests (the engine's per-rule and mechanism tests, and tests in {@code authoring},
 * {@code bench}, {@code live} and {@code properties}), and two fixed clusters in main code: the policy check's
 * reference cluster ({@code PolicyCheck.referenceCluster}) and the sample clusters {@code arbiter validate} measures
 * rule growth on ({@code MatchGrowth.sampleCluster}). It is one of three cluster vocabularies, each for its own
 * audience:
 * <ul>
 *   <li>this builder, for Java code that states a small cluster exactly;</li>
 *   <li>the Gherkin specs' steps and {@code dev.arbiter.specs.ScenarioWorld}, which write the scenario's objects as
 *       YAML and load them as {@code arbiter simulate} does, in sentences a policy author reads;</li>
 *   <li>{@code dev.arbiter.synth.ClusterGenerator} (and {@code TieredFleet}), seeded generators of large, realistic
 *       fleets for the benchmarks in {@code bench}, {@code arbiter generate}, the live warm-up, the JVM training
 *       run and the property tests.</li>
 * </ul>
 */
public final class ClusterBuilder {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private final Map<String, QueueSpec> queues = new LinkedHashMap<>();
    private final List<PriorityClassSpec> priorityClasses = new ArrayList<>();
    private final List<PodGroupSpec> podGroups = new ArrayList<>();
    private final List<PodSpec> pods = new ArrayList<>();
    private final List<dev.arbiter.model.HyperNodeSpec> hyperNodes = new ArrayList<>();
    private long order;

    /** A HyperNode of {@code tier} whose members are these nodes, by exact name. */
    public ClusterBuilder hyperNode(String name, int tier, String... nodeNames) {
        return hyperNodeOf(name, tier, dev.arbiter.model.HyperNodeSpec.MemberType.NODE, nodeNames);
    }

    /** A HyperNode of {@code tier} whose members are these HyperNodes, by exact name. */
    public ClusterBuilder hyperNodeOver(String name, int tier, String... children) {
        return hyperNodeOf(name, tier, dev.arbiter.model.HyperNodeSpec.MemberType.HYPER_NODE, children);
    }

    private ClusterBuilder hyperNodeOf(String name, int tier, dev.arbiter.model.HyperNodeSpec.MemberType type,
                                       String... members) {
        List<dev.arbiter.model.HyperNodeSpec.Member> m = new ArrayList<>();
        for (String s : members) m.add(new dev.arbiter.model.HyperNodeSpec.Member(type, s, null, null));
        hyperNodes.add(new dev.arbiter.model.HyperNodeSpec(name, tier, m));
        return this;
    }

    public static ClusterBuilder cluster() {
        return new ClusterBuilder().queueSpec(QueueSpec.defaultQueue());
    }

    /** Adds {@code count} identical nodes, continuing the {@code node-<i>} numbering. */
    public ClusterBuilder nodes(int count, Object... resources) {
        for (int i = 0; i < count; i++) node("node-" + (nodes.size() + 1), resources);
        return this;
    }

    /** A node labelled {@code kubernetes.io/hostname: <name>}, as the kubelet labels every node. */
    public ClusterBuilder node(String name, Object... resources) {
        nodes.add(new NodeSpec(name, Map.of("kubernetes.io/hostname", name), List.of(), false,
                withPodSlots(Resources.of(resources)), 0));
        return this;
    }

    /** Labels a node: alternating key, value. */
    public ClusterBuilder labels(String node, String... keyValues) {
        for (int i = 0; i < keyValues.length; i += 2) label(node, keyValues[i], keyValues[i + 1]);
        return this;
    }

    public ClusterBuilder label(String node, String key, String value) {
        return replaceNode(node, n -> {
            Map<String, String> labels = new HashMap<>(n.labels());
            labels.put(key, value);
            return new NodeSpec(n.name(), labels, n.taints(), n.unschedulable(), n.allocatable(), n.arrivalCycle());
        });
    }

    public ClusterBuilder taint(String node, String key, String value, String effect) {
        return replaceNode(node, n -> {
            List<Taint> taints = new ArrayList<>(n.taints());
            taints.add(new Taint(key, value, effect));
            return new NodeSpec(n.name(), n.labels(), taints, n.unschedulable(), n.allocatable(), n.arrivalCycle());
        });
    }

    public ClusterBuilder cordon(String node) {
        return replaceNode(node, n -> new NodeSpec(n.name(), n.labels(), n.taints(), true, n.allocatable(), n.arrivalCycle()));
    }

    private ClusterBuilder replaceNode(String name, java.util.function.UnaryOperator<NodeSpec> f) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).name().equals(name)) {
                nodes.set(i, f.apply(nodes.get(i)));
                return this;
            }
        }
        throw new IllegalArgumentException("no node " + name);
    }

    private static Resources withPodSlots(Resources r) {
        return r.milli("pods") == 0 ? r.add(Resources.of("pods", 110)) : r;
    }

    public QueueBuilder queue(String name) {
        return new QueueBuilder(this, name);
    }

    public ClusterBuilder queueSpec(QueueSpec q) {
        queues.put(q.name(), q);
        return this;
    }

    /** A PriorityClass with preemptionPolicy PreemptLowerPriority. */
    public ClusterBuilder priorityClass(String name, int value, boolean globalDefault) {
        priorityClasses.add(new PriorityClassSpec(name, value, globalDefault, "PreemptLowerPriority"));
        return this;
    }

    public ClusterBuilder priorityClass(String name, int value) {
        return priorityClass(name, value, false);
    }

    public ClusterBuilder priorityClassSpec(PriorityClassSpec pc) {
        priorityClasses.add(pc);
        return this;
    }

    /** A job with a PodGroup; {@code id} is {@code namespace/name} (namespace defaults to "default"). */
    public JobBuilder job(String id) {
        return new JobBuilder(this, id, false);
    }

    /** Pods without a PodGroup (each a gang of one), named {@code <prefix>-0..}. */
    public JobBuilder barePods(String idPrefix) {
        return new JobBuilder(this, idPrefix, true);
    }

    public ClusterBuilder podSpec(PodSpec p) {
        pods.add(p);
        return this;
    }

    long nextOrder() {
        return order++;
    }

    void addGroup(PodGroupSpec g) {
        podGroups.add(g);
    }

    public ClusterSnapshot snapshot() {
        return snapshot(0);
    }

    /** The cluster as seen at second {@code now} (pods' running times are measured against it). */
    public ClusterSnapshot snapshot(long now) {
        return new ClusterSnapshot(nodes, pods, podGroups, List.copyOf(queues.values()), priorityClasses, now)
                .withHyperNodes(hyperNodes);
    }

    public Manifests manifests() {
        return new Manifests(nodes, pods, podGroups, List.copyOf(queues.values()), priorityClasses, List.of(), Map.of(),
                hyperNodes);
    }

    /** Fluent queue fixture. */
    public static final class QueueBuilder {
        private final ClusterBuilder parent;
        private final String name;
        private int weight = 1;
        private int priority;
        private dev.arbiter.model.Caps capability;
        private Resources guarantee = Resources.NONE;
        private boolean reclaimable = true;
        private String state = "Open";
        private String parentQueue;
        private int arrival;
        private String dequeue = QueueSpec.TRAVERSE;
        private Resources deserved;
        private dev.arbiter.model.Caps lendingLimit;

        QueueBuilder(ClusterBuilder parent, String name) {
            this.parent = parent;
            this.name = name;
        }

        public QueueBuilder weight(int w) { this.weight = w; return this; }
        public QueueBuilder priority(int p) { this.priority = p; return this; }
        /** Name, amount pairs; a zero is kept and forbids the resource. */
        public QueueBuilder capability(Object... r) { this.capability = dev.arbiter.model.Caps.of(r); return this; }
        public QueueBuilder guarantee(Object... r) { this.guarantee = Resources.of(r); return this; }
        public QueueBuilder reclaimable(boolean r) { this.reclaimable = r; return this; }
        public QueueBuilder state(String s) { this.state = s; return this; }
        public QueueBuilder parent(String p) { this.parentQueue = p; return this; }
        public QueueBuilder arrival(int cycle) { this.arrival = cycle; return this; }
        /** {@code traverse} (default) or {@code fifo}. */
        public QueueBuilder dequeue(String strategy) { this.dequeue = strategy; return this; }
        /** An explicit deserved share ({@code spec.deserved}, for the capacity policy pack). */
        public QueueBuilder deserved(Object... r) { this.deserved = Resources.of(r); return this; }
        /** A lending limit (the {@code arbiter.dev/lending-limit} annotation): name, amount pairs; a zero lends none. */
        public QueueBuilder lendingLimit(Object... r) { this.lendingLimit = dev.arbiter.model.Caps.of(r); return this; }

        public ClusterBuilder end() {
            return parent.queueSpec(new QueueSpec(name, weight, priority, capability, guarantee, reclaimable, state,
                    parentQueue, arrival, dequeue, deserved, lendingLimit));
        }
    }

    /** Fluent job fixture: a PodGroup and its pods, optionally already running on named nodes. */
    public static final class JobBuilder {
        private final ClusterBuilder parent;
        private final String namespace;
        private final String name;
        private final boolean bare;
        private String queue = QueueSpec.DEFAULT;
        private String priorityClass;
        private String podPriorityClass;
        private boolean roleAsLabel;
        private Integer minMember;
        private final Map<String, Integer> minTaskMember = new HashMap<>();
        private final List<Object[]> podResources = new ArrayList<>();
        private final List<String> roles = new ArrayList<>();
        private final List<String> runningOn = new ArrayList<>();
        private final Map<String, String> annotations = new HashMap<>();
        private final Map<String, String> nodeSelector = new HashMap<>();
        private final List<Toleration> tolerations = new ArrayList<>();
        private String preemptionPolicy;
        private String schedulerName = "volcano";
        private String phase;
        private int arrival;
        private dev.arbiter.model.NetworkTopology networkTopology;
        private Boolean groupPreemptable;
        private long startedAt = PodSpec.UNKNOWN_START;
        private final Map<String, String> podLabels = new HashMap<>();
        private dev.arbiter.model.Placement placement = dev.arbiter.model.Placement.NONE;

        JobBuilder(ClusterBuilder parent, String id, boolean bare) {
            this.parent = parent;
            int slash = id.indexOf('/');
            this.namespace = slash < 0 ? "default" : id.substring(0, slash);
            this.name = slash < 0 ? id : id.substring(slash + 1);
            this.bare = bare;
        }

        public JobBuilder queue(String q) { this.queue = q; return this; }
        public JobBuilder priorityClass(String pc) { this.priorityClass = pc; return this; }
        /** The pods' priority class only (the PodGroup keeps {@link #priorityClass}, e.g. none). */
        public JobBuilder podPriorityClass(String pc) { this.podPriorityClass = pc; return this; }
        /** Pods carry their role as the {@code volcano.sh/task-spec} label instead of the annotation. */
        public JobBuilder roleAsLabel() { this.roleAsLabel = true; return this; }
        public JobBuilder minMember(int m) { this.minMember = m; return this; }
        /** The PodGroup's {@code spec.networkTopology}. */
        public JobBuilder networkTopology(dev.arbiter.model.NetworkTopology t) { this.networkTopology = t; return this; }
        public JobBuilder minTaskMember(String role, int m) { this.minTaskMember.put(role, m); return this; }
        public JobBuilder preemptionPolicy(String p) { this.preemptionPolicy = p; return this; }
        public JobBuilder schedulerName(String s) { this.schedulerName = s; return this; }
        public JobBuilder phase(String p) { this.phase = p; return this; }
        public JobBuilder arrival(int cycle) { this.arrival = cycle; return this; }
        /** Running pods started at this second of the snapshot clock. */
        public JobBuilder startedAt(long second) { this.startedAt = second; return this; }
        public JobBuilder annotate(String k, String v) { this.annotations.put(k, v); return this; }
        public JobBuilder nodeSelector(String k, String v) { this.nodeSelector.put(k, v); return this; }
        /** A label on every pod of the job. */
        public JobBuilder label(String k, String v) { this.podLabels.put(k, v); return this; }
        /** Node affinity, pod (anti-)affinity, spread constraints, host ports of every pod of the job. */
        public JobBuilder placement(dev.arbiter.model.Placement p) { this.placement = p; return this; }
        public JobBuilder tolerate(String key, String value, String effect) {
            this.tolerations.add(new Toleration(key, value == null ? "Exists" : "Equal", value, effect));
            return this;
        }
        /** Marks every pod {@code volcano.sh/preemptable: "false"}. */
        public JobBuilder notPreemptable() { return annotate("volcano.sh/preemptable", "false"); }
        /** Marks the job's PodGroup {@code volcano.sh/preemptable}: its word wins over its pods'. */
        public JobBuilder podGroupPreemptable(boolean preemptable) { this.groupPreemptable = preemptable; return this; }

        /** Adds {@code count} pods with the given role (task-spec) and requests. */
        public JobBuilder pods(String role, int count, Object... resources) {
            for (int i = 0; i < count; i++) {
                podResources.add(resources);
                roles.add(role);
            }
            return this;
        }

        public JobBuilder pods(int count, Object... resources) {
            return pods("", count, resources);
        }

        /** The first pods run on these nodes, in order (a name may repeat). */
        public JobBuilder running(String... nodes) {
            runningOn.addAll(List.of(nodes));
            if (phase == null) phase = "Running";
            return this;
        }

        public ClusterBuilder end() {
            if (!bare) {
                int mm = minMember == null ? podResources.size() : minMember;
                parent.addGroup(new PodGroupSpec(namespace, name, queue, mm, minTaskMember, null, priorityClass,
                        phase == null ? "Pending" : phase, arrival, parent.nextOrder(), networkTopology, groupPreemptable));
            }
            for (int i = 0; i < podResources.size(); i++) {
                Map<String, String> ann = new HashMap<>(annotations);
                if (!bare) ann.put(PodSpec.GROUP_ANNOTATION, name);
                else ann.put(PodSpec.QUEUE_ANNOTATION, queue);
                Map<String, String> labels = new HashMap<>(podLabels);
                if (!roles.get(i).isEmpty()) (roleAsLabel ? labels : ann).put(PodSpec.TASK_SPEC_ANNOTATION, roles.get(i));
                String node = i < runningOn.size() ? runningOn.get(i) : null;
                parent.podSpec(new PodSpec(namespace, name + "-" + i, schedulerName, node,
                        node == null ? "Pending" : "Running", podPriorityClass != null ? podPriorityClass : priorityClass,
                        null, preemptionPolicy, Resources.of(podResources.get(i)).add(Resources.of("pods", 1)),
                        nodeSelector, tolerations, labels, ann, arrival, parent.nextOrder(), false,
                        node == null ? PodSpec.UNKNOWN_START : startedAt, placement));
            }
            return parent;
        }
    }
}
