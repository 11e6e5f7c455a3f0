package dev.arbiter.live;

import dev.arbiter.manifest.ManifestException;
import dev.arbiter.manifest.ObjectTranslator;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read side of live mode: informers on Nodes, Pods, PriorityClasses, Queues, PodGroups and Namespaces (whose
 * labels pod affinity terms select on), each object translated
 * into a model record once per informer event (never per cycle), and {@link #snapshot()} freezing the records into
 * the {@link ClusterSnapshot} a cycle schedules, overlaid with the {@link AssumeCache}.
 *
 * <p>Creation order is the object's creationTimestamp in epoch milliseconds shifted left 20 bits, tie-broken by the
 * order in which this cache first saw the object. {@code onChange} runs (on an informer thread) whenever a
 * translated record appears, changes or disappears; status-only changes that translate to the same record do not
 * count. This class never writes to the API.
 */
public final class ClusterCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterCache.class);
    private static final int TIE_BITS = 20;

    private final KubernetesClient client;
    private final KubernetesSerialization json;
    private final ObjectTranslator translator = new ObjectTranslator("api");
    private final AssumeCache assumed;
    private final Runnable onChange;
    private final AtomicLong seen = new AtomicLong();
    private final Map<String, Long> tieBreaks = new ConcurrentHashMap<>();

    private final Map<String, NodeSpec> nodes = new ConcurrentHashMap<>();
    private final Map<String, PodSpec> pods = new ConcurrentHashMap<>();
    private final Map<String, PodIdentity> podIdentities = new ConcurrentHashMap<>();
    private final Map<String, PriorityClassSpec> priorityClasses = new ConcurrentHashMap<>();
    private final Map<String, QueueSpec> queues = new ConcurrentHashMap<>();
    private final Map<String, VolcanoQueue.Status> queueStatuses = new ConcurrentHashMap<>();
    private final Map<String, PodGroupSpec> podGroups = new ConcurrentHashMap<>();
    private final Map<String, VolcanoPodGroup.Status> podGroupStatuses = new ConcurrentHashMap<>();
    private final Map<String, Map<String, String>> namespaces = new ConcurrentHashMap<>();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    /** Per record map, the keys its handler has seen (translated, or rejected with a warning). */
    private final Map<Map<String, ?>, java.util.Set<String>> handled = new java.util.IdentityHashMap<>();

    /** What events and latency metrics need about a pod beyond its record. */
    public record PodIdentity(String uid, Instant created) {}

    public ClusterCache(KubernetesClient client, AssumeCache assumed, Runnable onChange) {
        this.client = client;
        this.json = client.getKubernetesSerialization();
        this.assumed = assumed;
        this.onChange = onChange;
    }

    /** Starts the six informers (list, then watch); returns at once. See {@link #hasSynced()}. */
    public synchronized void start() {
        if (!informers.isEmpty()) return;
        informers.add(client.nodes().inform(handler(this::putNode, this::removeNode), 0));
        informers.add(client.pods().inAnyNamespace().inform(handler(this::putPod, this::removePod), 0));
        informers.add(client.scheduling().v1().priorityClasses()
                .inform(handler(this::putPriorityClass, this::removePriorityClass), 0));
        informers.add(client.resources(VolcanoQueue.class).inform(handler(this::putQueue, this::removeQueue), 0));
        informers.add(client.resources(VolcanoPodGroup.class).inAnyNamespace()
                .inform(handler(this::putPodGroup, this::removePodGroup), 0));
        informers.add(client.namespaces().inform(handler(this::putNamespace, this::removeNamespace), 0));
    }

    /**
     * True once every informer has completed its first list and its handler has translated every listed object
     * (fabric8 reports an informer synced when its store is filled, before the handler has seen every add).
     */
    public boolean hasSynced() {
        if (informers.isEmpty() || !informers.stream().allMatch(SharedIndexInformer::hasSynced)) return false;
        List<Map<String, ?>> records = List.of(nodes, pods, priorityClasses, queues, podGroups, namespaces);
        for (int i = 0; i < informers.size(); i++) {
            if (handledIn(records.get(i)).size() < informers.get(i).getStore().list().size()) return false;
        }
        return true;
    }

    /**
     * False once an informer has stopped for good (fabric8 stops one whose first list fails, e.g. the API server was
     * unreachable or refused the ServiceAccount): the process cannot recover by itself and should be restarted.
     */
    public boolean isHealthy() {
        return !informers.isEmpty() && informers.stream().allMatch(SharedIndexInformer::isRunning);
    }

    /** True while every informer's watch is open (false during a disconnect, until it re-lists and re-watches). */
    public boolean isWatching() {
        return !informers.isEmpty() && informers.stream().allMatch(SharedIndexInformer::isWatching);
    }

    /**
     * The resource version each informer last saw, in the order nodes, pods, priority classes, queues, PodGroups,
     * namespaces ("" before its first list); empty once closed.
     */
    public synchronized List<String> lastResourceVersions() {
        List<String> out = new ArrayList<>();
        for (SharedIndexInformer<?> i : informers) out.add(i.lastSyncResourceVersion() == null ? "" : i.lastSyncResourceVersion());
        return out;
    }

    @Override
    public synchronized void close() {
        informers.forEach(SharedIndexInformer::stop);
        informers.clear();
    }

    // ---- the snapshot ---------------------------------------------------------------------------------------

    /**
     * The cluster as the next cycle must see it: informer records, plus pods a binding was issued for shown on their
     * assumed node, plus pods an eviction was issued for shown terminating. Sorted (nodes and classes by name, pods
     * and PodGroups by creation order) so equal caches give equal snapshots. The {@code default} Queue is included
     * even before it exists as an object, as Volcano does.
     */
    public ClusterSnapshot snapshot() {
        return snapshot(Instant.now().getEpochSecond(), Map.of());
    }

    /**
     * The snapshot at {@code now} (epoch seconds, against which pods' {@code status.startTime} is measured), carrying
     * the {@code nominations} the previous cycle made (room held for preemptors whose victims are leaving).
     */
    public ClusterSnapshot snapshot(long now, Map<String, String> nominations) {
        List<NodeSpec> n = new ArrayList<>(nodes.values());
        n.sort(Comparator.comparing(NodeSpec::name));
        List<PodSpec> p = new ArrayList<>(pods.size());
        for (PodSpec pod : pods.values()) p.add(overlay(pod));
        p.sort(Comparator.comparingLong(PodSpec::creationOrder).thenComparing(PodSpec::key));
        List<PodGroupSpec> g = new ArrayList<>(podGroups.values());
        g.sort(Comparator.comparingLong(PodGroupSpec::creationOrder).thenComparing(PodGroupSpec::key));
        List<QueueSpec> q = new ArrayList<>(queues.values());
        if (!queues.containsKey(QueueSpec.DEFAULT)) q.add(QueueSpec.defaultQueue());
        q.sort(Comparator.comparing(QueueSpec::name));
        List<PriorityClassSpec> pc = new ArrayList<>(priorityClasses.values());
        pc.sort(Comparator.comparing(PriorityClassSpec::name));
        return new ClusterSnapshot(n, p, g, q, pc, now, nominations, Map.copyOf(namespaces));
    }

    private PodSpec overlay(PodSpec pod) {
        if (pod.terminating()) return pod;
        if (assumed.isEvicting(pod.key())) return pod.withTerminating();
        if (!pod.isBound()) {
            String node = assumed.assumedNode(pod.key());
            if (node != null) return pod.withNode(node, pod.phase());
        }
        return pod;
    }


    /** Whether the cache still holds the pod ({@code ns/name}): until its deletion is seen, it holds its node. */
    public boolean holdsPod(String key) {
        return pods.containsKey(key);
    }

    /** The pod's uid and creation time, or null when the cache does not hold it. */
    public PodIdentity podIdentity(String podKey) {
        return podIdentities.get(podKey);
    }

    /** The status the PodGroup object carries now, or null when there is no such object (e.g. a gang of one). */
    public VolcanoPodGroup.Status podGroupStatus(String key) {
        return podGroupStatuses.get(key);
    }

    public boolean hasPodGroup(String key) {
        return podGroups.containsKey(key);
    }

    /** The status the Queue object carries now, or null when there is no such object. */
    public VolcanoQueue.Status queueStatus(String name) {
        return queueStatuses.get(name);
    }

    public boolean hasQueue(String name) {
        return queues.containsKey(name);
    }

    // ---- informer events ------------------------------------------------------------------------------------

    private <T extends HasMetadata> ResourceEventHandler<T> handler(java.util.function.Consumer<T> put,
                                                                      java.util.function.Consumer<T> remove) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                put.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                put.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                remove.accept(obj);
            }
        };
    }

    private void putNode(Node node) {
        store(nodes, node.getMetadata().getName(), node, translator::node);
    }

    private void removeNode(Node node) {
        forget(nodes, node.getMetadata().getName(), node);
    }

    private void putPod(Pod pod) {
        String key = key(pod);
        podIdentities.put(key, new PodIdentity(pod.getMetadata().getUid(), created(pod)));
        PodSpec spec = store(pods, key, pod, m -> translator.pod(m, creationOrder(pod)));
        if (spec == null) return;
        if (spec.terminating()) assumed.podGone(key);
        else if (spec.isBound()) assumed.confirmBound(key);
    }

    private void removePod(Pod pod) {
        String key = key(pod);
        podIdentities.remove(key);
        assumed.podGone(key);
        forget(pods, key, pod);
    }

    private void putPriorityClass(PriorityClass pc) {
        store(priorityClasses, pc.getMetadata().getName(), pc, translator::priorityClass);
    }

    private void removePriorityClass(PriorityClass pc) {
        forget(priorityClasses, pc.getMetadata().getName(), pc);
    }

    private void putQueue(VolcanoQueue q) {
        String name = q.getMetadata().getName();
        if (q.getStatus() != null) queueStatuses.put(name, q.getStatus());
        else queueStatuses.remove(name);
        store(queues, name, q, translator::queue);
    }

    private void removeQueue(VolcanoQueue q) {
        queueStatuses.remove(q.getMetadata().getName());
        forget(queues, q.getMetadata().getName(), q);
    }

    private void putPodGroup(VolcanoPodGroup g) {
        String key = key(g);
        if (g.getStatus() != null) podGroupStatuses.put(key, g.getStatus());
        else podGroupStatuses.remove(key);
        store(podGroups, key, g, m -> translator.podGroup(m, creationOrder(g)));
    }

    private void removePodGroup(VolcanoPodGroup g) {
        podGroupStatuses.remove(key(g));
        forget(podGroups, key(g), g);
    }

    private void putNamespace(io.fabric8.kubernetes.api.model.Namespace ns) {
        store(namespaces, ns.getMetadata().getName(), ns, translator::namespaceLabels);
    }

    private void removeNamespace(io.fabric8.kubernetes.api.model.Namespace ns) {
        forget(namespaces, ns.getMetadata().getName(), ns);
    }

    /**
     * Translates {@code obj} and stores the record; signals a change when the record differs from the one held.
     * An object that does not translate is logged and keeps its previous record (an API server validates what it
     * stores, so this means a field Arbiter reads more strictly than Kubernetes).
     */
    @SuppressWarnings("unchecked")
    private <R> R store(Map<String, R> records, String key, HasMetadata obj, Function<Map<String, Object>, R> translate) {
        handledIn(records).add(key);
        R record;
        try {
            Map<String, Object> object = json.convertValue(obj, Map.class);
            record = translate.apply(object);
        } catch (ManifestException e) {
            LOG.warn("ignoring {} {}: {}", obj.getKind(), key, e.getMessage());
            return null;
        }
        R previous = records.put(key, record);
        if (!Objects.equals(previous, record)) onChange.run();
        return record;
    }

    private <R> void forget(Map<String, R> records, String key, HasMetadata obj) {
        handledIn(records).remove(key);
        tieBreaks.remove(uidOrKey(obj));
        if (records.remove(key) != null) onChange.run();
    }

    private synchronized java.util.Set<String> handledIn(Map<String, ?> records) {
        return handled.computeIfAbsent(records, k -> ConcurrentHashMap.newKeySet());
    }

    private long creationOrder(HasMetadata obj) {
        long tie = tieBreaks.computeIfAbsent(uidOrKey(obj), k -> seen.getAndIncrement());
        Instant created = created(obj);
        long millis = created == null ? 0 : created.toEpochMilli();
        return (millis << TIE_BITS) | (tie & ((1L << TIE_BITS) - 1));
    }

    private static Instant created(HasMetadata obj) {
        String ts = obj.getMetadata().getCreationTimestamp();
        if (ts == null) return null;
        try {
            return Instant.parse(ts);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String uidOrKey(HasMetadata obj) {
        String uid = obj.getMetadata().getUid();
        return uid != null ? uid : obj.getKind() + "/" + key(obj);
    }

    static String key(HasMetadata obj) {
        String ns = obj.getMetadata().getNamespace();
        return ns == null ? obj.getMetadata().getName() : ns + "/" + obj.getMetadata().getName();
    }
}
