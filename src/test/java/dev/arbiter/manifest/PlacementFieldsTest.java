package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.errorOf;
import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.model.Placement.NodeAffinity;
import dev.arbiter.model.Placement.NodeRequirement;
import dev.arbiter.model.Placement.NodeSelectorTerm;
import dev.arbiter.model.Placement.PodAffinity;
import dev.arbiter.model.Placement.PodAffinityTerm;
import dev.arbiter.model.Placement.SpreadConstraint;
import dev.arbiter.model.Placement.WeightedNodeTerm;
import dev.arbiter.model.Placement.WeightedPodAffinityTerm;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("A pod's affinity, spread constraints, host ports, gates and claims are read as the API server has them")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PlacementFieldsTest {
    private static Placement placementOf(String spec) {
        return pod(parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ns, labels: {app: web, rev: r7}}
                spec:
                  schedulerName: arbiter
                """ + spec.indent(2) + """
                  containers: [{name: c, image: i}]
                """), "ns/p").placement();
    }

    @Test
    void a_pod_without_any_states_none() {
        assertEquals(Placement.NONE, placementOf(""));
    }

    @Test
    void node_affinity_required_terms_and_preferences() {
        Placement p = placementOf("""
                affinity:
                  nodeAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                      nodeSelectorTerms:
                      - matchExpressions:
                        - {key: gpu, operator: In, values: [h100, h200]}
                        - {key: gen, operator: Gt, values: ["4"]}
                      - matchFields:
                        - {key: metadata.name, operator: NotIn, values: [node-9]}
                    preferredDuringSchedulingIgnoredDuringExecution:
                    - weight: 20
                      preference:
                        matchExpressions: [{key: zone, operator: Exists}]
                """);
        assertEquals(new NodeAffinity(List.of(
                        NodeSelectorTerm.of(new NodeRequirement("gpu", "In", List.of("h100", "h200")),
                                new NodeRequirement("gen", "Gt", List.of("4"))),
                        new NodeSelectorTerm(List.of(), List.of(new NodeRequirement("metadata.name", "NotIn", List.of("node-9"))))),
                        List.of(new WeightedNodeTerm(20, NodeSelectorTerm.of(new NodeRequirement("zone", "Exists", List.of()))))),
                p.nodeAffinity());
    }

    @Test
    void pod_affinity_and_anti_affinity_with_namespaces_and_match_label_keys() {
        Placement p = placementOf("""
                affinity:
                  podAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                    - labelSelector: {matchLabels: {app: db}}
                      namespaces: [data]
                      topologyKey: topology.kubernetes.io/zone
                    preferredDuringSchedulingIgnoredDuringExecution:
                    - weight: 50
                      podAffinityTerm:
                        labelSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [batch]}]}
                        namespaceSelector: {}
                        topologyKey: kubernetes.io/hostname
                  podAntiAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                    - labelSelector: {matchLabels: {app: web}}
                      matchLabelKeys: [rev]
                      topologyKey: kubernetes.io/hostname
                """);
        assertEquals(new PodAffinity(
                        List.of(new PodAffinityTerm(LabelSelector.of(Map.of("app", "db")), List.of("data"), null, "topology.kubernetes.io/zone")),
                        List.of(new WeightedPodAffinityTerm(50, new PodAffinityTerm(new LabelSelector(Map.of(),
                                List.of(new LabelSelector.Requirement("tier", "NotIn", List.of("batch")))), List.of(),
                                LabelSelector.EVERYTHING, "kubernetes.io/hostname")))),
                p.podAffinity());
        assertEquals(List.of(new PodAffinityTerm(new LabelSelector(Map.of("app", "web"),
                        List.of(new LabelSelector.Requirement("rev", "In", List.of("r7")))), List.of(), null, "kubernetes.io/hostname")),
                p.podAntiAffinity().required(), "matchLabelKeys takes the pod's own value of rev");
    }

    @Test
    void topology_spread_with_its_defaults() {
        Placement p = placementOf("""
                topologySpreadConstraints:
                - maxSkew: 1
                  topologyKey: topology.kubernetes.io/zone
                  whenUnsatisfiable: DoNotSchedule
                  labelSelector: {matchLabels: {app: web}}
                  matchLabelKeys: [rev]
                - maxSkew: 3
                  topologyKey: kubernetes.io/hostname
                  whenUnsatisfiable: ScheduleAnyway
                  labelSelector: {matchLabels: {app: web}}
                  nodeAffinityPolicy: Ignore
                  nodeTaintsPolicy: Honor
                - maxSkew: 2
                  topologyKey: rack
                  whenUnsatisfiable: DoNotSchedule
                  minDomains: 3
                """);
        assertEquals(List.of(
                new SpreadConstraint(1, "topology.kubernetes.io/zone", true, LabelSelector.of(Map.of("app", "web", "rev", "r7")), 1, true, false),
                new SpreadConstraint(3, "kubernetes.io/hostname", false, LabelSelector.of(Map.of("app", "web")), 1, false, true),
                new SpreadConstraint(2, "rack", true, null, 3, true, false)), p.spread());
    }

    @Test
    void host_ports_from_containers_and_every_container_port_with_host_network() {
        Placement ports = pod(parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ns}
                spec:
                  containers:
                  - name: c
                    image: i
                    ports: [{containerPort: 80, hostPort: 8080}, {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}, {containerPort: 9000}]
                """), "ns/p").placement();
        assertEquals(List.of(new HostPort("TCP", "", 8080), new HostPort("UDP", "10.0.0.1", 53)), ports.hostPorts());
        Placement hostNetwork = pod(parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ns}
                spec:
                  hostNetwork: true
                  containers: [{name: c, image: i, ports: [{containerPort: 9100}]}]
                """), "ns/p").placement();
        assertEquals(List.of(new HostPort("TCP", "", 9100)), hostNetwork.hostPorts());
    }

    @Test
    void scheduling_gates_and_resource_claims() {
        Placement p = placementOf("""
                schedulingGates: [{name: example.com/quota}]
                resourceClaims: [{name: gpu, resourceClaimTemplateName: a100}]
                """);
        assertEquals(List.of("example.com/quota"), p.schedulingGates());
        assertEquals(List.of("spec.resourceClaims (dynamic resource allocation)"), p.notEvaluated());
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("an unknown node operator", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Matches, values: [x]}]}]}}}""",
                        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator:"
                                + " Unsupported value: \"Matches\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\""),
                Arguments.of("In without values", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: In}]}]}}}""",
                        "matchExpressions[0].values: must be specified when `operator` is 'In' or 'NotIn'"),
                Arguments.of("Exists with values", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists, values: [a]}]}]}}}""",
                        "matchExpressions[0].values: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
                Arguments.of("Gt with a word", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: gen, operator: Gt, values: [new]}]}]}}}""",
                        "matchExpressions[0].values[0]: must be an integer, got \"new\""),
                Arguments.of("Lt with two values", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: gen, operator: Lt, values: ["1", "2"]}]}]}}}""",
                        "matchExpressions[0].values: must be specified single value when `operator` is 'Lt' or 'Gt'"),
                Arguments.of("no node selector terms", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}""",
                        "nodeSelectorTerms: must have at least one node selector term"),
                Arguments.of("a field other than metadata.name", """
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: spec.unschedulable, operator: In, values: ["true"]}]}]}}}""",
                        "matchFields[0].key: Unsupported value: \"spec.unschedulable\": supported values: \"metadata.name\""),
                Arguments.of("a preferred weight of 0", """
                        affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}}""",
                        "preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in the range 1-100, got 0"),
                Arguments.of("a pod affinity term without a topology key", """
                        affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: db}}}]}}""",
                        "requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: can not be empty"),
                Arguments.of("a label selector operator a node would take", """
                        affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchExpressions: [{key: gen, operator: Gt, values: ["1"]}]}, topologyKey: zone}]}}""",
                        "labelSelector.matchExpressions[0].operator: Unsupported value: \"Gt\""),
                Arguments.of("a spread constraint with maxSkew 0", """
                        topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]""",
                        "topologySpreadConstraints[0].maxSkew: must be greater than zero, got 0"),
                Arguments.of("an unknown whenUnsatisfiable", """
                        topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}]""",
                        "topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Maybe\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""),
                Arguments.of("minDomains with ScheduleAnyway", """
                        topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}]""",
                        "minDomains: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
                Arguments.of("a node policy that is neither Honor nor Ignore", """
                        topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}]""",
                        "nodeTaintsPolicy: Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\""),
                Arguments.of("a host port out of range", """
                        containers: [{name: c, image: i, ports: [{containerPort: 80, hostPort: 70000}]}]""",
                        "ports[0].hostPort: must be between 1 and 65535, inclusive, got 70000"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void is_refused_naming_the_field(String name, String spec, String expected) {
        String yaml = """
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ns}
                spec:
                """ + spec.indent(2) + (spec.contains("containers") ? "" : "  containers: [{name: c, image: i}]\n");
        String message = errorOf(yaml);
        assertTrue(message.startsWith("test.yaml:") && message.contains("Pod ns/p: "), message);
        assertTrue(message.contains(expected), message);
    }
}
