package dev.arbiter.specs;

import dev.arbiter.manifest.ManifestLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** YAML text for the manifest loader: dumping rendered objects, and stamping arrival cycles onto a user's YAML. */
final class ManifestYaml {
    private ManifestYaml() {}

    /** The objects as one multi-document YAML text. */
    static String dump(List<Map<String, Object>> objects) {
        if (objects.isEmpty()) return "";
        return yaml().dumpAll(objects.iterator());
    }

    /**
     * The documents of {@code text}, each object (and each item of a {@code List}) given the arrival-cycle annotation
     * {@code arrival} unless it already names its own. Comments and layout are not kept; check the original text with
     * the loader first so that messages point at the user's lines.
     */
    @SuppressWarnings("unchecked")
    static String stamp(String text, int arrival) {
        List<Object> documents = new ArrayList<>();
        for (Object doc : yaml().loadAll(text)) {
            if (doc == null) continue;
            if (doc instanceof Map<?, ?> m) stampObject((Map<String, Object>) m, arrival);
            documents.add(doc);
        }
        return documents.isEmpty() ? "" : yaml().dumpAll(documents.iterator());
    }

    @SuppressWarnings("unchecked")
    private static void stampObject(Map<String, Object> object, int arrival) {
        Object kind = object.get("kind");
        if (kind instanceof String k && k.endsWith("List") && object.get("items") instanceof List<?> items) {
            for (Object item : items) if (item instanceof Map<?, ?> m) stampObject((Map<String, Object>) m, arrival);
            return;
        }
        if (!(object.computeIfAbsent("metadata", x -> new LinkedHashMap<>()) instanceof Map<?, ?> meta)) return;
        Object annotations = ((Map<String, Object>) meta).computeIfAbsent("annotations", x -> new LinkedHashMap<>());
        if (annotations instanceof Map<?, ?> a) {
            ((Map<String, Object>) a).putIfAbsent(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION, Integer.toString(arrival));
        }
    }

    private static Yaml yaml() {
        DumperOptions out = new DumperOptions();
        out.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        out.setExplicitStart(true);
        out.setDereferenceAliases(true);
        return new Yaml(new SafeConstructor(new LoaderOptions()), new org.yaml.snakeyaml.representer.Representer(out), out);
    }
}
