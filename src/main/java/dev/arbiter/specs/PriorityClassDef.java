package dev.arbiter.specs;

import java.util.List;
import java.util.Map;

/** A PriorityClass; {@code neverPreempts} sets {@code preemptionPolicy: Never}. */
record PriorityClassDef(String name, int value, boolean globalDefault, boolean neverPreempts) implements SpecObject {
    @Override
    public List<Map<String, Object>> render(String gpu, int arrival) {
        Map<String, Object> pc = SpecObject.object("scheduling.k8s.io/v1", "PriorityClass", name, null, 0);
        pc.put("value", value);
        if (globalDefault) pc.put("globalDefault", true);
        if (neverPreempts) pc.put("preemptionPolicy", "Never");
        return List.of(pc);
    }
}
