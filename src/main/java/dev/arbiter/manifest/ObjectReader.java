package dev.arbiter.manifest;

import dev.arbiter.model.PriorityClassSpec;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads top-level manifest objects: checks the common fields (apiVersion, kind, metadata.name), unpacks lists, and
 * hands each object to the reader or expander for its kind. Kinds Arbiter does not schedule become notices.
 */
final class ObjectReader {
    private static final String NODE = "v1 Node";
    private static final String POD = "v1 Pod";
    private static final String PRIORITY_CLASS = "scheduling.k8s.io/v1 PriorityClass";
    private static final String QUEUE = "scheduling.volcano.sh/v1beta1 Queue";
    private static final String POD_GROUP = "scheduling.volcano.sh/v1beta1 PodGroup";
    private static final String PYTORCH_JOB = "kubeflow.org/v1 PyTorchJob";
    private static final String LEADER_WORKER_SET = "leaderworkerset.x-k8s.io/v1 LeaderWorkerSet";
    private static final String NAMESPACE = "v1 Namespace";
    private static final String VOLCANO_JOB = "batch.volcano.sh/v1alpha1 Job";
    private static final String BATCH_JOB = "batch/v1 Job";
    private static final String MPI_JOB = "kubeflow.org/v2beta1 MPIJob";
    private static final String HYPER_NODE = "topology.volcano.sh/v1alpha1 HyperNode";
    private static final String WORKLOAD_POD_GROUP = "scheduling.k8s.io/v1beta1 PodGroup";
    private static final String WORKLOAD_POD_GROUP_ALPHA = "scheduling.k8s.io/v1alpha3 PodGroup";
    private static final String WORKLOAD = "scheduling.k8s.io/v1beta1 Workload";
    private static final String WORKLOAD_ALPHA = "scheduling.k8s.io/v1alpha3 Workload";
    private static final Set<String> CLUSTER_SCOPED = Set.of(NODE, PRIORITY_CLASS, QUEUE, NAMESPACE, HYPER_NODE);
    private static final Set<String> KNOWN = Set.of(NODE, POD, PRIORITY_CLASS, QUEUE, POD_GROUP, PYTORCH_JOB,
            LEADER_WORKER_SET, NAMESPACE, VOLCANO_JOB, BATCH_JOB, MPI_JOB, HYPER_NODE, WORKLOAD_POD_GROUP,
            WORKLOAD_POD_GROUP_ALPHA, WORKLOAD, WORKLOAD_ALPHA);

    private final ManifestCollector out;
    private int objects;

    ObjectReader(ManifestCollector out) {
        this.out = out;
    }

    /** Reads one YAML document of {@code source}. */
    void readDocument(Node document, String source) {
        Field object = Field.root(document, Origin.of(source, Field.lineOf(document)));
        if (!object.isMapping()) {
            throw object.error("a manifest must be a mapping with apiVersion, kind and metadata, got "
                    + Field.describe(document));
        }
        read(object, null, null);
    }

    /**
     * Reads one object; {@code defaultApiVersion}/{@code defaultKind} fill in for items of a typed list such as
     * {@code PodList}, whose items may omit them.
     */
    private void read(Field object, String defaultApiVersion, String defaultKind) {
        String kind = object.get("kind").string(defaultKind);
        object = object.withOrigin(object.origin().ofKind(kind));
        String apiVersion = object.get("apiVersion").string(defaultApiVersion);
        if (apiVersion == null) throw object.get("apiVersion").error("is required");
        if (kind == null) throw object.get("kind").error("is required");
        if (kind.endsWith("List")) {
            readList(object, apiVersion, kind);
            return;
        }
        objects++;
        Field named = identified(object, id(object, apiVersion + " " + kind));
        String type = apiVersion + " " + kind;
        dispatch(named, apiVersion, kind, Metadata.read(named));
        if (KNOWN.contains(type) && !type.equals(NODE) && !type.equals(NAMESPACE)) {
            Mistakes.unknownFields(type, named, out::notice);
            Mistakes.nearMissKeys(named, !type.equals(POD), out::notice);
        }
    }

    /** How many objects (documents with apiVersion and kind, list items included) were read so far. */
    int objectsRead() {
        return objects;
    }

    /**
     * How messages and duplicate checks name the object: {@code name} for cluster-scoped kinds, else
     * {@code namespace/name}, where a kind Arbiter reads defaults its namespace to "default".
     */
    private static String id(Field object, String type) {
        String name = object.get("metadata", "name").string();
        if (name == null) throw object.get("metadata", "name").error("is required");
        if (KNOWN.contains(type)) {
            ApiValidation.objectName(object.get("metadata", "name"));
            ApiValidation.namespace(object.get("metadata", "namespace"));
        }
        String namespace = object.get("metadata", "namespace").string();
        if (CLUSTER_SCOPED.contains(type)) return name;
        if (namespace == null) return KNOWN.contains(type) ? Metadata.DEFAULT_NAMESPACE + "/" + name : name;
        return namespace + "/" + name;
    }

    /** {@code kind: List} holds any objects; {@code kind: <X>List} holds X objects that may omit apiVersion/kind. */
    private void readList(Field list, String apiVersion, String kind) {
        String itemKind = kind.equals("List") ? null : kind.substring(0, kind.length() - "List".length());
        for (Field item : list.get("items").items()) {
            if (!item.isMapping()) {
                throw item.error("must be a mapping with apiVersion, kind and metadata");
            }
            read(item.asObject(), itemKind == null ? null : apiVersion, itemKind);
        }
    }

    /**
     * The past usage a Queue stores ({@link dev.arbiter.model.QueueUsage#ANNOTATION}); a value that is not one is a
     * notice, and the queue starts from no usage, as live mode does.
     */
    private void usage(Field object, Metadata meta, String queue) {
        String value = meta.annotations().get(dev.arbiter.model.QueueUsage.ANNOTATION);
        if (value == null) return;
        try {
            out.addUsage(queue, dev.arbiter.model.QueueUsage.parse(value));
        } catch (IllegalArgumentException e) {
            out.notice(object.origin().location() + ": Queue " + queue + ": annotation " + dev.arbiter.model.QueueUsage.ANNOTATION
                    + ": " + e.getMessage() + "; the queue's past usage starts from none");
        }
    }

    private void dispatch(Field object, String apiVersion, String kind, Metadata meta) {
        switch (apiVersion + " " + kind) {
            case NODE -> {
                claim(object);
                dev.arbiter.model.NodeSpec node = NodeReader.read(object, meta);
                String overflow = out.addToClusterTotal(node.allocatable());
                if (overflow != null) {
                    throw NodeReader.allocatableField(object, overflow).error("with this node the cluster's total "
                            + overflow + " passes the largest amount Arbiter can count; is the quantity right?");
                }
                out.add(node);
            }
            case QUEUE -> {
                claim(object);
                dev.arbiter.model.QueueSpec queue = QueueReader.read(object, meta, out::notice);
                out.add(queue);
                usage(object, meta, queue.name());
            }
            case PRIORITY_CLASS -> {
                claim(object);
                PriorityClassSpec pc = PriorityClassReader.read(object, meta);
                if (pc.globalDefault()) out.claimGlobalDefault(pc.name(), object.get("globalDefault"));
                out.add(pc);
            }
            case POD -> {
                long creationOrder = claim(object);
                PodDraft pod = PodReader.read(object, PodReader.DEFAULT_SCHEDULER);
                out.missingLimits(pod.missingLimits);
                dev.arbiter.model.PodSpec spec = pod.toSpec(creationOrder);
                if (spec.groupName() != null) {
                    Field group = object.get("metadata", "annotations", dev.arbiter.model.PodSpec.GROUP_ANNOTATION);
                    out.referenceAt("Pod " + spec.key(), "group", group.isPresent() ? group
                            : object.get("spec", "schedulingGroup", "podGroupName"));
                } else if (spec.annotations().containsKey(dev.arbiter.model.PodSpec.QUEUE_ANNOTATION)) {
                    out.referenceAt("Pod " + spec.key(), "queue",
                            object.get("metadata", "annotations", dev.arbiter.model.PodSpec.QUEUE_ANNOTATION));
                }
                out.add(spec);
            }
            case POD_GROUP -> {
                dev.arbiter.model.PodGroupSpec g = PodGroupReader.read(object, meta, claim(object));
                out.referenceAt("PodGroup " + g.key(), "queue", object.get("spec", "queue"));
                out.add(g);
            }
            case WORKLOAD_POD_GROUP, WORKLOAD_POD_GROUP_ALPHA -> {
                long order;
                try {
                    order = claim(object);
                } catch (ManifestException clash) {
                    throw new ManifestException(clash.getMessage() + "; a Volcano PodGroup and a " + apiVersion
                            + " PodGroup of one namespace and name would be one gang to Arbiter: rename one");
                }
                dev.arbiter.model.PodGroupSpec g = WorkloadPodGroupReader.read(object, meta, order);
                out.referenceAt("PodGroup " + g.key(), "queue",
                        object.get("metadata", "annotations", dev.arbiter.model.PodSpec.QUEUE_ANNOTATION));
                if (g.workloadApi().ignored() != null) {
                    out.notice(object.origin().location() + ": " + object.origin().subject() + ": "
                            + g.workloadApi().ignored() + " not honoured: Arbiter schedules the group as a gang of "
                            + g.minMember() + " without it");
                }
                out.add(g);
            }
            case WORKLOAD, WORKLOAD_ALPHA -> {
                claim(object);
                out.notice(object.origin().location() + ": skipped " + apiVersion + " Workload " + object.origin().id()
                        + ": Arbiter, as kube-scheduler, schedules the PodGroups made from its templates (write them"
                        + " as PodGroups; no controller makes them in a simulation)");
            }
            case PYTORCH_JOB -> {
                claim(object);
                PyTorchJobExpander.expand(object, meta, out);
            }
            case LEADER_WORKER_SET -> {
                claim(object);
                LeaderWorkerSetExpander.expand(object, meta, out);
            }
            case HYPER_NODE -> {
                claim(object);
                out.add(HyperNodeReader.read(object, meta));
            }
            case NAMESPACE -> {
                claim(object);
                out.addNamespace(meta.name(), meta.labels());
            }
            case VOLCANO_JOB -> {
                claim(object);
                VolcanoJobExpander.expand(object, meta, out);
            }
            case BATCH_JOB -> {
                claim(object);
                BatchJobExpander.expand(object, meta, out);
            }
            case MPI_JOB -> {
                claim(object);
                MpiJobExpander.expand(object, meta, out);
            }
            default -> out.notice(object.origin().location() + ": skipped " + apiVersion + " " + kind + " "
                    + object.origin().id() + ": not a kind Arbiter schedules");
        }
    }

    /** The object, reported from now on by its kind and {@code id} ({@code name} or {@code namespace/name}). */
    private static Field identified(Field object, String id) {
        return object.withOrigin(object.origin().named(id));
    }

    /** Registers the object's identity (so a later duplicate is an error) and returns its creation order. */
    private long claim(Field identified) {
        Origin origin = identified.origin();
        return out.claim(origin.kind(), origin.id(), origin);
    }
}
