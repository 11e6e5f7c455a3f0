package dev.arbiter.live;

import java.util.List;
import java.util.Set;

/**
 * Every API call live mode makes, as RBAC rules: the single list {@code deploy/arbiter/clusterrole.yaml} (and the
 * Lease role) must grant, no more and no less. A test compares the manifests with this list; change both together.
 *
 * <p>Who calls what: the {@link ClusterCache} informers list and watch (HyperNodes too, when their CRD is installed, and the Workload API's {@code scheduling.k8s.io}
 * PodGroups, when the API server serves them); the {@link Actuator}'s writers create
 * bindings, evictions, events and the {@code default} Queue, read a pod back after a 409 on its binding when the
 * answer does not name its node (and before first setting its PodScheduled condition), patch the PodScheduled=False
 * condition of pods they cannot place, patch an Event's count when they aggregate, and patch PodGroup and Queue status
 * (PodGroup status through the main resource when the installed CRD, e.g. Volcano's, has no status subresource;
 * a {@code scheduling.k8s.io} PodGroup's PodGroupInitiallyScheduled condition through its status subresource);
 * the {@link LeaderElection} reads and renews its Lease.
 */
public final class ApiPermissions {
    /**
     * One RBAC rule: API group ("" for core), resource (with "/subresource"), verbs, and the only object names they
     * apply to ({@code names}; empty: every object).
     */
    public record Rule(String group, String resource, Set<String> verbs, Set<String> names) {
        /** A rule for every object of the resource. */
        public Rule(String group, String resource, Set<String> verbs) {
            this(group, resource, verbs, Set.of());
        }
    }

    /** The Lease's name unless {@code --lease-name} says otherwise (the Role grants reading and renewing only it). */
    public static final String LEASE = "arbiter";

    /** Cluster-wide: the ClusterRole. */
    public static final List<Rule> CLUSTER = List.of(
            new Rule("", "nodes", Set.of("list", "watch")),
            new Rule("", "pods", Set.of("get", "list", "watch")),
            new Rule("", "namespaces", Set.of("list", "watch")),
            new Rule("", "pods/binding", Set.of("create")),
            new Rule("", "pods/eviction", Set.of("create")),
            new Rule("", "pods/status", Set.of("patch")),
            new Rule("", "events", Set.of("create", "patch")),
            new Rule("scheduling.k8s.io", "priorityclasses", Set.of("list", "watch")),
            new Rule(VolcanoQueue.GROUP, "queues", Set.of("list", "watch", "create", "patch")),
            new Rule(VolcanoQueue.GROUP, "queues/status", Set.of("patch")),
            new Rule(VolcanoQueue.GROUP, "podgroups", Set.of("list", "watch", "patch")),
            new Rule(VolcanoQueue.GROUP, "podgroups/status", Set.of("patch")),
            new Rule(VolcanoHyperNode.GROUP, "hypernodes", Set.of("list", "watch")),
            new Rule(WorkloadPodGroup.GROUP, "podgroups", Set.of("list", "watch")),
            new Rule(WorkloadPodGroup.GROUP, "podgroups/status", Set.of("patch")),
            // --metrics-secure: who is scraping (TokenReview), and may they (SubjectAccessReview)?
            new Rule("authentication.k8s.io", "tokenreviews", Set.of("create")),
            new Rule("authorization.k8s.io", "subjectaccessreviews", Set.of("create")));

    /**
     * In Arbiter's own namespace only: the Role for the leader-election Lease. Reading and renewing are limited to
     * Arbiter's Lease; creating cannot be (RBAC does not limit {@code create} by name: the object does not exist yet).
     */
    public static final List<Rule> NAMESPACE = List.of(
            new Rule("coordination.k8s.io", "leases", Set.of("create")),
            new Rule("coordination.k8s.io", "leases", Set.of("get", "patch"), Set.of(LEASE)));

    private ApiPermissions() {}
}
