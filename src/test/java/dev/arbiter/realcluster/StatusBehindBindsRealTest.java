package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.VolcanoPodGroup;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, item 8: a PodGroup's status says what the API server has accepted, never ahead of it. A gang of four whose
 * last member's binding is held in an admission webhook, and then refused, is never shown Running nor with four members
 * running, through many cycles of the hold and of the retries after the refusal. Before, the status was written from
 * the cycle's decisions while the bindings were in flight (Running, "4/4 tasks running", GangScheduled), and flapped
 * Running and Inqueue with every retry. Every status the PodGroup takes is seen through a watch.
 */
class StatusBehindBindsRealTest extends RealClusterTest {
    @Test
    void aGangWhoseLastBindingIsHeldThenRefusedIsNeverShownRunning() throws Exception {
        String ns = "status-behind";
        cluster.namespace(ns);
        for (int i = 0; i < 4; i++) node(ns + "-" + i, 16, 8);
        apply(queue("q-" + ns, 1));
        BindingWebhook hook = BindingWebhook.in(cluster, ns, Duration.ofMillis(50));
        closeAfter(hook);
        hook.refuse("g-3");
        hook.hold("g-3");
        closeAfter(() -> hook.release("g-3"));
        List<String> statuses = new CopyOnWriteArrayList<>();
        Watch watch = admin.resources(VolcanoPodGroup.class).inNamespace(ns).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, VolcanoPodGroup pg) {
                if (pg.getStatus() != null) statuses.add(pg.getStatus().phase + " running=" + pg.getStatus().running);
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
        closeAfter(watch::close);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runningScheduler(cluster.arbiterClient(AGENT), config("arbiter-test").withPeriod(Duration.ofMillis(300)), registry);
        applyUntilBound(ns, HalfBoundGangRealTest.gang(ns), 3);

        long held = cycles(registry);
        await("six cycles while the last member's binding is held", () -> cycles(registry) >= held + 6);
        hook.release("g-3");
        long refused = cycles(registry);
        await("six cycles after the refusal", () -> cycles(registry) >= refused + 6, Duration.ofSeconds(60));

        assertFalse(statuses.isEmpty(), "the PodGroup's status was never written");
        assertTrue(statuses.stream().noneMatch(s -> s.startsWith("Running") || s.endsWith("running=4")),
                "a status ahead of what the API server accepted: " + statuses);
    }

    /** Cycles run so far: the count of the cycle timer's busiest phase. */
    private static long cycles(SimpleMeterRegistry registry) {
        return registry.find("arbiter.cycle.duration").timers().stream().mapToLong(Timer::count).max().orElse(0);
    }
}
