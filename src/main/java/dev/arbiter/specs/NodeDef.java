package dev.arbiter.specs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node with {@code gpus} GPUs, {@code cpu} cores and {@code memory}, labelled {@code kubernetes.io/hostname} and
 * with {@code labels}, tainted with {@code taints} ({@code key=value:Effect}); cordoned nodes take no new pods.
 */
record NodeDef(String name, int gpus, String cpu, String memory, boolean cordoned, Map<String, String> labels,
               List<String> taints) implements SpecObject {
    NodeDef(String name, int gpus, String cpu, String memory, boolean cordoned) {
        this(name, gpus, cpu, memory, cordoned, Map.of(), List.of());
    }

    private static final java.util.regex.Pattern TAINT =
            java.util.regex.Pattern.compile("([^=:\\s]+)(?:=([^:\\s]*))?:(NoSchedule|PreferNoSchedule|NoExecute)");

    /** {@code spot=true:PreferNoSchedule, gpu:NoSchedule} as taints, each checked; an empty text is none. */
    static List<String> parseTaints(String text) {
        List<String> out = new java.util.ArrayList<>();
        if (text == null || text.isBlank()) return out;
        for (String t : text.split(",")) {
            if (!TAINT.matcher(t.trim()).matches()) {
                throw new IllegalArgumentException("column \"taints\": write key=value:Effect taints separated by commas"
                        + " (Effect NoSchedule, PreferNoSchedule or NoExecute), such as \"spot=true:PreferNoSchedule\","
                        + " not \"" + t.trim() + "\"");
            }
            out.add(t.trim());
        }
        return out;
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
        Map<String, Object> spec = new LinkedHashMap<>();
        if (cordoned) spec.put("unschedulable", true);
        if (!taints.isEmpty()) {
            List<Map<String, String>> out = new java.util.ArrayList<>();
            for (String t : taints) {
                java.util.regex.Matcher m = TAINT.matcher(t);
                m.matches();
                Map<String, String> taint = new LinkedHashMap<>();
                taint.put("key", m.group(1));
                if (m.group(2) != null) taint.put("value", m.group(2));
                taint.put("effect", m.group(3));
                out.add(taint);
            }
            spec.put("taints", out);
        }
        if (!spec.isEmpty()) node.put("spec", spec);
        Map<String, Object> allocatable = new LinkedHashMap<>();
        allocatable.put("cpu", cpu);
        allocatable.put("memory", memory);
        allocatable.put("pods", "110");
        allocatable.put(gpu, Integer.toString(gpus));
        node.put("status", Map.of("allocatable", allocatable));
        return List.of(node);
    }
}
