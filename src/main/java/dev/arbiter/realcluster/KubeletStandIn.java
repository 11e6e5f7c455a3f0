package dev.arbiter.realcluster;

import dev.arbiter.json.JsonWriter;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's part, which no process plays on the test cluster: a pod bound to a node starts (phase Running,
 * Ready), and a pod being deleted (an eviction sets its deletion timestamp) is removed once its termination takes
 * {@link #terminateAfter} (zero by default; a test may make it long, or hold it with {@link #holdTermination}, to test
 * victims that are still Terminating). Acts with the admin identity.
 */
final class KubeletStandIn implements AutoCloseable {
    private final KubernetesClient client;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kubelet-stand-in");
        t.setDaemon(true);
        return t;
    });
    private final Set<String> starting = ConcurrentHashMap.newKeySet();
    private final Set<String> terminating = ConcurrentHashMap.newKeySet();
    private volatile Duration terminateAfter = Duration.ZERO;
    private volatile boolean held;
    private volatile Duration startedAgo = Duration.ZERO;
    private final SharedIndexInformer<Pod> informer;

    KubeletStandIn(KubernetesClient client) {
        this.client = client;
        this.informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                react(pod);
            }

            @Override
            public void onUpdate(Pod old, Pod pod) {
                react(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
                String key = key(pod);
                starting.remove(key);
                terminating.remove(key);
            }
        }, 0);
    }

    /** How long a deleted pod stays Terminating before the stand-in removes it. */
    void terminateAfter(Duration d) {
        terminateAfter = d;
    }

    /** While held, deleted pods stay Terminating; releasing removes those waiting. */
    void holdTermination(boolean hold) {
        held = hold;
        if (!hold) informer.getStore().list().forEach(this::react);
    }

    /**
     * The {@code status.startTime} the stand-in reports for pods it starts from now on, this long before now: a test
     * of reclaim stands for pods that have run past the policy's minimum runtime without waiting it out.
     */
    void startedAgo(Duration d) {
        startedAgo = d;
    }

    /** Back to the defaults between tests. */
    void reset() {
        terminateAfter = Duration.ZERO;
        startedAgo = Duration.ZERO;
        holdTermination(false);
    }

    private void react(Pod pod) {
        String key = key(pod);
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            if (held || !terminating.add(key)) return;
            long delay = terminateAfter.toMillis();
            worker.schedule(() -> remove(pod), delay, TimeUnit.MILLISECONDS);
            return;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (pod.getSpec().getNodeName() != null && (phase == null || phase.equals("Pending")) && starting.add(key)) {
            worker.execute(() -> start(pod));
        }
    }

    private void start(Pod pod) {
        String now = Instant.now().minus(startedAgo).toString().replaceAll("\\.\\d+Z$", "Z");
        JsonWriter w = JsonWriter.compact().startObject().name("status").startObject()
                .field("phase", "Running").field("startTime", now).name("conditions").startArray();
        for (String type : new String[] {"Initialized", "Ready", "ContainersReady"}) {
            w.startObject().field("type", type).field("status", "True").field("lastTransitionTime", now).endObject();
        }
        String patch = w.endArray().endObject().endObject().toString();
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
        } catch (KubernetesClientException e) {
            starting.remove(key(pod)); // gone, or the server is down: the next event tries again
        }
    }

    private void remove(Pod pod) {
        if (held) {
            terminating.remove(key(pod));
            return;
        }
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .withGracePeriod(0L).delete();
        } catch (KubernetesClientException e) {
            terminating.remove(key(pod));
        }
    }

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    @Override
    public void close() {
        informer.stop();
        worker.shutdownNow();
    }
}
