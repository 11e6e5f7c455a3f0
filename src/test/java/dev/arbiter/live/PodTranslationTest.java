package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.manifest.ObjectTranslator;
import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records stamped from a template or derived from the previous record are exactly what a full translation gives
 * (the shortcuts of {@link PodTranslation} may never change an answer).
 */
class PodTranslationTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    private static final ObjectTranslator TRANSLATOR = new ObjectTranslator("api");

    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: worker-0
              namespace: team
              creationTimestamp: "2026-11-29T10:00:00Z"
              labels: {app: train}
              annotations:
                scheduling.k8s.io/group-name: job
                simulation.arbiter.dev/arrival-cycle: "soon"
            spec:
              schedulerName: volcano
              priorityClassName: p1-high
              overhead: {cpu: 250m}
              initContainers:
                - {name: fetch, image: busybox, resources: {requests: {cpu: "4", memory: 1Gi}}}
              containers:
                - name: main
                  image: trainer
                  resources:
                    requests: {cpu: "2", memory: 8Gi}
                    limits: {cpu: "2", memory: 8Gi, mars-tech.com/gpu: "8"}
              nodeSelector: {pool: a100}
              tolerations:
                - {key: gpu, operator: Exists, effect: NoSchedule}
            status: {}
            """;

    private final PodTranslation translation = new PodTranslation(TRANSLATOR, JSON);

    @Test
    void aPodStampedFromATemplateEqualsItsFullTranslation() {
        translation.translate(pod("worker-0"), 1);
        Pod second = pod("worker-1");

        PodSpec stamped = translation.translate(second, 2);

        assertEquals(full(second, 2), stamped);
        assertEquals("worker-1", stamped.name());
        assertNull(stamped.annotations().get(ManifestLoader.ARRIVAL_CYCLE_ANNOTATION), "ignored live");
    }

    @Test
    void aBindingUpdateIsDerivedExactlyAsTranslated() {
        Pod before = pod("worker-0");
        PodSpec previous = translation.translate(before, 7);
        Pod bound = new PodBuilder(before).editSpec().withNodeName("node-3").endSpec()
                .editStatus().withStartTime("2026-11-29T10:00:05Z").endStatus().build();
        Pod running = new PodBuilder(bound).editStatus().withPhase("Running").endStatus().build();
        Pod leaving = new PodBuilder(running).editMetadata().withDeletionTimestamp("2026-11-29T11:00:00Z").endMetadata().build();

        assertEquals(full(bound, 7), PodTranslation.derived(previous, before, bound), "no phase yet: Running, as the reader says");
        assertEquals(full(running, 7), PodTranslation.derived(previous, before, running));
        assertEquals(full(leaving, 7), PodTranslation.derived(previous, before, leaving));
    }

    @Test
    void anUpdateThatChangesWhatIsReadIsTranslatedAgain() {
        Pod before = pod("worker-0");
        PodSpec previous = translation.translate(before, 7);
        Pod relabelled = new PodBuilder(before).editMetadata().addToLabels("tier", "gold").endMetadata().build();
        Pod badStart = new PodBuilder(before).editStatus().withStartTime("yesterday").endStatus().build();

        assertNull(PodTranslation.derived(previous, before, relabelled));
        assertNull(PodTranslation.derived(previous, before, badStart));
    }

    private static final String CONSTRAINED = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: worker-0
              namespace: team
              creationTimestamp: "2026-11-29T10:00:00Z"
              labels: {app: train}
            spec:
              schedulerName: arbiter
              schedulingGates: [{name: quota.example.com/wait}]
              affinity:
                podAntiAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    - labelSelector: {matchLabels: {app: train}}
                      topologyKey: kubernetes.io/hostname
              topologySpreadConstraints:
                - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: train}}}
              containers:
                - name: main
                  image: trainer
                  ports: [{containerPort: 8080, hostPort: 8080}]
                  resources: {requests: {cpu: "2"}}
                  volumeMounts: [{name: kube-api-access-abcde, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}]
              volumes: [{name: kube-api-access-abcde, projected: {sources: []}}]
            status: {}
            """;

    @Test
    void placementConstraintsSurviveTheTemplateAndEveryUpdate() {
        Pod first = constrained("worker-0", "kube-api-access-abcde");
        translation.translate(first, 1);
        Pod second = constrained("worker-1", "kube-api-access-fghij");

        PodSpec stamped = translation.translate(second, 2);
        assertEquals(full(second, 2), stamped, "affinity, spread, host ports and gates kept");
        assertEquals(1, translation.fullTranslations(), "the per-pod token mount name does not defeat the template");

        Pod conditioned = new PodBuilder(first).editStatus().addNewCondition().withType("PodScheduled").withStatus("False")
                .endCondition().endStatus().build();
        assertEquals(full(conditioned, 1), PodTranslation.derived(translation.translate(first, 1), first, conditioned),
                "a status update keeps the constraints");
        Pod ungated = new PodBuilder(first).editSpec().withSchedulingGates(List.of()).endSpec().build();
        PodSpec derived = PodTranslation.derived(translation.translate(first, 1), first, ungated);
        assertTrue(derived == null || derived.equals(full(ungated, 1)), "a removed gate is seen");
        assertNotEquals(full(first, 1), full(ungated, 1), "the test's pods differ in what is read");
        Pod otherAffinity = new PodBuilder(second).editSpec().withAffinity(null).endSpec().build();
        assertEquals(full(otherAffinity, 3), translation.translate(otherAffinity, 3), "other constraints, not the template");
    }

    private static Pod constrained(String name, String tokenVolume) {
        Pod p = JSON.unmarshal(CONSTRAINED.replace("kube-api-access-abcde", tokenVolume), Pod.class);
        p.getMetadata().setName(name);
        return p;
    }

    private static Pod pod(String name) {
        Pod p = JSON.unmarshal(POD, Pod.class);
        p.getMetadata().setName(name);
        return p;
    }

    @SuppressWarnings("unchecked")
    private static PodSpec full(Pod pod, long order) {
        Map<String, Object> m = JSON.convertValue(pod, Map.class);
        PodTranslation.withoutSimulationAnnotations(m);
        return TRANSLATOR.pod(m, order);
    }
}
