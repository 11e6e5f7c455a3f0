package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/** Volcano's namespaced {@code scheduling.volcano.sh/v1beta1} PodGroup (a gang), field-compatible with Volcano's CRD. */
@Group(VolcanoQueue.GROUP)
@Version("v1beta1")
@Kind("PodGroup")
@Plural("podgroups")
@Singular("podgroup")
public class VolcanoPodGroup extends CustomResource<VolcanoPodGroup.Spec, VolcanoPodGroup.Status> implements Namespaced {

    /** {@code spec}: minMember, minTaskMember, queue, priorityClassName, minResources. */
    public static class Spec extends OpenObject {
        public Integer minMember;
        public Map<String, Integer> minTaskMember;
        public String queue;
        public String priorityClassName;
        public Map<String, Quantity> minResources;
    }

    /** {@code status}: phase (Pending, Inqueue, Running, Unknown, Completed), member counts, conditions. */
    public static class Status extends OpenObject {
        public String phase;
        public List<Condition> conditions;
        public Integer running;
        public Integer succeeded;
        public Integer failed;
    }

    /** One {@code status.conditions} entry (type Unschedulable or Scheduled). */
    public static class Condition extends OpenObject {
        public String type;
        public String status;
        public String transitionID;
        public String lastTransitionTime;
        public String reason;
        public String message;
    }
}
