package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import org.junit.jupiter.api.Test;

/** What the actuator remembers of written status is forgotten when the object is deleted (defect 8 of issue 14). */
class StatusPruningTest extends LiveClusterTest {
    @Test
    void theStatusWrittenForDeletedPodGroupsAndQueuesIsForgotten() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        fx.create(podGroup("lab", "big", "research", 2));
        fx.create(pod("lab", "big-0", "arbiter", 8, "big"));
        fx.create(pod("lab", "big-1", "arbiter", 8, "big"));
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().holdsPod("lab/big-1") && s.cache().hasPodGroup("lab/big") && s.cache().hasQueue("research"));

        assertTrue(s.loop().runOnce().report().statusWrites() >= 2, "PodGroup and Queue status written");
        assertTrue(s.actuator().rememberedStatuses().containsAll(java.util.Set.of("PodGroup lab/big", "Queue research")),
                s.actuator().rememberedStatuses().toString());

        client.pods().inNamespace("lab").delete();
        client.resources(VolcanoPodGroup.class).inNamespace("lab").withName("big").delete();
        client.resources(VolcanoQueue.class).withName("research").delete();
        await("deletions seen", () -> !s.cache().hasPodGroup("lab/big") && !s.cache().hasQueue("research")
                && !s.cache().holdsPod("lab/big-0") && !s.cache().holdsPod("lab/big-1"));
        s.loop().runOnce().report();

        assertTrue(s.actuator().rememberedStatuses().stream().noneMatch(k -> k.equals("PodGroup lab/big") || k.equals("Queue research")),
                "nothing is remembered for objects that are gone: " + s.actuator().rememberedStatuses());
    }
}
