package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.manifest.ManifestException;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.manifest.ObjectTranslator;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** A live object translates to the same record as the same object read from a manifest file. */
class TranslationTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    private static final ObjectTranslator TRANSLATOR = new ObjectTranslator("api");

    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: trainer
              namespace: team
              creationTimestamp: "2026-11-29T10:00:00Z"
              annotations:
                scheduling.k8s.io/group-name: job
                simulation.arbiter.dev/arrival-cycle: "3"
            spec:
              schedulerName: volcano
              priorityClassName: p1-high
              overhead:
                cpu: 250m
              initContainers:
                - name: fetch
                  image: busybox
                  resources:
                    requests: {cpu: "4", memory: 1Gi}
                - name: proxy
                  image: envoy
                  restartPolicy: Always
                  resources:
                    requests: {cpu: 500m}
              containers:
                - name: main
                  image: trainer
                  resources:
                    requests: {cpu: "2", memory: 8Gi}
                    limits: {cpu: "2", memory: 8Gi, mars-tech.com/gpu: "8"}
              tolerations:
                - {key: gpu, operator: Exists, effect: NoSchedule}
            """;

    @Test
    void aPodRequestsWhatTheManifestLoaderSaysButArrivesAtCycleZero() {
        Pod live = JSON.unmarshal(POD, Pod.class);
        PodSpec fromFile = ManifestLoader.parse(POD, "pod.yaml").pods().get(0);

        PodSpec translated = TRANSLATOR.pod(map(live), 42);

        assertEquals(fromFile.requests(), translated.requests());
        assertEquals(Resources.of("cpu", "4.25", "memory", "8Gi", "mars-tech.com/gpu", 8, "pods", 1),
                translated.requests(), "init peak 4 (before the sidecar starts) > containers 2 + sidecar 0.5; plus overhead");
        assertEquals(fromFile.tolerations(), translated.tolerations());
        assertEquals("job", translated.groupName());
        assertEquals(0, translated.arrivalCycle());
        assertEquals(42, translated.creationOrder());
        assertFalse(translated.terminating());
    }

    @Test
    void aPodWithADeletionTimestampIsTerminating() {
        Pod live = JSON.unmarshal(POD, Pod.class);
        live.getMetadata().setDeletionTimestamp("2026-11-29T10:05:00Z");
        assertTrue(TRANSLATOR.pod(map(live), 0).terminating());
    }

    @Test
    void nodesQueuesAndPodGroupsKeepTheLoadersDefaults() {
        NodeSpec node = TRANSLATOR.node(Map.of("metadata", Map.of("name", "n1"),
                "status", Map.of("allocatable", Map.of("cpu", "96", "mars-tech.com/gpu", 8))));
        assertEquals(Resources.of("cpu", 96, "mars-tech.com/gpu", 8, "pods", 110), node.allocatable());

        QueueSpec queue = TRANSLATOR.queue(Map.of("metadata", Map.of("name", "q"), "spec", Map.of("weight", 3)));
        assertEquals(3, queue.weight());
        assertTrue(queue.reclaimable());
        assertEquals("Open", queue.state());

        PodGroupSpec group = TRANSLATOR.podGroup(Map.of("metadata", Map.of("name", "g", "namespace", "team"),
                "spec", Map.of("minMember", 4), "status", Map.of("phase", "Inqueue")), 7);
        assertEquals("default", group.queue());
        assertEquals(4, group.minMember());
        assertEquals("Inqueue", group.phase());
        assertEquals(7, group.creationOrder());
    }

    @Test
    void aPodsAffinityAndSpreadTranslateAsTheManifestLoaderReadsThem() {
        String yaml = POD.replace("  schedulerName: volcano\n", "  schedulerName: volcano\n"
                + "  affinity:\n"
                + "    podAntiAffinity:\n"
                + "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                + "      - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}\n"
                + "  topologySpreadConstraints:\n"
                + "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n");
        Pod live = JSON.unmarshal(yaml, Pod.class);
        PodSpec fromFile = ManifestLoader.parse(yaml, "pod.yaml").pods().get(0);
        assertTrue(!fromFile.placement().isNone());
        assertEquals(fromFile.placement(), TRANSLATOR.pod(map(live), 0).placement());
    }

    @Test
    void aNamespaceGivesItsLabelsAndItsNameLabel() {
        assertEquals(Map.of("team", "ml", "kubernetes.io/metadata.name", "research"),
                TRANSLATOR.namespaceLabels(Map.of("metadata", Map.of("name", "research", "labels", Map.of("team", "ml")))));
    }

    @Test
    void anInvalidObjectNamesItsFieldInOneLine() {
        Executable bad = () -> TRANSLATOR.queue(Map.of("metadata", Map.of("name", "q"), "spec", Map.of("weight", -1)));
        ManifestException e = org.junit.jupiter.api.Assertions.assertThrows(ManifestException.class, bad);
        assertEquals("api:0: Queue q: spec.weight: must be a positive integer, got -1", e.getMessage());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return JSON.convertValue(o, Map.class);
    }
}
