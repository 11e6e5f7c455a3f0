package dev.arbiter.specs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node with {@code gpus} GPUs, {@code cpu} cores and {@code memory}, labelled {@code kubernetes.io/hostname} and
 * with {@code labels}; cordoned nodes take no new pods.
 */
record NodeDef(String name, int gpus, String cpu, String memory, boolean cordoned, Map<String, String> labels)
        implements SpecObject {
    NodeDef(String name, int gpus, String cpu, String memory, boolean cordoned) {
        this(name, gpus, cpu, memory, cordoned, Map.of());
    }

    /** {@code gpu=h100, rack=r1} as labels; an empty text is none. */
    static Map<String, String> parseLabels(String text) {
        Map<String, String> out = new java.util.TreeMap<>();
        if (text == null || text.isBlank()) return out;
        for (String pair : text.split(",")) {
            String[] kv = pair.trim().split("=", -1);
            if (kv.length != 2 || kv[0].isBlank()) {
                throw new IllegalArgumentException("column \"labels\": write key=value pairs separated by commas, such as"
                        + " \"gpu=h100, rack=r1\", not \"" + pair.trim() + "\"");
            }
            out.put(kv[0].trim(), kv[1].trim());
        }
        return out;
    }

    static final String DEFAULT_CPU = "96";
    static final String DEFAULT_MEMORY = "768Gi";

    @Override
    public List<Map<String, Object>> render(String gpu, int arrival) {
        Map<String, Object> node = SpecObject.object("v1", "Node", name, null, arrival);
        Map<String, Object> allLabels = new LinkedHashMap<>(labels);
        allLabels.put("kubernetes.io/hostname", name);
        SpecObject.child(node, "metadata").put("labels", allLabels);
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
