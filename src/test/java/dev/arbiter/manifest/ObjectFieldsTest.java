package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.pod;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static dev.arbiter.manifest.TestManifests.queue;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayName("Each kind's fields and defaults")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ObjectFieldsTest {

    @Test
    void a_node_reads_labels_taints_cordon_and_allocatable_and_is_labelled_with_its_hostname_as_the_kubelet_does() {
        NodeSpec node = parse("""
                apiVersion: v1
                kind: Node
                metadata:
                  name: gpu-1
                  labels: {zone: a}
                spec:
                  unschedulable: true
                  taints:
                    - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
                status:
                  allocatable: {cpu: 95500m, memory: 700Gi, pods: "64"}
                  capacity: {cpu: "96", memory: 768Gi, pods: "110"}
                """).nodes().get(0);
        assertEquals(new NodeSpec("gpu-1", Map.of("zone", "a", "kubernetes.io/hostname", "gpu-1"), List.of(new Taint("nvidia.com/gpu", "present", "NoSchedule")),
                true, Resources.of("cpu", "95500m", "memory", "700Gi", "pods", 64), 0), node);
    }

    @Test
    void a_node_without_allocatable_uses_capacity_and_defaults_to_110_pods() {
        NodeSpec node = parse("""
                apiVersion: v1
                kind: Node
                metadata: {name: n}
                status:
                  capacity: {cpu: "8"}
                """).nodes().get(0);
        assertAll(() -> assertEquals(Resources.of("cpu", 8, "pods", 110), node.allocatable()),
                () -> assertFalse(node.unschedulable()),
                () -> assertEquals(List.of(), node.taints()));
    }

    @Test
    void a_bare_pod_gets_kubernetes_defaults() {
        PodSpec p = pod(parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: bare}
                """), "default/bare");
        assertAll(() -> assertEquals("default", p.namespace()),
                () -> assertEquals("default-scheduler", p.schedulerName()),
                () -> assertNull(p.nodeName()),
                () -> assertEquals("Pending", p.phase()),
                () -> assertNull(p.priorityClassName()),
                () -> assertNull(p.priority()),
                () -> assertNull(p.preemptionPolicy()),
                () -> assertEquals(Resources.of("pods", 1), p.requests()),
                () -> assertEquals(0, p.arrivalCycle()));
    }

    @Test
    void a_pod_reads_scheduling_fields_labels_annotations_and_tolerations() {
        PodSpec p = pod(parse("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p1
                  namespace: team
                  labels: {app: web, tier: ""}
                  annotations: {scheduling.k8s.io/group-name: pg1}
                spec:
                  schedulerName: volcano
                  priorityClassName: p1-high
                  priority: 10000
                  preemptionPolicy: Never
                  nodeSelector: {gpu: "true"}
                  tolerations:
                    - {key: dedicated, operator: Equal, value: ml, effect: NoSchedule}
                    - {operator: Exists}
                """), "team/p1");
        assertAll(() -> assertEquals("volcano", p.schedulerName()),
                () -> assertEquals("p1-high", p.priorityClassName()),
                () -> assertEquals(10000, p.priority()),
                () -> assertEquals("Never", p.preemptionPolicy()),
                () -> assertEquals(Map.of("gpu", "true"), p.nodeSelector()),
                () -> assertEquals(Map.of("app", "web", "tier", ""), p.labels()),
                () -> assertEquals("pg1", p.groupName()),
                () -> assertEquals(List.of(new Toleration("dedicated", "Equal", "ml", "NoSchedule"),
                        new Toleration(null, "Exists", null, null)), p.tolerations()));
    }

    @Test
    void a_pod_bound_to_a_node_is_running_unless_its_status_says_otherwise() {
        Manifests m = parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: bound}
                spec: {nodeName: n1}
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: done}
                spec: {nodeName: n1}
                status: {phase: Succeeded}
                """);
        assertEquals("Running", pod(m, "default/bound").phase());
        assertEquals("n1", pod(m, "default/bound").nodeName());
        assertEquals("Succeeded", pod(m, "default/done").phase());
    }

    @Test
    void a_queue_reads_every_field() {
        QueueSpec q = queue(parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: research}
                spec:
                  weight: 3
                  priority: 5
                  capability: {cpu: "100", nvidia.com/gpu: "16"}
                  guarantee:
                    resource: {nvidia.com/gpu: "4"}
                  reclaimable: false
                  parent: science
                status:
                  state: Closed
                """), "research");
        assertEquals(new QueueSpec("research", 3, 5, dev.arbiter.model.Caps.of("cpu", 100, "nvidia.com/gpu", 16),
                Resources.of("nvidia.com/gpu", 4), false, "Closed", "science", 0), q);
    }

    @Test
    void an_explicit_zero_capability_is_kept_and_forbids_the_resource() {
        QueueSpec q = queue(parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: cpu-only}
                spec: {capability: {nvidia.com/gpu: "0", cpu: "64"}}
                """), "cpu-only");
        assertEquals(dev.arbiter.model.Caps.of("nvidia.com/gpu", 0, "cpu", 64), q.capability());
        assertFalse(q.capability().admits(Resources.of("nvidia.com/gpu", 1)));
    }

    @Test
    void a_pods_task_role_is_its_annotation_else_its_label() {
        Manifests m = parse("""
                apiVersion: v1
                kind: Pod
                metadata: {name: labelled, namespace: ns, labels: {volcano.sh/task-spec: worker}}
                spec: {containers: [{name: c}]}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: both
                  namespace: ns
                  labels: {volcano.sh/task-spec: worker}
                  annotations: {volcano.sh/task-spec: master}
                spec: {containers: [{name: c}]}
                """);
        assertEquals("worker", pod(m, "ns/labelled").taskRole());
        assertEquals("master", pod(m, "ns/both").taskRole());
    }

    @Test
    void a_bare_queue_gets_volcano_defaults() {
        QueueSpec q = queue(parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: q}
                """), "q");
        assertEquals(new QueueSpec("q", 1, 0, null, Resources.NONE, true, "Open", null, 0), q);
    }

    @Test
    void a_pod_group_reads_every_field() {
        PodGroupSpec g = podGroup(parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: pg, namespace: team}
                spec:
                  queue: research
                  minMember: 3
                  minTaskMember: {master: 1, worker: 2}
                  minResources: {cpu: "3", nvidia.com/gpu: "24"}
                  priorityClassName: p1-high
                status: {phase: Running}
                """), "team/pg");
        assertEquals(new PodGroupSpec("team", "pg", "research", 3, Map.of("master", 1, "worker", 2),
                Resources.of("cpu", 3, "nvidia.com/gpu", 24), "p1-high", "Running", 0, 0), g);
    }

    @Test
    void a_bare_pod_group_gets_volcano_defaults_and_may_name_an_unknown_queue() {
        Manifests m = parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: bare}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: lost}
                spec: {queue: no-such-queue}
                """);
        assertEquals(new PodGroupSpec("default", "bare", "default", 1, Map.of(), null, null, "Pending", 0, 0),
                podGroup(m, "default/bare"));
        assertEquals("no-such-queue", podGroup(m, "default/lost").queue());
    }

    @Test
    void a_priority_class_reads_value_global_default_and_preemption_policy() {
        List<PriorityClassSpec> classes = parse("""
                apiVersion: scheduling.k8s.io/v1
                kind: PriorityClass
                metadata: {name: batch}
                value: 50
                ---
                apiVersion: scheduling.k8s.io/v1
                kind: PriorityClass
                metadata: {name: polite}
                value: -10
                globalDefault: true
                preemptionPolicy: Never
                """).priorityClasses();
        assertEquals(List.of(new PriorityClassSpec("batch", 50, false, "PreemptLowerPriority"),
                new PriorityClassSpec("polite", -10, true, "Never")), classes);
        assertTrue(classes.get(1).globalDefault());
    }
}
