package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static dev.arbiter.engine.cycle.Placements.GPU;
import static dev.arbiter.engine.cycle.Placements.HOST;
import static dev.arbiter.engine.cycle.Placements.affinity;
import static dev.arbiter.engine.cycle.Placements.antiAffinity;
import static dev.arbiter.engine.cycle.Placements.expr;
import static dev.arbiter.engine.cycle.Placements.labels;
import static dev.arbiter.engine.cycle.Placements.podTerm;
import static dev.arbiter.engine.cycle.Placements.requireNodes;
import static dev.arbiter.engine.cycle.Placements.term;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Nomination;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Preemption sees placement constraints: a plan counts only if the preemptor then fits the node by every rule, and an
 * eviction may lift an anti-affinity conflict (or take away the pod an affinity needs).
 */
class PlacementVictimsTest {
    private static ClusterBuilder cluster() {
        return ClusterBuilder.cluster().nodes(2, GPU, 8).priorityClass("low", 100).priorityClass("high", 10_000)
                .priorityClass("critical", 100_000);
    }

    private static String nominatedNode(CycleResult r, String pod) {
        return r.nominations().stream().filter(n -> n.pod().equals(pod)).map(Nomination::node).findFirst().orElse(null);
    }

    @Test
    void aPreemptorEvictsOnlyWhereItWouldThenFit() {
        CycleResult r = Shipped.cycle(cluster().label("node-1", "gpu", "a100").label("node-2", "gpu", "h100")
                .job("ns/on-a100").priorityClass("low").pods(1, GPU, 8).running("node-1").end()
                .job("ns/on-h100").priorityClass("low").pods(1, GPU, 8).running("node-2").end()
                .job("ns/urgent").priorityClass("critical").placement(requireNodes(term(expr("gpu", "In", "h100"))))
                .pods(1, GPU, 8).end().snapshot());
        assertEquals(Set.of("ns/on-h100-0"), Shipped.evicted(r));
        assertEquals("node-2", nominatedNode(r, "ns/urgent-0"));
    }

    @Test
    void evictingTheConflictingPodLiftsAnAntiAffinityConflict() {
        // node-1 has room but runs app=x, which the preemptor's anti-affinity refuses; node-2 is full of work that may
        // not be evicted. Evicting the app=x pod is the plan, though room was never short on node-1.
        CycleResult r = Shipped.cycle(cluster()
                .job("ns/x").priorityClass("low").label("app", "x").pods(1, GPU, 1).running("node-1").end()
                .job("ns/keep").priorityClass("low").notPreemptable().pods(1, GPU, 8).running("node-2").end()
                .job("ns/urgent").priorityClass("critical").placement(antiAffinity(podTerm(labels("app", "x"), HOST)))
                .pods(1, GPU, 1).end().snapshot());
        assertEquals(Set.of("ns/x-0"), Shipped.evicted(r));
        assertEquals("node-1", nominatedNode(r, "ns/urgent-0"));
    }

    @Test
    void evictingAPodThatCarriesAnAntiAffinityLiftsItForThePodsItMatches() {
        CycleResult r = Shipped.cycle(cluster()
                .job("ns/loner").priorityClass("low").placement(antiAffinity(podTerm(labels("app", "web"), HOST)))
                .pods(1, GPU, 1).running("node-1").end()
                .job("ns/keep").priorityClass("low").notPreemptable().pods(1, GPU, 8).running("node-2").end()
                .job("ns/web").priorityClass("critical").label("app", "web").pods(1, GPU, 1).end().snapshot());
        assertEquals(Set.of("ns/loner-0"), Shipped.evicted(r));
    }

    @Test
    void aPreemptorNeverEvictsThePodItsAffinityNeeds() {
        // The only app=db pod fills node-1; evicting it would make room but leave nothing to be near.
        CycleResult r = Shipped.cycle(cluster()
                .job("ns/db").priorityClass("low").label("app", "db").pods(1, GPU, 8).running("node-1").end()
                .job("ns/keep").priorityClass("low").notPreemptable().pods(1, GPU, 8).running("node-2").end()
                .job("ns/near-db").priorityClass("critical").placement(affinity(podTerm(labels("app", "db"), HOST)))
                .pods(1, GPU, 1).end().snapshot());
        assertTrue(r.evictions().isEmpty(), r.evictions().toString());
        assertTrue(r.bindings().isEmpty());
    }

    @Test
    void aPreemptorEvictsTheOtherPodAndStaysNearTheOneItsAffinityNeeds() {
        CycleResult r = Shipped.cycle(cluster()
                .job("ns/db").priorityClass("high").label("app", "db").pods(1, GPU, 4).running("node-1").end()
                .job("ns/batch").priorityClass("low").pods(1, GPU, 4).running("node-1").end()
                .job("ns/keep").priorityClass("low").notPreemptable().pods(1, GPU, 8).running("node-2").end()
                .job("ns/near-db").priorityClass("critical").placement(affinity(podTerm(labels("app", "db"), HOST)))
                .pods(1, GPU, 4).end().snapshot());
        assertEquals(Set.of("ns/batch-0"), Shipped.evicted(r));
        assertEquals("node-1", nominatedNode(r, "ns/near-db-0"));
    }

    @Test
    void aPodThatNeedsWhatArbiterDoesNotEvaluateEvictsNobody() {
        dev.arbiter.model.Placement claims = new dev.arbiter.model.Placement(dev.arbiter.model.Placement.NodeAffinity.NONE,
                dev.arbiter.model.Placement.PodAffinity.NONE, dev.arbiter.model.Placement.PodAffinity.NONE, java.util.List.of(),
                java.util.List.of(), java.util.List.of("spec.resourceClaims (dynamic resource allocation)"), java.util.List.of());
        CycleResult r = Shipped.cycle(cluster()
                .job("ns/batch").priorityClass("low").pods(2, GPU, 8).running("node-1", "node-2").end()
                .job("ns/dra").priorityClass("critical").placement(claims).pods(1, GPU, 1).end().snapshot());
        assertTrue(r.evictions().isEmpty());
        assertEquals(new Refusal.Blocked("ns/dra-0", Refusal.Block.NOT_EVALUATED,
                java.util.List.of("spec.resourceClaims (dynamic resource allocation)")),
                Shipped.part(Shipped.why(r, "ns/dra"), Refusal.Blocked.class));
    }

    @Test
    void aPodWithSchedulingGatesWaitsAndSaysForWhat() {
        dev.arbiter.model.Placement gated = new dev.arbiter.model.Placement(dev.arbiter.model.Placement.NodeAffinity.NONE,
                dev.arbiter.model.Placement.PodAffinity.NONE, dev.arbiter.model.Placement.PodAffinity.NONE, java.util.List.of(),
                java.util.List.of(), java.util.List.of(), java.util.List.of("example.com/quota"));
        CycleResult r = Shipped.cycle(cluster().barePods("ns/gated").placement(gated).pods(1, GPU, 1).end().snapshot());
        assertTrue(r.bindings().isEmpty());
        assertEquals(new Refusal.Blocked("ns/gated-0", Refusal.Block.SCHEDULING_GATES, java.util.List.of("example.com/quota")),
                Shipped.part(Shipped.why(r, "ns/podgroup-gated-0"), Refusal.Blocked.class));
    }
}
