package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Objects Arbiter cannot read never hide what they use (defect 1 of issue 14): an 8-GPU node held by another
 * scheduler's pod is never offered to an 8-GPU pod of ours, whatever that pod carries.
 */
class UnreadableObjectsTest extends LiveClusterTest {
    @Test
    void aStraySimulationAnnotationIsIgnoredLiveAndThePodStillHoldsItsNode() {
        fx.create(node("node-1", 8));
        Pod theirs = running("theirs", "node-1");
        theirs.getMetadata().getAnnotations().put(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION, "tomorrow");
        client.pods().inNamespace("other").resource(theirs).create();
        fx.create(pod("team", "ours", "arbiter", 8, null));
        LiveScheduler s = fx.manualScheduler();
        await("both pods in cache", () -> s.cache().holdsPod("team/ours") && s.cache().holdsPod("other/theirs"));

        SchedulingLoop.Outcome o = s.loop().runOnce();

        assertEquals(0, o.result().bindings().size(), "node-1's 8 GPUs are taken by other/theirs");
        PodSpec read = s.cache().snapshot().pods().stream().filter(p -> p.key().equals("other/theirs")).findFirst().orElseThrow();
        assertEquals("node-1", read.nodeName(), "the annotation is ignored live, the pod is read");
        assertEquals(0, fx.bindCalls("team/ours"));
    }

    @Test
    void aRunningPodThatCannotBeReadMakesItsNodeUnknownAndIsReported() {
        fx.create(node("node-1", 8));
        fx.create(node("node-2", 8));
        Pod theirs = running("theirs", "node-1");
        theirs.getSpec().getContainers().get(0).getResources().getRequests().put("cpu", new Quantity("lots"));
        client.pods().inNamespace("other").resource(theirs).create();
        fx.create(pod("team", "a", "arbiter", 8, null));
        fx.create(pod("team", "b", "arbiter", 8, null));
        LiveScheduler s = fx.manualScheduler();
        await("pods in cache", () -> s.cache().holdsPod("team/a") && s.cache().holdsPod("team/b"));

        SchedulingLoop.Outcome o = s.loop().runOnce();

        assertEquals(1, o.result().bindings().size(), "only node-2 is offered");
        assertEquals("node-2", o.result().bindings().get(0).node());
        assertTrue(s.cache().snapshot().nodes().stream().filter(n -> n.name().equals("node-1")).allMatch(n -> n.unschedulable()),
                "node-1 is shown cordoned while a pod on it cannot be read");
        await("one pod bound", () -> fx.nodeOf("team/a") != null || fx.nodeOf("team/b") != null);
        assertTrue(!"node-1".equals(fx.nodeOf("team/a")) && !"node-1".equals(fx.nodeOf("team/b")));
        assertEquals(1.0, s.metrics().unreadable("Pod")); // METRIC
        await("reported on the pod", () -> fx.events("other/theirs").stream().anyMatch(e -> e.startsWith("Unreadable: ")
                && e.contains("node-1") && e.contains("lots")));
    }

    /** A pod of the default scheduler, running on {@code node} with all 8 GPUs. */
    private static Pod running(String name, String node) {
        Map<String, Quantity> requests = new java.util.HashMap<>(Map.of("cpu", new Quantity("1"), "mars-tech.com/gpu", new Quantity("8")));
        return new PodBuilder().withNewMetadata().withNamespace("other").withName(name).withAnnotations(new java.util.HashMap<>()).endMetadata()
                .withNewSpec().withSchedulerName("default-scheduler").withNodeName(node)
                .addNewContainer().withName("main").withImage("registry.example.com/app:1")
                .withNewResources().withRequests(requests).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
    }
}
