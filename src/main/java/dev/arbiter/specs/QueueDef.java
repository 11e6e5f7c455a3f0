package dev.arbiter.specs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Volcano queue. {@code capabilityGpus}/{@code guaranteeGpus} null mean none; {@code state} is Open or Closed;
 * {@code parent} null is a top-level queue; {@code dequeue} is traverse or fifo; {@code lendingLimit} is the
 * {@code arbiter.dev/lending-limit} annotation's value as written (null: none). Volcano's defaults: weight 1,
 * priority 0, reclaimable, traverse.
 */
record QueueDef(String name, int weight, int priority, Integer capabilityGpus, Integer guaranteeGpus,
                boolean reclaimable, String state, String parent, String dequeue, Integer deservedGpus,
                String lendingLimit) implements SpecObject {
    static QueueDef named(String name) {
        return new QueueDef(name, 1, 0, null, null, true, "Open", null, "traverse", null, null);
    }

    QueueDef(String name, int weight, int priority, Integer capabilityGpus, Integer guaranteeGpus, boolean reclaimable,
             String state, String parent, String dequeue) {
        this(name, weight, priority, capabilityGpus, guaranteeGpus, reclaimable, state, parent, dequeue, null, null);
    }

    /** An explicit {@code spec.deserved} (the capacity policy pack's share). */
    QueueDef deserved(Integer gpus) {
        return new QueueDef(name, weight, priority, capabilityGpus, guaranteeGpus, reclaimable, state, parent, dequeue, gpus, lendingLimit);
    }

    /** The {@code arbiter.dev/lending-limit} annotation, as written (e.g. {@code "nvidia.com/gpu=4"}). */
    QueueDef lendingLimit(String value) {
        return new QueueDef(name, weight, priority, capabilityGpus, guaranteeGpus, reclaimable, state, parent, dequeue, deservedGpus, value);
    }

    QueueDef weight(int w) { return new QueueDef(name, w, priority, capabilityGpus, guaranteeGpus, reclaimable, state, parent, dequeue, deservedGpus, lendingLimit); }
    QueueDef priority(int p) { return new QueueDef(name, weight, p, capabilityGpus, guaranteeGpus, reclaimable, state, parent, dequeue, deservedGpus, lendingLimit); }
    QueueDef capability(Integer gpus) { return new QueueDef(name, weight, priority, gpus, guaranteeGpus, reclaimable, state, parent, dequeue, deservedGpus, lendingLimit); }
    QueueDef guarantee(Integer gpus) { return new QueueDef(name, weight, priority, capabilityGpus, gpus, reclaimable, state, parent, dequeue, deservedGpus, lendingLimit); }
    QueueDef reclaimable(boolean r) { return new QueueDef(name, weight, priority, capabilityGpus, guaranteeGpus, r, state, parent, dequeue, deservedGpus, lendingLimit); }
    QueueDef state(String s) { return new QueueDef(name, weight, priority, capabilityGpus, guaranteeGpus, reclaimable, s, parent, dequeue, deservedGpus, lendingLimit); }
    QueueDef parent(String p) { return new QueueDef(name, weight, priority, capabilityGpus, guaranteeGpus, reclaimable, state, p, dequeue, deservedGpus, lendingLimit); }
    QueueDef dequeue(String d) { return new QueueDef(name, weight, priority, capabilityGpus, guaranteeGpus, reclaimable, state, parent, d, deservedGpus, lendingLimit); }

    @Override
    public List<Map<String, Object>> render(String gpu, int arrival) {
        Map<String, Object> queue = SpecObject.object("scheduling.volcano.sh/v1beta1", "Queue", name, null, arrival);
        if (lendingLimit != null) {
            SpecObject.child(SpecObject.child(queue, "metadata"), "annotations")
                    .put(dev.arbiter.model.QueueSpec.LENDING_LIMIT, lendingLimit.replace("GPU", gpu));
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("weight", weight);
        if (priority != 0) spec.put("priority", priority);
        spec.put("reclaimable", reclaimable);
        if (parent != null) spec.put("parent", parent);
        if (!dequeue.equals("traverse")) spec.put("dequeueStrategy", dequeue);
        if (capabilityGpus != null) spec.put("capability", Map.of(gpu, Integer.toString(capabilityGpus)));
        if (guaranteeGpus != null) spec.put("guarantee", Map.of("resource", Map.of(gpu, Integer.toString(guaranteeGpus))));
        if (deservedGpus != null) spec.put("deserved", Map.of(gpu, Integer.toString(deservedGpus)));
        queue.put("spec", spec);
        if (!state.equals("Open")) queue.put("status", Map.of("state", state));
        return List.of(queue);
    }
}
