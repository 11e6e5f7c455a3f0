package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.errorOf;
import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.arbiter.model.HyperNodeSpec;
import dev.arbiter.model.HyperNodeSpec.Member;
import dev.arbiter.model.HyperNodeSpec.MemberType;
import dev.arbiter.model.LabelSelector;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NetworkTopology;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** HyperNodes and PodGroup {@code spec.networkTopology}: what is read, and one line naming the field when wrong. */
class TopologyFieldsTest {
    private static final String POD_GROUP = """
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: PodGroup
            metadata: {name: train, namespace: ml}
            spec:
              minMember: 4
            """;

    @Test
    void aHyperNodeReadsItsTierAndEveryKindOfMember() {
        Manifests m = parse("""
                apiVersion: topology.volcano.sh/v1alpha1
                kind: HyperNode
                metadata: {name: rack-1}
                spec:
                  tier: "1"
                  members:
                  - type: Node
                    selector: {exactMatch: {name: node-1}}
                  - type: Node
                    selector: {regexMatch: {pattern: "gpu-1[0-9]"}}
                  - type: Node
                    selector: {labelMatch: {matchLabels: {rack: r1}}}
                ---
                apiVersion: topology.volcano.sh/v1alpha1
                kind: HyperNode
                metadata: {name: block-1}
                spec:
                  tier: 2
                  members:
                  - type: HyperNode
                    selector: {type: Exact, exactMatch: {name: rack-1}}
                """);
        assertEquals(List.of(
                new HyperNodeSpec("rack-1", 1, List.of(new Member(MemberType.NODE, "node-1", null, null),
                        new Member(MemberType.NODE, null, "gpu-1[0-9]", null),
                        new Member(MemberType.NODE, null, null, LabelSelector.of(Map.of("rack", "r1"))))),
                new HyperNodeSpec("block-1", 2, List.of(new Member(MemberType.HYPER_NODE, "rack-1", null, null)))),
                m.hyperNodes());
    }

    @Test
    void aPodGroupReadsItsNetworkTopology() {
        Manifests m = parse(POD_GROUP + "  networkTopology: {mode: soft, highestTierAllowed: 2}\n");
        assertEquals(NetworkTopology.tiers(false, 2), podGroup(m, "ml/train").networkTopology());
        Manifests defaults = parse(POD_GROUP + "  networkTopology: {}\n");
        assertEquals(NetworkTopology.tiers(true, 1), podGroup(defaults, "ml/train").networkTopology(),
                "Volcano's defaults: hard, highest tier 1");
        assertNull(podGroup(parse(POD_GROUP), "ml/train").networkTopology());
    }

    static Stream<Arguments> invalid() {
        String hyperNode = "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: h}\nspec:\n";
        return Stream.of(
                Arguments.of("a tier that is not a number", hyperNode + "  tier: top\n",
                        "test.yaml:5: HyperNode h: spec.tier: must be a positive integer, got top"),
                Arguments.of("a tier of 0", hyperNode + "  tier: 0\n",
                        "test.yaml:5: HyperNode h: spec.tier: must be a positive integer, got 0"),
                Arguments.of("a missing tier", hyperNode + "  members: []\n", "HyperNode h: spec.tier: is required"),
                Arguments.of("an unknown member type", hyperNode + "  tier: 1\n  members:\n  - type: Rack\n"
                        + "    selector: {exactMatch: {name: n}}\n",
                        "test.yaml:7: HyperNode h: spec.members[0].type: must be Node or HyperNode, got Rack"),
                Arguments.of("two selectors in one member", hyperNode + "  tier: 1\n  members:\n  - type: Node\n"
                        + "    selector: {exactMatch: {name: n}, regexMatch: {pattern: x}}\n",
                        "test.yaml:8: HyperNode h: spec.members[0].selector: must state exactly one of exactMatch,"
                                + " regexMatch and labelMatch, got 2"),
                Arguments.of("a regular expression that does not compile", hyperNode + "  tier: 1\n  members:\n"
                        + "  - type: Node\n    selector: {regexMatch: {pattern: \"node-[\"}}\n",
                        "test.yaml:8: HyperNode h: spec.members[0].selector.regexMatch.pattern: is not a valid regular"
                                + " expression: Unclosed character class"),
                Arguments.of("a label selector for HyperNode members", hyperNode + "  tier: 2\n  members:\n"
                        + "  - type: HyperNode\n    selector: {labelMatch: {matchLabels: {a: b}}}\n",
                        "test.yaml:8: HyperNode h: spec.members[0].selector.labelMatch: selects nodes only; a HyperNode"
                                + " member is named by exactMatch or regexMatch"),
                Arguments.of("an unknown network topology mode", POD_GROUP + "  networkTopology: {mode: strict}\n",
                        "test.yaml:6: PodGroup ml/train: spec.networkTopology.mode: must be hard or soft, got strict"),
                Arguments.of("a highest tier of 0", POD_GROUP + "  networkTopology: {highestTierAllowed: 0}\n",
                        "test.yaml:6: PodGroup ml/train: spec.networkTopology.highestTierAllowed: must be a positive"
                                + " integer"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void badTopologyInputIsOneLineNamingTheField(String name, String yaml, String expected) {
        String message = errorOf(yaml);
        assertEquals(true, message.contains(expected), "expected «" + expected + "» in «" + message + "»");
        assertEquals(-1, message.indexOf('\n'), message);
    }
}
