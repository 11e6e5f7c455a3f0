package dev.arbiter.specs;

import dev.arbiter.manifest.ManifestLoader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Something a setup step describes (a node, a queue, a priority class, a workload), rendered as the Kubernetes
 * objects a cluster would hold. Rendering is late, at the first outcome step, because the GPU resource name and the
 * arrival cycle are only known then.
 */
interface SpecObject {
    /** The objects, as YAML-ready maps; {@code arrival} > 0 is stamped as the simulator's arrival-cycle annotation. */
    List<Map<String, Object>> render(String gpu, int arrival);

    /** {@code apiVersion}, {@code kind} and {@code metadata} of a new object; {@code namespace} may be null. */
    static Map<String, Object> object(String apiVersion, String kind, String name, String namespace, int arrival) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", apiVersion);
        o.put("kind", kind);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        if (namespace != null) meta.put("namespace", namespace);
        if (arrival > 0) meta.put("annotations", new LinkedHashMap<>(Map.of(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION,
                Integer.toString(arrival))));
        o.put("metadata", meta);
        return o;
    }

    /** A nested map under {@code key}, created when absent. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> child(Map<String, Object> parent, String key) {
        return (Map<String, Object>) parent.computeIfAbsent(key, k -> new LinkedHashMap<String, Object>());
    }
}
