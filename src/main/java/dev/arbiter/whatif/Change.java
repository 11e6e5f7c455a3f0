package dev.arbiter.whatif;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.model.Caps;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Placement;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import dev.arbiter.policy.PolicySettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One change {@code arbiter whatif} may propose, as data: what it changes in the world (a queue, running jobs, nodes,
 * the pending job's own constraints) or in the policy (a setting). {@link #apply(ClusterSnapshot)} and
 * {@link #apply(RuleBook)} make the changed world and policy the real engine is run on; the other methods word it.
 * A change is a value: applying it twice gives the same world.
 */
public sealed interface Change {
    /** The kind, for tools: {@code capability}, {@code deserved}, {@code weight}, {@code jobs-ended}, ... */
    String kind();

    /** What changes, in a line: {@code queue tenanta: capability mars-tech.com/gpu 8 -> 16}. */
    String words();

    /** The world with this change made (the snapshot itself when the change is to the policy). */
    default ClusterSnapshot apply(ClusterSnapshot s) {
        return s;
    }

    /** The policy with this change made (the rule book itself when the change is to the world). */
    default RuleBook apply(RuleBook book) {
        return book;
    }

    // ---- queues --------------------------------------------------------------------------------------------------

    /** A queue's {@code spec.capability} raised by {@code by} (in the dimensions it bounds). */
    record CapabilityRaised(String queue, Caps from, Caps to, Resources by) implements Change {
        public String kind() {
            return "capability";
        }

        public String words() {
            return "queue " + queue + ": capability " + from + " -> " + to;
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            return withQueue(s, queue, q -> new QueueSpec(q.name(), q.weight(), q.priority(), to, q.guarantee(),
                    q.reclaimable(), q.state(), q.parent(), q.arrivalCycle(), q.dequeueStrategy(), q.deserved(),
                    q.lendingLimit()));
        }
    }

    /** A queue's explicit deserved share ({@code spec.deserved}, the capacity pack) raised by {@code by}. */
    record DeservedRaised(String queue, Resources from, Resources to, Resources by) implements Change {
        public String kind() {
            return "deserved";
        }

        public String words() {
            return "queue " + queue + ": deserved {" + dev.arbiter.decision.ReasonWords.amounts(from) + "} -> {"
                    + dev.arbiter.decision.ReasonWords.amounts(to) + "}";
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            return withQueue(s, queue, q -> new QueueSpec(q.name(), q.weight(), q.priority(), q.capability(), q.guarantee(),
                    q.reclaimable(), q.state(), q.parent(), q.arrivalCycle(), q.dequeueStrategy(), to, q.lendingLimit()));
        }
    }

    /** A queue's weight raised (its deserved share, under the proportion policy, grows with it). */
    record WeightRaised(String queue, int from, int to) implements Change {
        public String kind() {
            return "weight";
        }

        public String words() {
            return "queue " + queue + ": weight " + from + " -> " + to;
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            return withQueue(s, queue, q -> new QueueSpec(q.name(), to, q.priority(), q.capability(), q.guarantee(),
                    q.reclaimable(), q.state(), q.parent(), q.arrivalCycle(), q.dequeueStrategy(), q.deserved(),
                    q.lendingLimit()));
        }
    }

    // ---- running jobs --------------------------------------------------------------------------------------------

    /**
     * A running job that would end: its key, queue, priority, how many pods and what they hold, and what today's
     * policy says of evicting it for the pending job ({@code eviction}).
     */
    record EndedJob(String job, String queue, int priority, int pods, Resources holds, String eviction) {}

    /** Running jobs ending (finishing, deleted, or evicted): every pod of each leaves its node. */
    record JobsEnded(List<EndedJob> jobs) implements Change {
        public JobsEnded {
            jobs = List.copyOf(jobs);
        }

        public String kind() {
            return "jobs-ended";
        }

        public String words() {
            StringBuilder sb = new StringBuilder(jobs.size() == 1 ? "job " : jobs.size() + " jobs ");
            for (int i = 0; i < jobs.size(); i++) {
                EndedJob j = jobs.get(i);
                sb.append(i == 0 ? "" : ", ").append(j.job()).append(" (").append(j.pods()).append(" pod")
                        .append(j.pods() == 1 ? "" : "s").append(", ").append(dev.arbiter.decision.ReasonWords.amounts(
                                j.holds().without("pods"))).append(")");
            }
            return sb.append(" end").append(jobs.size() == 1 ? "s" : "").toString();
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            java.util.Set<String> ended = new java.util.HashSet<>();
            for (EndedJob j : jobs) ended.add(j.job());
            List<PodSpec> pods = s.pods().stream().filter(p -> !ended.contains(p.jobId())).toList();
            return withPods(s, pods);
        }
    }

    // ---- nodes -----------------------------------------------------------------------------------------------------

    /** {@code count} nodes of one shape added: {@code like}'s labels (a new hostname each) and taints, this allocatable. */
    record NodesAdded(int count, String like, Map<String, String> labels, List<Taint> taints, Resources allocatable)
            implements Change {
        public NodesAdded {
            labels = Map.copyOf(labels);
            taints = List.copyOf(taints);
        }

        public String kind() {
            return "nodes-added";
        }

        public String words() {
            return count + " node" + (count == 1 ? "" : "s") + " added" + (like == null ? " of the pods' shape" : " like " + like) + " ("
                    + dev.arbiter.decision.ReasonWords.amounts(allocatable.without("pods")) + " each)";
        }

        /** The names of the nodes added: {@code whatif-node-1}, ... */
        public List<String> names() {
            List<String> out = new ArrayList<>();
            for (int i = 1; i <= count; i++) out.add("whatif-node-" + i);
            return out;
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            List<NodeSpec> nodes = new ArrayList<>(s.nodes());
            for (String name : names()) {
                Map<String, String> l = new LinkedHashMap<>(labels);
                if (l.containsKey("kubernetes.io/hostname")) l.put("kubernetes.io/hostname", name);
                nodes.add(new NodeSpec(name, l, taints, false, allocatable, 0));
            }
            return new ClusterSnapshot(nodes, s.pods(), s.podGroups(), s.queues(), s.priorityClasses(), s.now(),
                    s.nominations(), s.namespaceLabels(), s.hyperNodes(), s.refusedVictims(), s.usage());
        }
    }

    // ---- the pending job's own constraints -------------------------------------------------------------------------

    /** The PodGroup's network topology relaxed: {@code to} null drops it, else a softer or wider one. */
    record TopologyRelaxed(String job, NetworkTopology from, NetworkTopology to) implements Change {
        public String kind() {
            return "topology-relaxed";
        }

        public String words() {
            return "PodGroup " + job + ": networkTopology " + from + " -> " + (to == null ? "none" : to);
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            List<PodGroupSpec> groups = s.podGroups().stream()
                    .map(g -> g.key().equals(job) ? g.withNetworkTopology(to) : g).toList();
            return new ClusterSnapshot(s.nodes(), s.pods(), groups, s.queues(), s.priorityClasses(), s.now(),
                    s.nominations(), s.namespaceLabels(), s.hyperNodes(), s.refusedVictims(), s.usage());
        }
    }

    /** A Kueue topology annotation on the job's pods dropped ({@code podset-required-topology} or -preferred). */
    record TopologyAnnotationDropped(String job, String annotation, String value) implements Change {
        public String kind() {
            return "topology-annotation-dropped";
        }

        public String words() {
            return "pods of " + job + ": annotation " + annotation + "=" + value + " dropped";
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            return withJobPods(s, job, p -> {
                Map<String, String> a = new LinkedHashMap<>(p.annotations());
                a.remove(annotation);
                return copy(p, p.nodeSelector(), p.tolerations(), a, p.placement());
            });
        }
    }

    /** A nodeSelector entry of the job's pods dropped. */
    record SelectorDropped(String job, String key, String value) implements Change {
        public String kind() {
            return "node-selector-dropped";
        }

        public String words() {
            return "pods of " + job + ": nodeSelector " + key + "=" + value + " dropped";
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            return withJobPods(s, job, p -> {
                Map<String, String> sel = new LinkedHashMap<>(p.nodeSelector());
                sel.remove(key);
                return copy(p, sel, p.tolerations(), p.annotations(), p.placement());
            });
        }
    }

    /**
     * A required placement term of the job's pods dropped: {@code what} is {@code node affinity} (one
     * matchExpression of a term), {@code pod affinity}, {@code pod anti-affinity} or {@code topology spread};
     * {@code term} and {@code index} say which (an expression's index counts across the terms, in order).
     */
    record TermDropped(String job, String what, int index, String term) implements Change {
        public String kind() {
            return "term-dropped";
        }

        public String words() {
            return "pods of " + job + ": required " + what + " term " + term + " dropped";
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            return withJobPods(s, job, p -> copy(p, p.nodeSelector(), p.tolerations(), p.annotations(),
                    Terms.without(p.placement(), what, index)));
        }
    }

    /** A toleration added to the job's pods for a taint that keeps them off nodes they could otherwise use. */
    record TaintTolerated(String job, Taint taint) implements Change {
        public String kind() {
            return "taint-tolerated";
        }

        public String words() {
            return "pods of " + job + ": toleration added for taint " + taint.key()
                    + (taint.value() == null || taint.value().isEmpty() ? "" : "=" + taint.value()) + ":" + taint.effect();
        }

        public ClusterSnapshot apply(ClusterSnapshot s) {
            Toleration t = new Toleration(taint.key(), "Equal", taint.value() == null ? "" : taint.value(), taint.effect());
            return withJobPods(s, job, p -> {
                List<Toleration> tols = new ArrayList<>(p.tolerations());
                tols.add(t);
                return copy(p, p.nodeSelector(), tols, p.annotations(), p.placement());
            });
        }
    }

    // ---- the policy ------------------------------------------------------------------------------------------------

    /** A policy setting ({@code policy.yaml}) changed from {@code from} to {@code to}, both as the file writes them. */
    record SettingChanged(String setting, String from, String to, UnaryOperator<PolicySettings> how) implements Change {
        public String kind() {
            return "setting";
        }

        public String words() {
            return "policy.yaml " + setting + ": " + from + " -> " + to;
        }

        public RuleBook apply(RuleBook book) {
            return book.withSettings(how.apply(book.settings()));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SettingChanged c && c.setting.equals(setting) && c.to.equals(to);
        }

        @Override
        public int hashCode() {
            return setting.hashCode() * 31 + to.hashCode();
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------------------------

    private static ClusterSnapshot withQueue(ClusterSnapshot s, String name, UnaryOperator<QueueSpec> change) {
        List<QueueSpec> queues = s.queues().stream().map(q -> q.name().equals(name) ? change.apply(q) : q).toList();
        return new ClusterSnapshot(s.nodes(), s.pods(), s.podGroups(), queues, s.priorityClasses(), s.now(),
                s.nominations(), s.namespaceLabels(), s.hyperNodes(), s.refusedVictims(), s.usage());
    }

    private static ClusterSnapshot withPods(ClusterSnapshot s, List<PodSpec> pods) {
        java.util.Set<String> present = new java.util.HashSet<>();
        for (PodSpec p : pods) present.add(p.key());
        Map<String, String> nominations = new LinkedHashMap<>(s.nominations());
        nominations.keySet().retainAll(present);
        return new ClusterSnapshot(s.nodes(), pods, s.podGroups(), s.queues(), s.priorityClasses(), s.now(),
                nominations, s.namespaceLabels(), s.hyperNodes(), s.refusedVictims(), s.usage());
    }

    private static ClusterSnapshot withJobPods(ClusterSnapshot s, String job, UnaryOperator<PodSpec> change) {
        return withPods(s, s.pods().stream().map(p -> p.jobId().equals(job) && !p.isBound() ? change.apply(p) : p).toList());
    }

    /** {@code p} with other selectors, tolerations, annotations and placement; the rest as it is. */
    static PodSpec copy(PodSpec p, Map<String, String> nodeSelector, List<Toleration> tolerations,
                        Map<String, String> annotations, Placement placement) {
        return new PodSpec(p.namespace(), p.name(), p.schedulerName(), p.nodeName(), p.phase(), p.priorityClassName(),
                p.priority(), p.preemptionPolicy(), p.requests(), nodeSelector, tolerations, p.labels(), annotations,
                p.arrivalCycle(), p.creationOrder(), p.terminating(), p.startedAt(), placement);
    }
}
