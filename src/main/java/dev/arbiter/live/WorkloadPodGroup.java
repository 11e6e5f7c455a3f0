package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The upstream Workload API's namespaced {@code scheduling.k8s.io/v1beta1} PodGroup (KEP-4671; served by Kubernetes
 * 1.37 behind the {@code GenericWorkload} feature gate). fabric8 8.0.0 has no model for it: its spec is kept open and
 * handed whole to the manifest translator; of its status, Arbiter reads and writes the conditions.
 */
@Group(WorkloadPodGroup.GROUP)
@Version(WorkloadPodGroup.VERSION)
@Kind("PodGroup")
@Plural("podgroups")
@Singular("podgroup")
public class WorkloadPodGroup extends CustomResource<WorkloadPodGroup.Spec, WorkloadPodGroup.Status> implements Namespaced {
    public static final String GROUP = "scheduling.k8s.io";
    public static final String VERSION = "v1beta1";

    /** {@code spec}: read by the translator. */
    public static class Spec extends OpenObject {}

    /** {@code status}: its {@code conditions} (metav1.Condition: type, status, reason, message, lastTransitionTime). */
    public static class Status extends OpenObject {
        public List<Map<String, Object>> conditions;
    }
}
