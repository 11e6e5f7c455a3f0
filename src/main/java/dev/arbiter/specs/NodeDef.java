package dev.arbiter.specs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A node with {@code gpus} GPUs, {@code cpu} cores and {@code memory}; cordoned nodes take no new pods. */
record NodeDef(String name, int gpus, String cpu, String memory, boolean cordoned) implements SpecObject {
    static final String DEFAULT_CPU = "96";
    static final String DEFAULT_MEMORY = "768Gi";

    @Override
    public List<Map<String, Object>> render(String gpu, int arrival) {
        Map<String, Object> node = SpecObject.object("v1", "Node", name, null, arrival);
        SpecObject.child(node, "metadata").put("labels", Map.of("kubernetes.io/hostname", name));
        if (cordoned) node.put("spec", Map.of("unschedulable", true));
        Map<String, Object> allocatable = new LinkedHashMap<>();
        allocatable.put("cpu", cpu);
        allocatable.put("memory", memory);
        allocatable.put("pods", "110");
        allocatable.put(gpu, Integer.toString(gpus));
        node.put("status", Map.of("allocatable", allocatable));
        return List.of(node);
    }
}
