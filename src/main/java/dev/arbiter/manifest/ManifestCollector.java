package dev.arbiter.manifest;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Accumulates the objects read so far, in load order. Every object first {@linkplain #claim claims} its identity
 * (kind + namespace + name), which rejects duplicates and hands out the next creation order.
 */
final class ManifestCollector {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private final List<PodSpec> pods = new ArrayList<>();
    private final List<PodGroupSpec> podGroups = new ArrayList<>();
    private final List<QueueSpec> queues = new ArrayList<>();
    private final List<PriorityClassSpec> priorityClasses = new ArrayList<>();
    private final List<String> notices = new ArrayList<>();
    private final Map<String, String> firstSeenAt = new HashMap<>();
    private long nextCreationOrder;

    /**
     * Registers {@code kind id} (e.g. {@code Pod team/p1}) as read from {@code origin} and returns its creation order.
     * Throws "duplicate Pod team/p1 (first at a.yaml:3)" when the same identity was registered before.
     */
    long claim(String kind, String id, Origin origin) {
        String identity = kind + " " + id;
        String first = firstSeenAt.putIfAbsent(identity, origin.location());
        if (first != null) {
            String about = origin.subject().equals(identity) ? "" : origin.subject() + ": ";
            throw new ManifestException(origin.location() + ": " + about + "duplicate " + identity
                    + " (first at " + first + ")");
        }
        return nextCreationOrder++;
    }

    void add(NodeSpec node) {
        nodes.add(node);
    }

    /** Every node's allocatable so far, per resource, summed exactly. */
    private final Map<String, Long> clusterTotal = new java.util.TreeMap<>();

    /**
     * Adds a node's allocatable to the cluster's total; returns the resource whose total would no longer fit a
     * {@code long} (the node's quantity is absurd), or null.
     */
    String addToClusterTotal(dev.arbiter.model.Resources allocatable) {
        for (int i = 0; i < allocatable.size(); i++) {
            long before = clusterTotal.getOrDefault(allocatable.name(i), 0L);
            try {
                clusterTotal.put(allocatable.name(i), Math.addExact(before, allocatable.milliAt(i)));
            } catch (ArithmeticException overflow) {
                return allocatable.name(i);
            }
        }
        return null;
    }

    void add(PodSpec pod) {
        pods.add(pod);
    }

    void add(PodGroupSpec podGroup) {
        podGroups.add(podGroup);
    }

    void add(QueueSpec queue) {
        queues.add(queue);
    }

    void add(PriorityClassSpec priorityClass) {
        priorityClasses.add(priorityClass);
    }

    void notice(String line) {
        notices.add(line);
    }

    /** What was read so far, with the {@code default} queue first when no manifest defined it. */
    Manifests manifests() {
        List<QueueSpec> allQueues = new ArrayList<>(queues);
        if (allQueues.stream().noneMatch(q -> q.name().equals(QueueSpec.DEFAULT))) {
            allQueues.add(0, QueueSpec.defaultQueue());
        }
        return new Manifests(nodes, pods, podGroups, allQueues, priorityClasses, notices);
    }
}
