package dev.arbiter.manifest;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import java.util.List;
import java.util.Map;

/** Reads a {@code v1} Node. */
final class NodeReader {
    /** The pod capacity the kubelet reports by default. */
    static final long DEFAULT_MAX_PODS = 110;

    private NodeReader() {}

    /** The label the kubelet puts on every node, holding its name (hostname topology keys read it). */
    static final String HOSTNAME = "kubernetes.io/hostname";

    /**
     * Name, labels (with {@code kubernetes.io/hostname: <name>} unless given, as the kubelet labels every node),
     * {@code spec.taints}, {@code spec.unschedulable}, and allocatable from {@code status.allocatable} (else
     * {@code status.capacity}), with {@code pods: 110} unless a pods dimension is given.
     */
    static NodeSpec read(Field node, Metadata meta) {
        Field spec = node.get("spec");
        Map<String, String> labels = new java.util.LinkedHashMap<>(meta.labels());
        labels.putIfAbsent(HOSTNAME, meta.name());
        return new NodeSpec(meta.name(), labels, taints(spec.get("taints")),
                spec.get("unschedulable").bool(false), allocatable(node.get("status")), meta.arrivalCycleOr(0));
    }

    private static List<Taint> taints(Field list) {
        return list.items().stream()
                .map(t -> new Taint(t.get("key").string(), t.get("value").string(), t.get("effect").string()))
                .toList();
    }

    /** The field a node's allocatable {@code resource} was read from ({@code status.allocatable}, else capacity). */
    static Field allocatableField(Field node, String resource) {
        Field allocatable = node.get("status", "allocatable");
        return (allocatable.isPresent() ? allocatable : node.get("status", "capacity")).get(resource);
    }

    private static Resources allocatable(Field status) {
        Field allocatable = status.get("allocatable");
        Map<String, Long> milli = (allocatable.isPresent() ? allocatable : status.get("capacity")).quantities();
        milli.putIfAbsent("pods", DEFAULT_MAX_PODS * 1000);
        return Resources.ofMilli(milli);
    }
}
