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

    /** A pod without a PodGroup; its queue-name annotation names {@code queue}. */
    private static PodSpec lonePodInQueue(String ns, String name, String queue) {
        PodSpec p = pod(ns, name, "arbiter", 1, null);
        return new PodSpec(p.namespace(), p.name(), p.schedulerName(), null, "Pending", null, null, null, p.requests(),
                Map.of(), List.of(), Map.of(), Map.of(PodSpec.QUEUE_ANNOTATION, queue), 0, 0, false);
    }

    @Test
    void aLonePodNamingAMissingQueueIsToldOnceWithTheQueueMeant() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        fx.create(lonePodInQueue("team-a", "q1", "reserch"));
        LiveScheduler s = fx.manualScheduler();
        await("in cache", () -> s.cache().snapshot().pods().size() == 1 && s.cache().hasQueue("research"));

        s.loop().runOnce();

        await("the queue typo said on the pod", () -> fx.events("team-a/q1").contains("LikelyMistake: Pod team-a/q1:"
                + " metadata.annotations[scheduling.volcano.sh/queue-name]: queue \"reserch\" does not exist (did you mean"
                + " research?); it stays pending"));
        assertEquals(1.0, s.metrics().notices("missing-queue"));
        s.loop().runOnce();
        assertEquals(1.0, s.metrics().notices("missing-queue"), "said once, not every cycle");
    }

    @Test
    void aPodNamingAPodGroupThatExistsNowhereIsToldOnlyAfterTheGraceAndOnce() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(node("node-1", 8));
        fx.create(podGroup("team-a", "train", "research", 1));
        fx.create(pod("team-a", "p1", "arbiter", 1, "trian"));
        LiveScheduler s = fx.manualScheduler();
        long[] nanos = {0};
        s.actuator().useClock(() -> nanos[0]);
        await("in cache", () -> s.cache().snapshot().pods().size() == 1 && s.cache().hasPodGroup("team-a/train"));

        s.loop().runOnce();
        nanos[0] = Actuator.MISSING_GROUP_GRACE.toNanos() - 1;
        s.loop().runOnce();
        assertEquals(0.0, s.metrics().notices("missing-podgroup"), "within the grace its PodGroup may still come");

        nanos[0] = Actuator.MISSING_GROUP_GRACE.toNanos();
        s.loop().runOnce();
        await("said on the pod", () -> fx.events("team-a/p1").contains("LikelyMistake: Pod team-a/p1: PodGroup \"trian\""
                + " does not exist (did you mean train?); it stays pending"));
        assertEquals(1.0, s.metrics().notices("missing-podgroup"));
        nanos[0] += Actuator.MISSING_GROUP_GRACE.toNanos();
        s.loop().runOnce();
        assertEquals(1.0, s.metrics().notices("missing-podgroup"), "said once, not every cycle");
    }

    @Test
    void aPodWhosePodGroupComesWithinTheGraceIsNeverTold() {
        fx.create(new QueueSpec("research", 1, 0, null, Resources.NONE, true, "Open", null, 0));
        fx.create(pod("team-a", "p1", "arbiter", 1, "late"));
        LiveScheduler s = fx.manualScheduler();
        long[] nanos = {0};
        s.actuator().useClock(() -> nanos[0]);
        await("in cache", () -> s.cache().snapshot().pods().size() == 1);
        s.loop().runOnce();

        fx.create(podGroup("team-a", "late", "research", 1));
        await("its PodGroup in cache", () -> s.cache().hasPodGroup("team-a/late"));
        nanos[0] = 2 * Actuator.MISSING_GROUP_GRACE.toNanos();
        s.loop().runOnce();
        assertEquals(0.0, s.metrics().notices("missing-podgroup"));
    }
}
