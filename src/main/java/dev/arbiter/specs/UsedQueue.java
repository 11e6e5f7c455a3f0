package dev.arbiter.specs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A queue with a stored past usage of {@code gpus} GPUs (its {@value dev.arbiter.model.QueueUsage#ANNOTATION}
 * annotation, sampled at the story's start), as a Queue carries it after a scheduler ran with a usage half-life.
 */
record UsedQueue(QueueDef queue, int gpus) implements SpecObject {
    @Override
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> render(String gpu, int arrival) {
        Map<String, Object> q = queue.render(gpu, arrival).get(0);
        Map<String, Object> meta = (Map<String, Object>) q.get("metadata");
        Map<String, Object> annotations = new LinkedHashMap<>((Map<String, Object>) meta.getOrDefault("annotations", Map.of()));
        annotations.put(dev.arbiter.model.QueueUsage.ANNOTATION,
                new dev.arbiter.model.QueueUsage(Map.of(gpu, gpus * 1000.0), 0).annotationValue());
        meta.put("annotations", annotations);
        return List.of(q);
    }
}
