package dev.arbiter.live;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Volcano's cluster-scoped {@code topology.volcano.sh/v1alpha1} HyperNode (a network domain). Arbiter only reads it:
 * the informer hands the whole object to the manifest translator, so its spec is kept open.
 */
@Group(VolcanoHyperNode.GROUP)
@Version("v1alpha1")
@Kind("HyperNode")
@Plural("hypernodes")
@Singular("hypernode")
public class VolcanoHyperNode extends CustomResource<VolcanoHyperNode.Spec, VolcanoHyperNode.Status> {
    public static final String GROUP = "topology.volcano.sh";

    /** {@code spec}: tier and members, read by the translator. */
    public static class Spec extends OpenObject {}

    /** {@code status}: written by Volcano's controller; Arbiter does not read it. */
    public static class Status extends OpenObject {}
}
