package dev.arbiter.live;

import dev.arbiter.manifest.ManifestException;
import dev.arbiter.manifest.ManifestLoader;
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
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.spi.LoggingEventBuilder;
import org.slf4j.LoggerFactory;

/**
 * The read side of live mode: informers on Nodes, Pods, PriorityClasses, Queues, PodGroups and Namespaces (whose labels
 * pod affinity terms select on), each object translated
 * into a model record once per informer event (never per cycle) and kept in snapshot order as it changes
 * ({@link RecordIndex}), so that {@link #snapshot} costs in proportion to what changed since the last one: unchanged
 * kinds are handed over as they are, a changed kind costs one array copy, and only pods assumed by the
 * {@link AssumeCache} are rewritten. A pod whose update changes only its node, phase, start time or deletion is not
 * translated again: its record is derived from the previous one.
 *
 * <p>Creation order is the object's creationTimestamp in epoch milliseconds shifted left 20 bits, tie-broken by the
 * order in which this cache first saw the object. {@code onChange} runs (on an informer thread) whenever a
 * translated record appears, changes or disappears; status-only changes that translate to the same record do not
 * count. The simulator's {@value ManifestLoader#ARRIVAL_CYCLE_ANNOTATION} annotation means nothing live and is
 * ignored, whatever its value.
 *
 * <p><b>Objects that cannot be read never hide what they use.</b> An object that does not translate (a field Arbiter
 * reads more strictly than Kubernetes) keeps its last readable record. A running pod that was never readable makes
 * its node <em>unknown</em>: the snapshot shows that node cordoned, so nothing is placed on it, until the pod can be
 * read or is gone. Each such object is listed by {@link #unreadable()} (the actuator reports it as an event, the
 * metrics count it). This class never writes to the API.
 */
public final class ClusterCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterCache.class);
    private static final int TIE_BITS = 20;

    private final KubernetesClient client;
    private final KubernetesSerialization json;
    private final ObjectTranslator translator = new ObjectTranslator("api");
    private final PodTranslation podTranslation;
    private final AssumeCache assumed;
    private final Runnable onChange;
    private final AtomicLong seen = new AtomicLong();
    private final Map<String, Long> tieBreaks = new ConcurrentHashMap<>();

    private final RecordIndex<NodeSpec> nodes = new RecordIndex<>(Comparator.comparing(NodeSpec::name));
    private final RecordIndex<PodSpec> pods = new RecordIndex<>(
            Comparator.comparingLong(PodSpec::creationOrder).thenComparing(PodSpec::key));
    private final RecordIndex<PriorityClassSpec> priorityClasses = new RecordIndex<>(Comparator.comparing(PriorityClassSpec::name));
    private final RecordIndex<QueueSpec> queues = new RecordIndex<>(Comparator.comparing(QueueSpec::name));
    private final RecordIndex<PodGroupSpec> podGroups = new RecordIndex<>(
            Comparator.comparingLong(PodGroupSpec::creationOrder).thenComparing(PodGroupSpec::key));
    private final Map<String, PodIdentity> podIdentities = new ConcurrentHashMap<>();
    private final Map<String, VolcanoQueue.Status> queueStatuses = new ConcurrentHashMap<>();
    /**
     * The queues' decayed past usage: as their {@value dev.arbiter.model.QueueUsage#ANNOTATION} annotation says, or as
     * this process last wrote it when the informer has not shown that write yet (the later sample wins).
     */
    private final Map<String, dev.arbiter.model.QueueUsage> queueUsage = new ConcurrentHashMap<>();
    private final Map<String, dev.arbiter.model.QueueUsage> writtenUsage = new ConcurrentHashMap<>();
    /** The last unreadable usage annotation reported per queue (said once per value, not once per event). */
    private final Map<String, String> badUsage = new ConcurrentHashMap<>();
    private final Map<String, VolcanoPodGroup.Status> podGroupStatuses = new ConcurrentHashMap<>();
    /** The {@code arbiter.dev/estimated-start} a Volcano PodGroup shows, by key (absent: none). */
    private final Map<String, String> estimatedStarts = new ConcurrentHashMap<>();
    private final Map<String, Unreadable> unreadable = new ConcurrentHashMap<>();
    /** Nodes holding a running pod that could never be read, with those pods. */
    private final Map<String, Set<String>> unknownNodes = new ConcurrentHashMap<>();
    private final RecordIndex<NamespaceLabels> namespaces = new RecordIndex<>(Comparator.comparing(NamespaceLabels::name));
    /**
     * Volcano's HyperNodes (network domains). Their informer is optional: a cluster without the HyperNode CRD has
     * none, and the scheduler runs on (see {@link #startHyperNodes}).
     */
    private final RecordIndex<dev.arbiter.model.HyperNodeSpec> hyperNodes = new RecordIndex<>(
            Comparator.comparing(dev.arbiter.model.HyperNodeSpec::name));
    private SharedIndexInformer<VolcanoHyperNode> hyperNodeInformer;
    /** Set once the HyperNode list failed (no CRD, or no permission): the cluster is treated as having none. */
    private volatile String hyperNodesAbsent;
    private volatile Duration hyperNodeReprobe = Duration.ofSeconds(30);
    /**
     * The upstream Workload API's PodGroups ({@code scheduling.k8s.io/v1beta1}). Their informer is optional like the
     * HyperNodes': a cluster that does not serve them (the {@code GenericWorkload} gate is off) has none
     * ({@link #startWorkloadPodGroups}). Keyed {@code namespace/name} as Volcano's: where both kinds have one name,
     * the Volcano PodGroup is the gang and the other is left out, said once ({@link #clashes}).
     */
    private final RecordIndex<PodGroupSpec> workloadPodGroups = new RecordIndex<>(
            Comparator.comparingLong(PodGroupSpec::creationOrder).thenComparing(PodGroupSpec::key));
    private final Map<String, List<Map<String, Object>>> workloadConditions = new ConcurrentHashMap<>();
    private SharedIndexInformer<WorkloadPodGroup> workloadPodGroupInformer;
    /** Set once their list failed (not served, or no permission): the cluster is treated as having none. */
    private volatile String workloadPodGroupsAbsent;
    /** Keys of upstream PodGroups left out for a Volcano PodGroup of the same name, said once each. */
    private final Set<String> clashes = ConcurrentHashMap.newKeySet();
    private List<PodGroupSpec> lastVolcanoGroups, lastWorkloadGroups, lastMergedGroups;
    private volatile StartupTimeline startup;
    /** Each informer's name (nodes, pods, ...), for the start-up timeline. */
    private final Map<SharedIndexInformer<?>, String> informerNames = new ConcurrentHashMap<>();
    /**
     * Once every informer has synced, the cache stays synced until closed: as with kube-scheduler's wait for cache
     * sync, only the first sync gates scheduling, and an informer that re-lists later (its watch expired) serves the
     * records it held meanwhile rather than skipping cycles.
     */
    private boolean synced;
    /** Set by {@link #close}: the HyperNode probe then starts no informer, and informers' failures are not retried. */
    private volatile boolean closed;
    /** Says once per informer per outage what failed, and when it recovered. */
    private final Outages outages;
    private List<NamespaceLabels> lastNamespaces;
    private Map<String, Map<String, String>> namespaceMap = Map.of();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    /**
     * The informers as the probes read them, without this cache's lock: {@link #start} holds no lock while it waits
     * for the first lists, but {@link #close} and the handlers take it, and a probe must never wait on either.
     */
    private volatile List<SharedIndexInformer<?>> running = List.of();
    private final List<RecordIndex<?>> informed = List.of(nodes, pods, priorityClasses, queues, podGroups, namespaces);
    /** Per record index, the keys its handler has seen (translated, or found unreadable). */
    private final Map<RecordIndex<?>, Set<String>> handled = new ConcurrentHashMap<>();

    /** What events and latency metrics need about a pod beyond its record. */
    public record PodIdentity(String uid, Instant created) {}

    /**
     * An object the cache cannot read: {@code id} is "Kind ns/name", {@code message} one line saying what is wrong
     * and what the scheduler does about it.
     */
    public record Unreadable(String id, String kind, EventRecorder.Involved involved, String message) {}

    public ClusterCache(KubernetesClient client, AssumeCache assumed, Runnable onChange) {
        this.client = client;
        this.json = client.getKubernetesSerialization();
        this.podTranslation = new PodTranslation(translator, json);
        this.assumed = assumed;
        this.onChange = onChange;
        this.outages = new Outages(client.getMasterUrl().toString(), () -> closed);
        for (RecordIndex<?> r : informed) handled.put(r, ConcurrentHashMap.newKeySet());
        handled.put(hyperNodes, ConcurrentHashMap.newKeySet());
        handled.put(workloadPodGroups, ConcurrentHashMap.newKeySet());
    }

    /**
     * Starts the six informers (list, then watch) and returns once each has listed and started watching. A list or
     * watch that fails (the API server restarting, 429, 5xx, unreachable) is retried, the first list included, with
     * fabric8's capped exponential backoff ({@link dev.arbiter.runtime.KubeClients#INFORMER_RETRY}: 50 ms doubling to
     * 1.6 s), and said once per informer per outage ({@link Outages}). Only a first list the server refuses for good
     * (401, 403, 404) stops an informer, and makes this throw. The handlers may still be translating what was listed:
     * see {@link #hasSynced()}. {@link #close()} from another thread ends the wait.
     */
    public void start() {
        List<SharedIndexInformer<?>> listed = new ArrayList<>();
        SharedIndexInformer<?> podGroupInformer;
        synchronized (this) {
            if (!informers.isEmpty() || closed) return;
            listed.add(informer("nodes", client.nodes(), new ResourceEventHandler<>() {
                @Override
                public void onAdd(Node obj) {
                    putNode(obj);
                }

                @Override
                public void onUpdate(Node oldObj, Node newObj) {
                    // Kubelets update their Node's status often (conditions, images); most updates change nothing read.
                    if (!sameNodeInputs(oldObj, newObj) || !nodes.contains(newObj.getMetadata().getName())) putNode(newObj);
                }

                @Override
                public void onDelete(Node obj, boolean deletedFinalStateUnknown) {
                    removeNode(obj);
                }
            }));
            listed.add(informer("pods", client.pods().inAnyNamespace(), new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod obj) {
                    putPod(null, obj);
                }

                @Override
                public void onUpdate(Pod oldObj, Pod newObj) {
                    putPod(oldObj, newObj);
                }

                @Override
                public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
                    removePod(obj);
                }
            }));
            listed.add(informer("priorityclasses", client.scheduling().v1().priorityClasses(),
                    handler(this::putPriorityClass, this::removePriorityClass)));
            listed.add(informer("queues", client.resources(VolcanoQueue.class), handler(this::putQueue, this::removeQueue)));
            podGroupInformer = informer("podgroups", client.resources(VolcanoPodGroup.class).inAnyNamespace(),
                    handler(this::putPodGroup, this::removePodGroup));
            listed.add(podGroupInformer);
            listed.add(informer("namespaces", client.namespaces(), handler(this::putNamespace, this::removeNamespace)));
        }
        // Side by side (each first list takes a round trip and, for pods, seconds of decoding at scale; the cycle waits
        // for every one anyway, see hasSynced), but PodGroups after pods: a pod and a PodGroup created in the same
        // second are ordered by which was seen first, and pods have always been seen first. Outside the lock, so that
        // close() can end a wait on a server that keeps refusing.
        List<SharedIndexInformer<?>> first = new ArrayList<>(listed);
        first.remove(podGroupInformer);
        if (!awaitListed(first) || !awaitListed(List.of(podGroupInformer))) return;
        synchronized (this) {
            if (!closed) {
                startHyperNodes();
                startWorkloadPodGroups();
            }
        }
    }

    /** An informer that retries every transient failure, reporting through {@link #outages}; not started. */
    private <T extends HasMetadata> SharedIndexInformer<T> informer(
            String name, io.fabric8.kubernetes.client.dsl.Informable<T> source, ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> i = source.runnableInformer(0);
        i.exceptionHandler(outages.handler(name, i));
        i.addEventHandler(handler);
        informerNames.put(i, name);
        informers.add(i);
        running = List.copyOf(informers);
        return i;
    }

    /**
     * Starts {@code informers} together and waits for their first lists; throws when one was refused for good, false
     * when closed or interrupted meanwhile.
     */
    private boolean awaitListed(List<SharedIndexInformer<?>> informers) {
        List<java.util.concurrent.CompletableFuture<Void>> lists = new ArrayList<>();
        for (SharedIndexInformer<?> i : informers) {
            if (closed) return false;
            lists.add(i.start().toCompletableFuture().thenRun(() -> {
                StartupTimeline t = startup;
                if (t != null) t.mark("listed " + informerNames.get(i) + " (" + i.getStore().list().size() + ")");
            }));
        }
        for (java.util.concurrent.CompletableFuture<Void> list : lists) {
            if (closed || !awaitListed(list)) return false;
        }
        return true;
    }

    /** Waits for one first list: throws when it was refused for good, false when closed or interrupted meanwhile. */
    private boolean awaitListed(java.util.concurrent.CompletableFuture<Void> listed) {
        try {
            listed.get();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            if (closed) return false;
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        }
    }

    /**
     * The HyperNode informer, kept apart from the six above: when its first list fails (the CRD is not installed, or
     * the ServiceAccount may not list HyperNodes) the cluster has no HyperNodes, the scheduler says so once in its log,
     * and runs on with the policy's label levels as its only network domains; it asks again every
     * {@link #reprobeHyperNodesEvery} (one small list), so a CRD installed later is picked up without a restart. It
     * neither blocks the first sync nor makes the cache unhealthy.
     */
    private void startHyperNodes() {
        // A probe first, off the caller's thread: an informer whose list fails makes fabric8 log a stack trace, and
        // most clusters have no HyperNode CRD.
        Thread probe = new Thread(() -> {
            if (!awaitHyperNodesListable()) return;
            synchronized (this) {
                if (closed) return;
                hyperNodeInformer = client.resources(VolcanoHyperNode.class).runnableInformer(0);
                hyperNodeInformer.exceptionHandler(outages.handler("hypernodes", hyperNodeInformer));
                hyperNodeInformer.addEventHandler(handler(this::putHyperNode, this::removeHyperNode));
                hyperNodeInformer.start().whenComplete((ok, failure) -> {
                    if (failure != null) {
                        hyperNodesAbsent("cannot list HyperNodes (" + VolcanoHyperNode.GROUP + "/v1alpha1): "
                                + whyNot(failure, "the HyperNode CRD is not installed"));
                    } else {
                        if (hyperNodesAbsent != null) {
                            LOG.info("HyperNodes ({}/v1alpha1) can be listed now: network domains come from them from now on",
                                    VolcanoHyperNode.GROUP);
                        }
                        hyperNodesAbsent = null;
                        // The cache may be synced only now, and a cluster without HyperNodes sends no event that
                        // would ask for the cycle it now allows.
                        onChange.run();
                    }
                });
            }
        }, "arbiter-hypernodes");
        probe.setDaemon(true);
        probe.start();
    }

    /**
     * Lists one HyperNode until that works (true) or the cache closes (false); while it fails, the cluster has no
     * HyperNodes (said once per cause) and the list is tried again every {@link #reprobeHyperNodesEvery}.
     */
    private boolean awaitHyperNodesListable() {
        return awaitListable(() -> client.resources(VolcanoHyperNode.class).list(one()),
                e -> "cannot list HyperNodes (" + VolcanoHyperNode.GROUP + "/v1alpha1): " + whyNot(e, "the HyperNode CRD is not installed"),
                this::hyperNodesAbsent);
    }

    private static io.fabric8.kubernetes.api.model.ListOptions one() {
        return new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build();
    }

    /**
     * Runs {@code listOne} until it works (true) or the cache closes (false); while it fails, {@code absent} is told
     * why, once per cause, and the list is tried again every {@link #reprobeHyperNodesEvery}.
     */
    private boolean awaitListable(Runnable listOne, Function<RuntimeException, String> why,
                                  Consumer<String> absent) {
        String said = null;
        while (true) {
            try {
                listOne.run();
                return true;
            } catch (RuntimeException e) {
                String now = why.apply(e);
                if (!now.equals(said)) absent.accept(now);
                said = now;
            }
            synchronized (this) {
                if (closed) return false;
                try {
                    wait(hyperNodeReprobe.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                if (closed) return false;
            }
        }
    }

    /**
     * The upstream Workload API's PodGroup informer ({@code scheduling.k8s.io/v1beta1 podgroups}), started as the
     * HyperNodes' is: when the API server does not serve them (Kubernetes before 1.37, or the {@code GenericWorkload}
     * feature gate or the {@code scheduling.k8s.io/v1beta1} runtime config off) or the ServiceAccount may not list them,
     * the cluster has none, the log says so once, and the list is asked again every 30 s. It neither blocks the
     * first sync nor makes the cache unhealthy.
     */
    private void startWorkloadPodGroups() {
        Thread probe = new Thread(() -> {
            String api = WorkloadPodGroup.GROUP + "/" + WorkloadPodGroup.VERSION;
            if (!awaitListable(() -> client.resources(WorkloadPodGroup.class).inAnyNamespace().list(one()),
                    e -> "cannot list PodGroups (" + api + "): " + whyNot(e, "the API server does not serve them"),
                    this::workloadPodGroupsAbsent)) {
                return;
            }
            synchronized (this) {
                if (closed) return;
                workloadPodGroupInformer = client.resources(WorkloadPodGroup.class).inAnyNamespace().runnableInformer(0);
                workloadPodGroupInformer.exceptionHandler(outages.handler("workload podgroups", workloadPodGroupInformer));
                workloadPodGroupInformer.addEventHandler(handler(this::putWorkloadPodGroup, this::removeWorkloadPodGroup));
                workloadPodGroupInformer.start().whenComplete((ok, failure) -> {
                    if (failure != null) {
                        workloadPodGroupsAbsent("cannot list PodGroups (" + api + "): " + whyNot(failure, "the API server does not serve them"));
                    } else {
                        if (workloadPodGroupsAbsent != null) {
                            LOG.info("PodGroups ({}) can be listed now: the Workload API's gangs are scheduled from now on", api);
                        }
                        workloadPodGroupsAbsent = null;
                        onChange.run();
                    }
                });
            }
        }, "arbiter-workload-podgroups");
        probe.setDaemon(true);
        probe.start();
    }

    private void workloadPodGroupsAbsent(String why) {
        workloadPodGroupsAbsent = why + "; running without the Workload API's PodGroups (pods naming one wait); asking"
                + " again every " + hyperNodeReprobe.toSeconds() + " s";
        LOG.warn(workloadPodGroupsAbsent);
        onChange.run();
    }

    /** Why the cluster is treated as having no Workload-API PodGroups (their list failed), or null while they are read. */
    public String workloadPodGroupsAbsent() {
        return workloadPodGroupsAbsent;
    }

    private boolean workloadPodGroupsSynced() {
        if (workloadPodGroupsAbsent != null) return true;
        SharedIndexInformer<WorkloadPodGroup> i = workloadPodGroupInformer;
        return i != null && i.hasSynced() && handled.get(workloadPodGroups).size() >= i.getStore().list().size();
    }

    private void putWorkloadPodGroup(WorkloadPodGroup g) {
        String key = key(g);
        if (g.getStatus() != null && g.getStatus().conditions != null) workloadConditions.put(key, g.getStatus().conditions);
        else workloadConditions.remove(key);
        store(workloadPodGroups, "PodGroup", key, g, o -> translator.workloadPodGroup(map(o), creationOrder(g)));
    }

    private void removeWorkloadPodGroup(WorkloadPodGroup g) {
        workloadConditions.remove(key(g));
        clashes.remove(key(g));
        forget(workloadPodGroups, "PodGroup", key(g), g);
    }

    /** Whether {@code key} is a PodGroup of the upstream Workload API (and no Volcano PodGroup has its name). */
    public boolean isWorkloadPodGroup(String key) {
        return workloadPodGroups.contains(key) && !podGroups.contains(key);
    }

    /** The {@code status.conditions} an upstream PodGroup carries now (empty when none, or no such object). */
    public List<Map<String, Object>> workloadConditions(String key) {
        return workloadConditions.getOrDefault(key, List.of());
    }

    /**
     * Whether the gang has run whole, as its object says: a Volcano PodGroup's Scheduled=True condition, an upstream
     * PodGroup's PodGroupInitiallyScheduled=True.
     */
    public boolean ranWhole(String key) {
        if (isWorkloadPodGroup(key)) return StatusViews.initiallyScheduled(workloadConditions(key));
        return StatusViews.ranWhole(podGroupStatuses.get(key));
    }

    /**
     * Volcano's PodGroups, with the upstream ones whose name no Volcano PodGroup has, in creation order; the list is
     * rebuilt only when either changed.
     */
    private synchronized List<PodGroupSpec> allPodGroups() {
        List<PodGroupSpec> volcano = podGroups.frozen();
        List<PodGroupSpec> upstream = workloadPodGroups.frozen();
        if (upstream.isEmpty()) return volcano;
        if (volcano == lastVolcanoGroups && upstream == lastWorkloadGroups) return lastMergedGroups;
        List<PodGroupSpec> merged = new ArrayList<>(volcano.size() + upstream.size());
        merged.addAll(volcano);
        for (PodGroupSpec g : upstream) {
            if (podGroups.contains(g.key())) {
                if (clashes.add(g.key())) {
                    LOG.atWarn().addKeyValue("podgroup", g.key()).log("PodGroup {} ({}/{}) is left out: a Volcano PodGroup (scheduling.volcano.sh) has its namespace"
                            + " and name, and is the gang its pods join; rename one", g.key(), WorkloadPodGroup.GROUP,
                            WorkloadPodGroup.VERSION);
                }
                continue;
            }
            merged.add(g);
        }
        merged.sort(Comparator.comparingLong(PodGroupSpec::creationOrder).thenComparing(PodGroupSpec::key));
        lastVolcanoGroups = volcano;
        lastWorkloadGroups = upstream;
        lastMergedGroups = List.copyOf(merged);
        return lastMergedGroups;
    }

    /** Marks on {@code timeline} when each informer has listed (set before {@link #start}). */
    void timeStartUp(StartupTimeline timeline) {
        startup = timeline;
    }

    /** How often HyperNodes are asked for again while they cannot be listed (30 s unless set before {@link #start}). */
    public void reprobeHyperNodesEvery(Duration every) {
        hyperNodeReprobe = every;
    }

    private void hyperNodesAbsent(String why) {
        hyperNodesAbsent = why + "; running without HyperNodes (topology comes from node labels only); asking again every "
                + hyperNodeReprobe.toSeconds() + " s";
        LOG.warn(hyperNodesAbsent);
        onChange.run();
    }

    /** A failed list in a few words: the missing CRD and a refused permission are the usual causes. */
    private static String whyNot(Throwable t, String notFound) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof io.fabric8.kubernetes.client.KubernetesClientException k) {
                if (k.getCode() == 404) return notFound + " (404)";
                if (k.getCode() == 403) return "forbidden (403): the ServiceAccount may not list them";
                if (k.getCode() > 0) return "HTTP " + k.getCode();
            }
        }
        return oneLine(t);
    }

    private static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** Why the cluster is treated as having no HyperNodes (their list failed), or null while they are read. */
    public String hyperNodesAbsent() {
        return hyperNodesAbsent;
    }

    private boolean hyperNodesSynced() {
        if (hyperNodesAbsent != null) return true;
        SharedIndexInformer<VolcanoHyperNode> i = hyperNodeInformer;
        return i != null && i.hasSynced() && handled.get(hyperNodes).size() >= i.getStore().list().size();
    }

    private void putHyperNode(VolcanoHyperNode h) {
        store(hyperNodes, "HyperNode", h.getMetadata().getName(), h, o -> translator.hyperNode(map(o)));
    }

    private void removeHyperNode(VolcanoHyperNode h) {
        forget(hyperNodes, "HyperNode", h.getMetadata().getName(), h);
    }

    /**
     * True once every informer has completed its first list and its handler has translated every listed object
     * (fabric8 reports an informer synced when its store is filled, before the handler has seen every add).
     */
    public synchronized boolean hasSynced() {
        if (closed) return false;
        if (synced) return true;
        if (informers.isEmpty() || !informers.stream().allMatch(SharedIndexInformer::hasSynced)) return false;
        for (int i = 0; i < informers.size(); i++) {
            if (handled.get(informed.get(i)).size() < informers.get(i).getStore().list().size()) return false;
        }
        synced = hyperNodesSynced() && workloadPodGroupsSynced();
        StartupTimeline t = startup;
        if (synced && t != null) t.mark("caches filled");
        return synced;
    }

    /**
     * False once an informer has stopped for good (only a first list refused with 401, 403 or 404 stops one; every
     * other failure is retried, see {@link Outages}): the process cannot recover by itself and should be restarted.
     */
    public boolean isHealthy() {
        List<SharedIndexInformer<?>> r = running;
        return !r.isEmpty() && r.stream().allMatch(SharedIndexInformer::isRunning);
    }

    /** True while every informer's watch is open (false during a disconnect, until it re-lists and re-watches). */
    public boolean isWatching() {
        List<SharedIndexInformer<?>> r = running;
        return !r.isEmpty() && r.stream().allMatch(SharedIndexInformer::isWatching);
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
        closed = true;
        outages.close();
        informers.forEach(SharedIndexInformer::stop);
        informers.clear();
        running = List.of();
        if (hyperNodeInformer != null) hyperNodeInformer.stop();
        if (workloadPodGroupInformer != null) workloadPodGroupInformer.stop();
        notifyAll(); // the HyperNode and PodGroup probes, waiting to ask again
    }

    // ---- the snapshot ---------------------------------------------------------------------------------------

    /**
     * The cluster as the next cycle must see it: informer records, plus pods a binding was issued for shown on their
     * assumed node, plus pods an eviction was issued for shown terminating, plus unknown nodes shown cordoned. Sorted
     * (nodes and classes by name, pods and PodGroups by creation order) so equal caches give equal snapshots. The
     * {@code default} Queue is included even before it exists as an object, as Volcano does.
     */
    public ClusterSnapshot snapshot() {
        return snapshot(Instant.now().getEpochSecond(), Map.of());
    }

    /**
     * The snapshot at {@code now} (epoch seconds, against which pods' {@code status.startTime} is measured), carrying
     * the {@code nominations} the previous cycle made (room held for preemptors whose victims are leaving).
     */
    public ClusterSnapshot snapshot(long now, Map<String, String> nominations) {
        // The assumptions first, the records after: the informer stores a pod's new record before it confirms (drops)
        // the assumption, so a pod bound meanwhile is seen either assumed or bound, never pending (a double bind).
        AssumeCache.View view = assumed.view();
        List<PodSpec> p = overlay(pods.frozen(), view);
        List<NodeSpec> n = unknownNodes.isEmpty() ? nodes.frozen() : cordonUnknown(nodes.frozen());
        List<QueueSpec> q = queues.frozen();
        if (!queues.contains(QueueSpec.DEFAULT)) {
            List<QueueSpec> withDefault = new ArrayList<>(q);
            withDefault.add(QueueSpec.defaultQueue());
            withDefault.sort(Comparator.comparing(QueueSpec::name));
            q = withDefault;
        }
        return new ClusterSnapshot(n, p, allPodGroups(), q, priorityClasses.frozen(), now, nominations,
                namespaceLabels(), hyperNodes.frozen()).withUsage(usage());
    }

    /** The queues' stored past usage, the later of the annotation and this process's last write. */
    private Map<String, dev.arbiter.model.QueueUsage> usage() {
        if (writtenUsage.isEmpty()) return queueUsage;
        Map<String, dev.arbiter.model.QueueUsage> out = new java.util.HashMap<>(queueUsage);
        writtenUsage.forEach((queue, w) -> {
            if (!queues.contains(queue)) return;
            out.merge(queue, w, (annotated, written) -> written.at() > annotated.at() ? written : annotated);
        });
        return out;
    }

    /** The actuator wrote {@code usage} to Queue {@code queue}: snapshots show it until the informer does. */
    void usageWritten(String queue, dev.arbiter.model.QueueUsage usage) {
        writtenUsage.put(queue, usage);
    }

    /** {@code list} with assumed pods rewritten: O(assumptions × log n), plus one copy when there are any. */
    private List<PodSpec> overlay(List<PodSpec> list, AssumeCache.View view) {
        if (view.isEmpty()) return list;
        PodSpec[] out = null;
        for (Map.Entry<String, String> b : view.bindings().entrySet()) {
            int at = position(list, b.getKey());
            if (at < 0) continue;
            PodSpec pod = out == null ? list.get(at) : out[at];
            if (pod.isBound() || pod.terminating() || view.evictions().contains(pod.key())) continue;
            if (out == null) out = list.toArray(new PodSpec[0]);
            out[at] = pod.withNode(b.getValue(), pod.phase());
        }
        for (String e : view.evictions()) {
            int at = position(list, e);
            if (at < 0) continue;
            PodSpec pod = out == null ? list.get(at) : out[at];
            if (pod.terminating()) continue;
            if (out == null) out = list.toArray(new PodSpec[0]);
            out[at] = pod.withTerminating();
        }
        return out == null ? list : List.of(out);
    }

    private int position(List<PodSpec> list, String key) {
        PodSpec current = pods.get(key);
        return current == null ? -1 : pods.indexIn(list, current);
    }

    private List<NodeSpec> cordonUnknown(List<NodeSpec> list) {
        List<NodeSpec> out = new ArrayList<>(list.size());
        for (NodeSpec n : list) {
            out.add(unknownNodes.containsKey(n.name()) && !n.unschedulable()
                    ? new NodeSpec(n.name(), n.labels(), n.taints(), true, n.allocatable(), n.arrivalCycle()) : n);
        }
        return out;
    }

    /** The pod's record as the informer last showed it (no assumptions), or null. */
    public PodSpec pod(String key) {
        return pods.get(key);
    }

    /** Whether the cache still holds the pod ({@code ns/name}): until its deletion is seen, it holds its node. */
    public boolean holdsPod(String key) {
        return pods.contains(key);
    }

    /** The pod's uid and creation time, or null when the cache does not hold it. */
    public PodIdentity podIdentity(String podKey) {
        return podIdentities.get(podKey);
    }

    /** The status the PodGroup object carries now, or null when there is no such object (e.g. a gang of one). */
    public VolcanoPodGroup.Status podGroupStatus(String key) {
        return podGroupStatuses.get(key);
    }

    /** The {@code arbiter.dev/estimated-start} the Volcano PodGroup shows now, or null. */
    public String estimatedStart(String key) {
        return estimatedStarts.get(key);
    }

    /** Whether {@code key} is a Volcano PodGroup the cache holds (not an upstream one, not a gang of one). */
    public boolean hasVolcanoPodGroup(String key) {
        return podGroups.contains(key);
    }

    public boolean hasPodGroup(String key) {
        return podGroups.contains(key) || workloadPodGroups.contains(key);
    }

    /** The status the Queue object carries now, or null when there is no such object. */
    public VolcanoQueue.Status queueStatus(String name) {
        return queueStatuses.get(name);
    }

    public boolean hasQueue(String name) {
        return queues.contains(name);
    }

    /**
     * A likely mistake in an object's own annotation or label keys (a near miss of a key Arbiter reads,
     * {@link dev.arbiter.manifest.Mistakes#nearMissKeys}), e.g. {@code "Pod team-a/p1: metadata.annotations[...]: ..."}.
     */
    public record Mistake(String id, EventRecorder.Involved involved, String message) {}

    /** Pods, PodGroups and Queues with a likely mistake in their keys, by id ("Kind ns/name"). */
    private final Map<String, Mistake> mistakes = new ConcurrentHashMap<>();

    /** The likely mistakes of the objects as they are now, by id; the actuator says each once. */
    public Map<String, Mistake> mistakes() {
        return Map.copyOf(mistakes);
    }

    /** Records (logging it once) or clears the likely mistakes in {@code obj}'s own annotation and label keys. */
    private void checkKeys(String kind, String key, HasMetadata obj) {
        String id = kind + " " + key;
        List<String> lines = dev.arbiter.manifest.Mistakes.nearMissKeys(obj.getMetadata().getAnnotations(),
                obj.getMetadata().getLabels());
        if (lines.isEmpty()) {
            mistakes.remove(id);
            return;
        }
        String message = id + ": " + String.join("; ", lines);
        Mistake before = mistakes.put(id, new Mistake(id, involved(kind, obj), message));
        if (before == null || !before.message().equals(message)) {
            LogFields.object(LOG.atWarn(), kind, key).log(message);
        }
    }

    /** Objects that cannot be read now, by id ("Kind ns/name"). */
    public Map<String, Unreadable> unreadable() {
        return Map.copyOf(unreadable);
    }

    /** How many objects of {@code kind} ("Pod", "Node", ...) cannot be read now. */
    public int unreadableCount(String kind) {
        int n = 0;
        for (Unreadable u : unreadable.values()) if (u.kind().equals(kind)) n++;
        return n;
    }

    // ---- informer events ------------------------------------------------------------------------------------

    private <T extends HasMetadata> ResourceEventHandler<T> handler(Consumer<T> put, Consumer<T> remove) {
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
        store(nodes, "Node", node.getMetadata().getName(), node, o -> translator.node(map(o)));
    }

    /** What the translation reads of a Node (labels, taints, cordon, allocatable or capacity) is equal. */
    private static boolean sameNodeInputs(Node a, Node b) {
        return a.getSpec() != null && b.getSpec() != null && a.getStatus() != null && b.getStatus() != null
                && Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())
                && Objects.equals(a.getMetadata().getAnnotations(), b.getMetadata().getAnnotations())
                && Objects.equals(a.getSpec().getTaints(), b.getSpec().getTaints())
                && Objects.equals(a.getSpec().getUnschedulable(), b.getSpec().getUnschedulable())
                && Objects.equals(a.getStatus().getAllocatable(), b.getStatus().getAllocatable())
                && Objects.equals(a.getStatus().getCapacity(), b.getStatus().getCapacity());
    }

    private void removeNode(Node node) {
        forget(nodes, "Node", node.getMetadata().getName(), node);
    }

    private void putPod(Pod before, Pod pod) {
        String key = key(pod);
        podIdentities.put(key, new PodIdentity(pod.getMetadata().getUid(), created(pod)));
        checkKeys("Pod", key, pod);
        PodSpec previous = pods.get(key);
        PodSpec spec = previous != null && before != null && !unreadable.containsKey("Pod " + key)
                ? PodTranslation.derived(previous, before, pod) : null;
        String assumedNode = assumed.assumedNode(key);
        if (spec != null) {
            PodSpec was = pods.put(key, spec);
            handled.get(pods).add(key);
            if (worthACycle(was, spec, assumedNode)) onChange.run();
        } else {
            spec = store(pods, "Pod", key, pod, ignored -> podTranslation.translate(pod, creationOrder(pod)),
                    (was, now) -> worthACycle(was, now, assumedNode));
        }
        if (spec == null) return;
        if (spec.terminating()) assumed.podGone(key);
        else if (spec.isBound()) assumed.confirmBound(key);
    }

    private void removePod(Pod pod) {
        String key = key(pod);
        podIdentities.remove(key);
        mistakes.remove("Pod " + key);
        forget(pods, "Pod", key, pod);
        assumed.podGone(key); // after the record is gone: a snapshot never sees the pod neither leaving nor gone
    }

    private void putPriorityClass(PriorityClass pc) {
        store(priorityClasses, "PriorityClass", pc.getMetadata().getName(), pc, o -> translator.priorityClass(map(o)));
    }

    private void removePriorityClass(PriorityClass pc) {
        forget(priorityClasses, "PriorityClass", pc.getMetadata().getName(), pc);
    }

    private void putQueue(VolcanoQueue q) {
        String name = q.getMetadata().getName();
        if (q.getStatus() != null) queueStatuses.put(name, q.getStatus());
        else queueStatuses.remove(name);
        readUsage(name, q.getMetadata().getAnnotations());
        checkKeys("Queue", name, q);
        store(queues, "Queue", name, q, o -> translator.queue(map(o), line -> queueNotice(name, line)));
    }

    /** The last notice logged about each Queue: a doubtful value is logged once, not again at every status write. */
    private final Map<String, String> queueNotices = new java.util.concurrent.ConcurrentHashMap<>();

    private void queueNotice(String queue, String line) {
        if (!line.equals(queueNotices.put(queue, line))) LOG.atWarn().addKeyValue("queue", queue).log(line);
    }

    /**
     * A Queue's stored past usage; an annotation that cannot be read is one line (once per value), and the queue's
     * usage starts from none (the next sample overwrites it).
     */
    private void readUsage(String queue, Map<String, String> annotations) {
        String value = annotations == null ? null : annotations.get(dev.arbiter.model.QueueUsage.ANNOTATION);
        if (value == null) {
            queueUsage.remove(queue);
            return;
        }
        try {
            queueUsage.put(queue, dev.arbiter.model.QueueUsage.parse(value));
            badUsage.remove(queue);
        } catch (IllegalArgumentException e) {
            queueUsage.remove(queue);
            if (!value.equals(badUsage.put(queue, value))) {
                LOG.atWarn().addKeyValue("queue", queue).log("Queue {}: annotation {}: {}; its past usage starts from none", queue,
                        dev.arbiter.model.QueueUsage.ANNOTATION, e.getMessage());
            }
        }
    }

    private void removeQueue(VolcanoQueue q) {
        queueStatuses.remove(q.getMetadata().getName());
        queueUsage.remove(q.getMetadata().getName());
        writtenUsage.remove(q.getMetadata().getName());
        queueNotices.remove(q.getMetadata().getName());
        mistakes.remove("Queue " + q.getMetadata().getName());
        forget(queues, "Queue", q.getMetadata().getName(), q);
    }

    private void putPodGroup(VolcanoPodGroup g) {
        String key = key(g);
        if (g.getStatus() != null) podGroupStatuses.put(key, g.getStatus());
        else podGroupStatuses.remove(key);
        Map<String, String> annotations = g.getMetadata().getAnnotations();
        String start = annotations == null ? null : annotations.get(dev.arbiter.forecast.Forecast.ANNOTATION);
        if (start != null) estimatedStarts.put(key, start);
        else estimatedStarts.remove(key);
        checkKeys("PodGroup", key, g);
        store(podGroups, "PodGroup", key, g, o -> translator.podGroup(map(o), creationOrder(g)));
    }

    private void removePodGroup(VolcanoPodGroup g) {
        podGroupStatuses.remove(key(g));
        estimatedStarts.remove(key(g));
        mistakes.remove("PodGroup " + key(g));
        forget(podGroups, "PodGroup", key(g), g);
    }

    /** A namespace's labels, which pod affinity terms with a {@code namespaceSelector} select on. */
    private record NamespaceLabels(String name, Map<String, String> labels) {}

    private void putNamespace(io.fabric8.kubernetes.api.model.Namespace ns) {
        String name = ns.getMetadata().getName();
        store(namespaces, "Namespace", name, ns, o -> new NamespaceLabels(name, translator.namespaceLabels(map(o))));
    }

    private void removeNamespace(io.fabric8.kubernetes.api.model.Namespace ns) {
        forget(namespaces, "Namespace", ns.getMetadata().getName(), ns);
    }

    /** Namespace name → labels, rebuilt only when a Namespace changed (there are few, and they change rarely). */
    private synchronized Map<String, Map<String, String>> namespaceLabels() {
        List<NamespaceLabels> now = namespaces.frozen();
        if (now != lastNamespaces) {
            Map<String, Map<String, String>> m = new java.util.HashMap<>();
            for (NamespaceLabels ns : now) m.put(ns.name(), ns.labels());
            namespaceMap = Map.copyOf(m);
            lastNamespaces = now;
        }
        return namespaceMap;
    }

    /**
     * Translates {@code obj} and stores the record; signals a change when the record differs from the one held. An
     * object that does not translate keeps its previous record and is listed as unreadable; a running pod without a
     * previous record makes its node unknown.
     */
    private <R> R store(RecordIndex<R> records, String kind, String key, HasMetadata obj, Function<HasMetadata, R> translate) {
        return store(records, kind, key, obj, translate, (before, after) -> !Objects.equals(before, after));
    }

    /**
     * Whether a pod's new record can change a cycle's decisions. Not when it only confirms what the snapshot already
     * showed (the pod on the node its binding was issued for), nor when a bound pod only moves from Pending to
     * Running or gets its start time (capacity is held either way; the periodic cycle catches up on the rest).
     */
    static boolean worthACycle(PodSpec before, PodSpec after, String assumedNode) {
        if (Objects.equals(before, after)) return false;
        if (before == null || after == null || after.terminating() || !after.isBound()) return true;
        boolean finished = after.finished();
        if (finished) return true;
        boolean sameNode = after.nodeName().equals(before.isBound() ? before.nodeName() : assumedNode);
        return !sameNode || before.terminating() || !before.requests().equals(after.requests())
                || !before.labels().equals(after.labels()) || !before.annotations().equals(after.annotations())
                || !Objects.equals(before.priority(), after.priority())
                || !Objects.equals(before.priorityClassName(), after.priorityClassName());
    }

    private <R> R store(RecordIndex<R> records, String kind, String key, HasMetadata obj, Function<HasMetadata, R> translate,
                        java.util.function.BiPredicate<R, R> worthACycle) {
        String id = kind + " " + key;
        R record;
        try {
            record = translate.apply(obj);
        } catch (ManifestException | IllegalArgumentException e) {
            unreadable(records, kind, key, id, obj, e.getMessage());
            handled.get(records).add(key);
            return null;
        }
        if (unreadable.remove(id) != null) {
            LogFields.object(LOG.atInfo(), kind, key).log("{} can be read again", id);
            releaseUnknownNode(key);
        }
        R previous = records.put(key, record);
        // Counted as handled only once the record is in: hasSynced() must not open the gate before the snapshot
        // shows every listed object (the informers now deliver their first adds on their own threads).
        handled.get(records).add(key);
        if (worthACycle.test(previous, record)) onChange.run();
        return record;
    }

    private <R> void unreadable(RecordIndex<R> records, String kind, String key, String id, HasMetadata obj, String problem) {
        boolean hasPrevious = records.contains(key);
        String node = obj instanceof Pod p && p.getSpec() != null ? p.getSpec().getNodeName() : null;
        String phase = obj instanceof Pod p && p.getStatus() != null ? p.getStatus().getPhase() : null;
        boolean holdsNode = node != null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
        String consequence;
        if (hasPrevious) {
            consequence = "its last readable version is used";
        } else if (holdsNode) {
            consequence = "node " + node + " is treated as full (nothing is placed there) until the pod can be read or is gone";
            if (unknownNodes.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet()).add(key)) onChange.run();
        } else {
            consequence = kind.equals("Pod") ? "it is not scheduled until it can be read" : "it is left out until it can be read";
            releaseUnknownNode(key);
        }
        String message = "cannot read " + id + ": " + problem + "; " + consequence;
        Unreadable before = unreadable.put(id, new Unreadable(id, kind, involved(kind, obj), message));
        if (before == null || !before.message().equals(message)) {
            LoggingEventBuilder line = LogFields.object(LOG.atWarn(), kind, key);
            if (holdsNode) line = line.addKeyValue("node", node);
            line.log(message);
        }
    }

    private void releaseUnknownNode(String podKey) {
        for (Map.Entry<String, Set<String>> e : unknownNodes.entrySet()) {
            if (e.getValue().remove(podKey) && e.getValue().isEmpty()) {
                unknownNodes.remove(e.getKey(), e.getValue());
                onChange.run();
            }
        }
    }

    private static EventRecorder.Involved involved(String kind, HasMetadata obj) {
        String apiVersion = obj.getApiVersion() != null ? obj.getApiVersion() : "v1";
        return new EventRecorder.Involved(apiVersion, kind, obj.getMetadata().getNamespace(), obj.getMetadata().getName(),
                obj.getMetadata().getUid());
    }

    /** The object as the plain map the translator reads, without the simulator's annotations. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> map(HasMetadata obj) {
        Map<String, Object> object = json.convertValue(obj, Map.class);
        PodTranslation.withoutSimulationAnnotations(object);
        return object;
    }

    private <R> void forget(RecordIndex<R> records, String kind, String key, HasMetadata obj) {
        handled.get(records).remove(key);
        tieBreaks.remove(uidOrKey(obj));
        if (unreadable.remove(kind + " " + key) != null) releaseUnknownNode(key);
        if (records.remove(key) != null) onChange.run();
    }

    /** The creation time (epoch milliseconds) a live object's creation order carries; 0 when it had none. */
    static long createdMillis(long creationOrder) {
        return creationOrder >>> TIE_BITS;
    }

    private long creationOrder(HasMetadata obj) {
        long tie = tieBreaks.computeIfAbsent(uidOrKey(obj), k -> seen.getAndIncrement());
        Instant created = created(obj);
        long millis = created == null ? 0 : created.toEpochMilli();
        return (millis << TIE_BITS) | (tie & ((1L << TIE_BITS) - 1));
    }

    private static final LastParsed<Instant> CREATED = new LastParsed<>(Instant::parse);

    private static Instant created(HasMetadata obj) {
        String ts = obj.getMetadata().getCreationTimestamp();
        if (ts == null) return null;
        try {
            return CREATED.parse(ts);
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
