package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 38's likely mistakes, live: a Warning Event LikelyMistake on the object (once per distinct message), the
 * PodGroup's condition, and {@code arbiter_manifest_notices_total{kind}}.
 */
class LikelyMistakesLiveTest extends LiveClusterTest {
    @Test
    void aNearMissQueueAnnotationAPodGroupInAnotherNamespaceAndAQueueTypoAreEachSaidOnce() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        PodSpec lone = pod("team-a", "lone", "arbiter", 1, null);
        fx.create(new PodSpec(lone.namespace(), lone.name(), lone.schedulerName(), null, "Pending", null, null, null,
                lone.requests(), Map.of(), List.of(), Map.of(), Map.of("scheduling.volcano.sh/queue", "research"), 0, 0, false));
        fx.create(podGroup("team-b", "train", "research", 2));
        fx.create(pod("team-a", "p1", "arbiter", 1, "train"));
        fx.create(pod("team-a", "p2", "arbiter", 1, "train"));
        fx.create(podGroup("team-c", "eval", "reserch", 1));
        fx.create(pod("team-c", "e1", "arbiter", 1, "eval"));
        LiveScheduler s = fx.manualScheduler();
        s.actuator().useClock(() -> 0L);
        await("in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasPodGroup("team-b/train")
                && s.cache().hasPodGroup("team-c/eval") && s.cache().hasQueue("research"));

        s.loop().runOnce();

        await("near miss said on the pod", () -> fx.events("team-a/lone").contains("LikelyMistake: Pod team-a/lone:"
                + " metadata.annotations[scheduling.volcano.sh/queue]: not an annotation Arbiter reads, ignored (did you mean"
                + " scheduling.volcano.sh/queue-name?)"));
        await("the stray pods told where their PodGroup is", () -> fx.events("team-a/p1").stream().anyMatch(e -> e.equals(
                "LikelyMistake: Pod team-a/p1: PodGroup team-a/train does not exist: a PodGroup train exists only in namespace"
                        + " team-b, and a PodGroup gathers the pods of its own namespace alone, so they stay pending")));
        await("the queue typo said on the PodGroup", () -> fx.events("team-c/eval").contains("LikelyMistake: PodGroup"
                + " team-c/eval: spec.queue: queue \"reserch\" does not exist (did you mean research?); its pods stay pending"));
        await("and in its condition", () -> fx.podGroup("team-c/eval").getStatus() != null
                && BindingTest.condition(fx.podGroup("team-c/eval"), "Unschedulable") != null);
        String condition = BindingTest.condition(fx.podGroup("team-c/eval"), "Unschedulable").message;
        assertTrue(condition.contains("queue \"reserch\" does not exist (did you mean research?)"), condition);
        assertEquals(1.0, s.metrics().notices("near-miss-key"));
        assertEquals(2.0, s.metrics().notices("podgroup-in-other-namespace"));
        assertEquals(1.0, s.metrics().notices("missing-queue"));

        s.loop().runOnce();
        assertEquals(1.0, s.metrics().notices("near-miss-key"), "said once, not every cycle");
        assertEquals(2.0, s.metrics().notices("podgroup-in-other-namespace"));
        assertEquals(1.0, s.metrics().notices("missing-queue"));
    }
}
