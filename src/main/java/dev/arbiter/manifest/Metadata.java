package dev.arbiter.manifest;

import java.util.Map;

/**
 * The {@code metadata} of a manifest object or pod template. {@code namespace} and {@code name} are null when
 * absent (templates have no name); {@code arrivalCycle} is null unless the object carries the
 * {@value ManifestLoader#ARRIVAL_CYCLE_ANNOTATION} annotation. The maps are mutable copies, in document order.
 */
record Metadata(String namespace, String name, Map<String, String> labels, Map<String, String> annotations,
                Integer arrivalCycle) {
    static final String DEFAULT_NAMESPACE = "default";

    /**
     * Reads {@code object.metadata}; an arrival-cycle annotation that is not a non-negative integer is an error, and so
     * are label and annotation keys or label values the API server would refuse ({@link ApiValidation}).
     */
    static Metadata read(Field object) {
        Field metadata = object.get("metadata");
        Field annotations = metadata.get("annotations");
        ApiValidation.labels(metadata.get("labels"));
        ApiValidation.annotations(annotations);
        return new Metadata(metadata.get("namespace").string(), metadata.get("name").string(),
                metadata.get("labels").stringMap(), annotations.stringMap(),
                arrivalCycle(annotations.get(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION)));
    }

    private static Integer arrivalCycle(Field annotation) {
        if (!annotation.isPresent()) return null;
        return annotation.integer(0, v -> v >= 0, "must be a non-negative integer");
    }

    /** The namespace, or "default" when the manifest names none. */
    String namespaceOrDefault() {
        return namespace == null ? DEFAULT_NAMESPACE : namespace;
    }

    int arrivalCycleOr(int fallback) {
        return arrivalCycle == null ? fallback : arrivalCycle;
    }
}
