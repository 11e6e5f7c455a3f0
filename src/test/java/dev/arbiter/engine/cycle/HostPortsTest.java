package dev.arbiter.engine.cycle;

import static dev.arbiter.engine.cycle.Placements.GPU;
import static dev.arbiter.engine.cycle.Placements.nodesUsed;
import static dev.arbiter.engine.cycle.Placements.ports;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.Placement;
import dev.arbiter.model.Placement.HostPort;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Host ports conflict on a node as kube-scheduler's NodePorts filter has it: the same protocol and port, with equal
 * host IPs or either unspecified. A pod holding the first port runs on node-1; a one-GPU pod asking for the second port
 * would binpack onto node-1 too, and goes to node-2 exactly when the ports conflict.
 */
class HostPortsTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("the same port and protocol conflict", tcp("", 8080), tcp("", 8080), true),
                Arguments.of("different ports do not", tcp("", 8080), tcp("", 8081), false),
                Arguments.of("different protocols do not", tcp("", 53), new HostPort("UDP", "", 53), false),
                Arguments.of("two specific host IPs that differ do not", tcp("10.0.0.1", 8080), tcp("10.0.0.2", 8080), false),
                Arguments.of("the same specific host IP does", tcp("10.0.0.1", 8080), tcp("10.0.0.1", 8080), true),
                Arguments.of("an unspecified host IP conflicts with a specific one", tcp("0.0.0.0", 8080), tcp("10.0.0.2", 8080), true),
                Arguments.of("a specific host IP conflicts with an unspecified one", tcp("10.0.0.1", 8080), tcp("", 8080), true));
    }

    private static HostPort tcp(String ip, int port) {
        return new HostPort("TCP", ip, port);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void hostPorts(String name, HostPort running, HostPort wanted, boolean conflict) {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .barePods("ns/old").placement(ports(running)).pods(1, GPU, 1).running("node-1").end()
                .barePods("ns/new").placement(ports(wanted)).pods(1, GPU, 1).end().snapshot());
        assertEquals(conflict ? "node-2" : "node-1", Placements.placements(r).get("ns/new-0"));
    }

    @Test
    void aPortHeldByAPodOfAnotherSchedulerCounts() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(1, GPU, 8)
                .barePods("kube-system/exporter").schedulerName("default-scheduler").placement(ports(tcp("", 9100))).pods(1, "cpu", 1)
                .running("node-1").end()
                .barePods("ns/new").placement(ports(tcp("", 9100))).pods(1, GPU, 1).end().snapshot());
        assertTrue(r.bindings().isEmpty());
        String reason = Shipped.group(r.podGroups(), "ns/podgroup-new-0").reason();
        assertTrue(reason.contains("0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports"), reason);
    }

    @Test
    void podsOfOneGangDoNotShareAPort() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(3, GPU, 8)
                .job("ns/ring").placement(ports(tcp("", 29500))).pods(3, GPU, 1).end().snapshot());
        assertEquals(3, nodesUsed(r).size());
    }

    @Test
    void placementsWithoutPortsShareANodeFreely() {
        CycleResult r = Shipped.cycle(ClusterBuilder.cluster().nodes(2, GPU, 8)
                .barePods("ns/a").placement(Placement.NONE.withHostPorts(List.of())).pods(2, GPU, 1).end().snapshot());
        assertEquals(1, nodesUsed(r).size());
    }
}
