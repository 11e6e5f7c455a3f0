package dev.arbiter.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.HyperNodeSpec;
import dev.arbiter.model.Manifests;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tiered fleets: blocks of racks of nodes, as HyperNodes or labels, written as YAML that loads back the same. */
class TieredFleetTest {
    private static Manifests fleet() {
        return ClusterGenerator.generate(SynthSpec.fleet(40, 10, 2, 3));
    }

    @Test
    void hyperNodesMakeRacksOfNodesAndBlocksOfRacks() {
        Manifests m = TieredFleet.tiered(fleet(), 8, 2, TieredFleet.Source.HYPERNODES);
        List<HyperNodeSpec> racks = m.hyperNodes().stream().filter(h -> h.tier() == 1).toList();
        List<HyperNodeSpec> blocks = m.hyperNodes().stream().filter(h -> h.tier() == 2).toList();
        assertEquals(5, racks.size());
        assertEquals(3, blocks.size(), "5 racks in blocks of 2");
        assertEquals("b00-r00", racks.get(0).name());
        assertEquals(8, racks.get(0).members().size());
        assertEquals(List.of("b00-r00", "b00-r01"), blocks.get(0).members().stream().map(HyperNodeSpec.Member::exactName).toList());
        assertTrue(m.nodes().get(0).labels().get(TieredFleet.RACK) == null, "HyperNodes only: no labels");
    }

    @Test
    void labelsNameEachNodesRackAndBlock() {
        Manifests m = TieredFleet.tiered(fleet(), 8, 2, TieredFleet.Source.LABELS);
        assertEquals(List.of(), m.hyperNodes());
        assertEquals("b02-r00", m.nodes().get(39).labels().get(TieredFleet.RACK));
        assertEquals("b02", m.nodes().get(39).labels().get(TieredFleet.BLOCK));
    }

    @Test
    void generateWritesHyperNodesThatLoadBack() {
        CliRunner r = CliRunner.run("generate", "--nodes", "40", "--pods", "10", "--queues", "2", "--rack-size", "8",
                "--block-size", "2", "--topology", "both");
        assertEquals(0, r.exit(), r.err());
        Manifests back = ManifestLoader.parse(r.out(), "generated.yaml");
        assertEquals(TieredFleet.tiered(ClusterGenerator.generate(new SynthSpec(40, 10, 2, 1, 0.5, 64, 1)), 8, 2,
                TieredFleet.Source.BOTH).hyperNodes(), back.hyperNodes());
        assertTrue(r.err().contains("8 HyperNodes"), r.err());
        assertEquals(2, CliRunner.run("generate", "--rack-size", "8", "--topology", "zones").exit());
    }
}
