package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Map;

/**
 * Volcano's cluster-scoped {@code scheduling.volcano.sh/v1beta1} Queue, field-compatible with Volcano's CRD (fabric8's
 * own Volcano model does not resolve). Only the informer reads it and only the actuator writes its status.
 */
@Group(VolcanoQueue.GROUP)
@Version("v1beta1")
@Kind("Queue")
@Plural("queues")
@Singular("queue")
public class VolcanoQueue extends CustomResource<VolcanoQueue.Spec, VolcanoQueue.Status> {
    public static final String GROUP = "scheduling.volcano.sh";

    /** {@code spec}: weight, capability, reclaimable, guarantee.resource, deserved, parent, priority. */
    public static class Spec extends OpenObject {
        public Integer weight;
        public Map<String, Quantity> capability;
        public Boolean reclaimable;
        public Map<String, Object> guarantee;
        public Map<String, Quantity> deserved;
        public String parent;
        public Integer priority;
    }

    /** {@code status}: state (Open, Closed, Closing, Unknown), allocated, and job counts by phase. */
    public static class Status extends OpenObject {
        public String state;
        public Map<String, Quantity> allocated;
        public Integer pending;
        public Integer inqueue;
        public Integer running;
        public Integer unknown;
        public Integer completed;
    }
}
