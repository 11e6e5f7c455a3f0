package dev.arbiter.engine.cycle;

import dev.arbiter.decision.Refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.Nomination;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cycle's plans give back what a later plan made unneeded (Kueue's add-back, across jobs). */
class GiveBackTest {
    private static final String GPU = "nvidia.com/gpu";

    @Test
    void aVictimALaterJobsPlanMadeUnneededStays() {
        // node-1 holds x (2 GPUs, the newest) and w (6). a needs 2: x goes. b then needs 4 of the 2 left free: w goes,
        // which frees 6, enough for a too: x was not needed after all, and stays.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(1, GPU, 8)
                .priorityClass("low", 10).priorityClass("high", 1000)
                .job("ns/w").priorityClass("low").pods(1, GPU, 6).running("node-1").startedAt(0).end()
                .job("ns/x").priorityClass("low").pods(1, GPU, 2).running("node-1").startedAt(0).end()
                .job("ns/a").priorityClass("high").pods(1, GPU, 2).end()
                .job("ns/b").priorityClass("high").pods(1, GPU, 4).end();
        CycleResult r = Shipped.cycle(c.snapshot(1000));
        assertEquals(List.of("ns/w-0"), r.evictions().stream().map(Eviction::pod).toList(), r.evictions().toString());
        assertEquals(List.of("ns/a-0", "ns/b-0"), r.nominations().stream().map(Nomination::pod).sorted().toList());
        assertEquals(new Refusal.WaitingForEvicted(0, "preempt"), Shipped.why(r, "ns/a"), "its victim went to another job");
    }
}
