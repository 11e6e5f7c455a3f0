package dev.arbiter.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.WorkloadApiTerms;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code scheduling.k8s.io/v1beta1} PodGroups (KEP-4671) and pods' {@code spec.schedulingGroup}: the fields of
 * {@code k8s.io/api} v0.37.2's {@code scheduling/v1beta1/types.go}, the API server's checks of them (exactly one
 * scheduling policy and one disruption mode, {@code minCount} positive, {@code priority} at most 1000000000).
 */
class WorkloadApiPodGroupTest {
    private static Manifests load(String yaml) {
        return ManifestLoader.parse(yaml, "t.yaml");
    }

    private static PodGroupSpec only(String yaml) {
        Manifests m = load(yaml);
        assertEquals(1, m.podGroups().size());
        return m.podGroups().get(0);
    }

    private static String pg(String meta, String spec) {
        return "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g" + meta + "}\nspec: " + spec + "\n";
    }

    @Test
    void aGangReadsItsMinCountPriorityAndModes() {
        PodGroupSpec g = only(pg(", namespace: ml, annotations: {scheduling.volcano.sh/queue-name: research}",
                "{schedulingPolicy: {gang: {minCount: 4}}, priorityClassName: high, priority: 1000,"
                        + " preemptionPolicy: Never, disruptionMode: {all: {}}}"));
        assertEquals("ml/g", g.key());
        assertEquals(4, g.minMember());
        assertEquals("research", g.queue());
        assertEquals("high", g.priorityClassName());
        assertEquals("Pending", g.phase());
        assertEquals(new WorkloadApiTerms(true, 1000, true, true, null), g.workloadApi());
        assertTrue(g.isWorkloadApi());
    }

    @Test
    void aBasicGroupIsAGangOfOneInTheDefaultQueueDisruptedSingly() {
        PodGroupSpec g = only(pg("", "{schedulingPolicy: {basic: {}}}"));
        assertEquals(1, g.minMember());
        assertEquals("default", g.queue());
        assertEquals(new WorkloadApiTerms(false, null, false, false, null), g.workloadApi());
    }

    @Test
    void theAlphaVersionReadsTheSame() {
        PodGroupSpec g = only(pg("", "{schedulingPolicy: {gang: {minCount: 2}}}")
                .replace("v1beta1", "v1alpha3"));
        assertEquals(2, g.minMember());
        assertTrue(g.isWorkloadApi());
    }

    @Test
    void initiallyScheduledTrueReadsAsRunning() {
        PodGroupSpec g = only(pg("", "{schedulingPolicy: {gang: {minCount: 2}}}")
                + "status: {conditions: [{type: PodGroupInitiallyScheduled, status: \"True\", reason: Scheduled}]}\n");
        assertEquals("Running", g.phase());
        PodGroupSpec f = only(pg("", "{schedulingPolicy: {gang: {minCount: 2}}}")
                + "status: {conditions: [{type: PodGroupInitiallyScheduled, status: \"False\", reason: Unschedulable}]}\n");
        assertEquals("Pending", f.phase());
    }

    @Test
    void volcanoPodGroupsHaveNoWorkloadTerms() {
        PodGroupSpec g = only("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: v}\nspec: {minMember: 2}\n");
        assertNull(g.workloadApi());
        assertFalse(g.isWorkloadApi());
    }

    @Test
    void badPoliciesAreOneLineErrors() {
        assertEquals("t.yaml:4: PodGroup default/g: spec.schedulingPolicy: must set exactly one of basic and gang",
                assertThrows(ManifestException.class, () -> load(pg("", "{schedulingPolicy: {basic: {}, gang: {minCount: 1}}}"))).getMessage());
        assertTrue(assertThrows(ManifestException.class, () -> load(pg("", "{schedulingPolicy: {}}"))).getMessage()
                .endsWith("spec.schedulingPolicy: must set exactly one of basic and gang"));
        assertTrue(assertThrows(ManifestException.class, () -> load(pg("", "{schedulingPolicy: {gang: {minCount: 0}}}")))
                .getMessage().endsWith("spec.schedulingPolicy.gang.minCount: must be a positive integer, got 0"));
        assertTrue(assertThrows(ManifestException.class, () -> load(pg("", "{schedulingPolicy: {gang: {}}}")))
                .getMessage().endsWith("spec.schedulingPolicy.gang.minCount: is required"));
        assertTrue(assertThrows(ManifestException.class, () -> load(pg("",
                "{schedulingPolicy: {basic: {}}, disruptionMode: {all: {}, single: {}}}")))
                .getMessage().endsWith("spec.disruptionMode: must set exactly one of single and all"));
        assertTrue(assertThrows(ManifestException.class, () -> load(pg("",
                "{schedulingPolicy: {basic: {}}, preemptionPolicy: Sometimes}")))
                .getMessage().contains("spec.preemptionPolicy: must be PreemptLowerPriority or Never"));
        assertTrue(assertThrows(ManifestException.class, () -> load(pg("",
                "{schedulingPolicy: {basic: {}}, priority: 2000000000}")))
                .getMessage().endsWith("spec.priority: must be at most 1000000000, got 2000000000"));
    }

    @Test
    void aPodNamesItsGroupInSchedulingGroup() {
        Manifests m = load(pg("", "{schedulingPolicy: {gang: {minCount: 1}}}")
                + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulingGroup: {podGroupName: g}\n"
                + "  containers: [{name: c}]\n");
        assertEquals("g", m.pods().get(0).groupName());
    }

    @Test
    void aPodNamingTwoGroupsIsAnError() {
        ManifestException e = assertThrows(ManifestException.class, () -> load(
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {scheduling.k8s.io/group-name: a}}\n"
                        + "spec:\n  schedulingGroup: {podGroupName: b}\n  containers: [{name: c}]\n"));
        assertTrue(e.getMessage().contains("spec.schedulingGroup.podGroupName: names PodGroup b but the pod's annotation"
                + " scheduling.k8s.io/group-name names a; a pod joins one group"), e.getMessage());
    }

    @Test
    void aVolcanoAndAWorkloadPodGroupOfOneNameClash() {
        ManifestException e = assertThrows(ManifestException.class, () -> load(
                "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 1}\n---\n"
                        + pg("", "{schedulingPolicy: {basic: {}}}")));
        assertTrue(e.getMessage().contains("duplicate PodGroup default/g (first at t.yaml:1)"), e.getMessage());
        assertTrue(e.getMessage().endsWith("would be one gang to Arbiter: rename one"), e.getMessage());
    }

    @Test
    void unhonouredFieldsAndWorkloadsAreNotices() {
        Manifests m = load(pg("", "{schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {topology: [{key: rack}]},"
                + " parentCompositePodGroupName: top}")
                + "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\n"
                + "spec: {podGroupTemplates: [{name: t, schedulingPolicy: {gang: {minCount: 2}}}]}\n");
        assertEquals("schedulingConstraints.topology, parentCompositePodGroupName", m.podGroups().get(0).workloadApi().ignored());
        assertTrue(m.notices().stream().anyMatch(n -> n.contains("PodGroup default/g: schedulingConstraints.topology,"
                + " parentCompositePodGroupName not honoured")), m.notices().toString());
        assertTrue(m.notices().stream().anyMatch(n -> n.contains("skipped scheduling.k8s.io/v1beta1 Workload default/w")),
                m.notices().toString());
        assertEquals(Map.of(), m.podGroups().get(0).minTaskMember());
    }
}
