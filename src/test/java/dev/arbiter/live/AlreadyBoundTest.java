package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.decision.Binding;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A 409 "already assigned" on bind means the pod is bound (defect 3 of issue 14): typically the API server applied an
 * earlier attempt whose answer was lost. It is a success once the pod is seen on the intended node, not a failure to
 * retry, and it never rolls a gang back.
 */
class AlreadyBoundTest extends LiveClusterTest {
    @Test
    void aBindWhoseAnswerWasLostIsConfirmedByThe409AndCountsAsBound() {
        fx.create(node("node-1", 8));
        fx.create(pod("team", "p", "arbiter", 8, null));
        fx.applyBindingThenFail("team/p");
        LiveScheduler s = fx.manualScheduler();
        await("pod in cache", () -> s.cache().holdsPod("team/p"));

        SchedulingLoop.Outcome o = s.loop().runOnce();

        assertEquals(1, o.report().bound());
        assertEquals(0, o.report().bindFailures());
        assertEquals(2, fx.bindCalls("team/p"), "the lost answer, then one 409; no further retries");
        assertEquals(0, fx.evictCalls("team/p"));
        await("bound", () -> "node-1".equals(fx.nodeOf("team/p")));
    }

    @Test
    void aGangMemberAnswered409IsNotRolledBack() {
        for (int n = 1; n <= 4; n++) fx.create(node("node-" + n, 8));
        fx.create(podGroup("team", "train", "default", 4));
        for (int i = 0; i < 4; i++) fx.create(pod("team", "train-" + i, "volcano", 8, "train"));
        LiveScheduler s = fx.manualScheduler();
        await("gang in cache", () -> s.cache().snapshot().pods().size() == 4 && s.cache().hasPodGroup("team/train"));
        List<Binding> planned = s.loop().plan().bindings();
        fx.applyBindingThenFail(planned.get(1).pod());

        SchedulingLoop.Outcome o = s.loop().runOnce();

        assertEquals(4, o.report().bound());
        assertEquals(0, o.report().rolledBack());
        for (Binding b : planned) assertEquals(0, fx.evictCalls(b.pod()), b.pod() + " not evicted");
        await("whole gang bound", () -> planned.stream().allMatch(b -> b.node().equals(fx.nodeOf(b.pod()))));
    }
}
